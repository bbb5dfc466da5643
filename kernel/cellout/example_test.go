package cellout_test

import (
	"fmt"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cellout"
	"github.com/conclab/conclab/kernel/eval"
)

func ExampleBundleOf() {
	b := cellout.BundleOf(display.Data{Data: display.MIMEMap{
		display.MIMETypePNG:  []byte{0x89, 'P', 'N', 'G'},
		display.MIMETypeJSON: []byte(`{"n": 1}`),
		display.MIMETypeText: "chart",
	}})
	fmt.Println(b.Data[display.MIMETypePNG])
	fmt.Println(b.Data[display.MIMETypeJSON])
	fmt.Println(b.Data[display.MIMETypeText])
	// Output:
	// iVBORw==
	// map[n:1]
	// chart
}

func ExampleErrorOf() {
	e := cellout.ErrorOf(&eval.Error{Name: "*strconv.NumError", Value: `strconv.Atoi: parsing "x": invalid syntax`, Line: 2})
	fmt.Println(e.EName)
	fmt.Println(e.EValue)
	fmt.Println(e.Traceback)
	// Output:
	// *strconv.NumError
	// cell line 2: strconv.Atoi: parsing "x": invalid syntax
	// [*strconv.NumError: cell line 2: strconv.Atoi: parsing "x": invalid syntax]
}
