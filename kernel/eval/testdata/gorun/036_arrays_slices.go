package main

import "fmt"

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[0] = 100
	fmt.Println(a, b, a == [3]int{1, 2, 3})
	s := a[:]
	s[1] = 200
	fmt.Println(a, len(s), cap(s))
	t := make([]int, 2, 5)
	u := append(t, 9)
	v := append(t, 8)
	fmt.Println(u, v)
	grid := [2][3]string{}
	grid[1][2] = "x"
	fmt.Println(grid, len(grid[0]))
	m := map[string][]int{}
	m["a"] = append(m["a"], 1, 2)
	fmt.Println(m, len(m["zz"]))
	n := copy(t, []int{7, 8, 9})
	fmt.Println(n, t)
	s3 := s[1:2:3]
	fmt.Println(s3, len(s3), cap(s3))
	matrix := make([][]float64, 2)
	for i := range matrix {
		matrix[i] = make([]float64, 2)
		matrix[i][i] = 1
	}
	fmt.Println(matrix)
	type key struct{ x, y int }
	seen := map[key]bool{{1, 2}: true}
	fmt.Println(seen[key{1, 2}], seen[key{2, 1}])
}
