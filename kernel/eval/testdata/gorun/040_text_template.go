package main

import (
	"os"
	"strings"
	"text/template"
)

type Inventory struct {
	Material string
	Count    uint
	Items    []string
}

func main() {
	funcs := template.FuncMap{"upper": strings.ToUpper}
	tmpl := template.Must(template.New("t").Funcs(funcs).Parse(
		"{{.Count}} items are made of {{.Material | upper}}\n{{range $i, $e := .Items}}{{$i}}={{$e}} {{end}}\n{{if gt .Count 10}}many{{else}}few{{end}}\n"))
	err := tmpl.Execute(os.Stdout, Inventory{"wool", 17, []string{"hat", "scarf"}})
	if err != nil {
		panic(err)
	}
}
