package main

import (
	"fmt"
	"strings"
)

type Account struct {
	Owner   string
	balance int
}

func (a *Account) Deposit(n int) { a.balance += n }
func (a Account) Balance() int   { return a.balance }

type Temp float64

func (t Temp) F() float64 { return float64(t)*9/5 + 32 }

func main() {
	acc := &Account{Owner: "ana"}
	dep := acc.Deposit
	dep(10)
	dep(5)
	fmt.Println(acc.Balance())
	bal := (*Account).Balance
	fmt.Println(bal(acc))
	f := Temp.F
	fmt.Println(f(100))
	upper := strings.ToUpper
	fmt.Println(upper("x"))
	ops := map[string]func(float64, float64) float64{
		"add": func(a, b float64) float64 { return a + b },
		"mul": func(a, b float64) float64 { return a * b },
	}
	fmt.Println(ops["add"](1, 2), ops["mul"](3, 4))
	a1 := Account{"x", 1}
	a2 := Account{"x", 1}
	fmt.Println(a1 == a2)
	var accounts []Account
	accounts = append(accounts, a1)
	accounts[0].Deposit(4)
	fmt.Println(accounts[0].Balance())
}
