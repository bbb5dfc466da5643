package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type Item struct {
	Name     string            `json:"name"`
	Price    float64           `json:"price,omitempty"`
	Tags     []string          `json:"tags"`
	Internal string            `json:"-"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	hidden   int
}

type Order struct {
	ID    int    `json:"id"`
	Items []Item `json:"items"`
}

func main() {
	o := Order{ID: 7, Items: []Item{{Name: "pen", Price: 1.5, Tags: []string{"office"}, Internal: "x"}, {Name: "free"}}}
	b, err := json.Marshal(o)
	fmt.Println(string(b), err)
	b, _ = json.MarshalIndent(o.Items[0], "", "  ")
	fmt.Println(string(b))
	var back Order
	err = json.Unmarshal([]byte(`{"id":9,"items":[{"name":"cup","price":3,"tags":["kitchen"],"attrs":{"color":"red"}}]}`), &back)
	fmt.Printf("%+v %v\n", back, err)
	var anyv map[string]any
	json.Unmarshal([]byte(`{"a":1,"b":[true,null,"s"],"c":{"d":1.5}}`), &anyv)
	fmt.Println(anyv)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(map[string]int{"z": 1, "a": 2})
	var bad Order
	err = json.Unmarshal([]byte(`{"id":"x"}`), &bad)
	fmt.Println(err)
}
