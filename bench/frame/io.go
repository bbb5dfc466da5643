package frame

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HTML renders the frame as an HTML table (numbers right-aligned). The kernel
// and the notebook runner show a Frame that ends a cell with this method.
func (f *Frame) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="conclab-frame" style="border-collapse:collapse;font-family:sans-serif;font-size:13px">`)
	if f.Name != "" {
		fmt.Fprintf(&b, `<caption style="text-align:left;font-weight:bold;padding:4px 0">%s</caption>`, html.EscapeString(f.Name))
	}
	b.WriteString("<thead><tr>")
	for _, c := range f.cols {
		align := "left"
		if c.kind == Number {
			align = "right"
		}
		fmt.Fprintf(&b, `<th style="text-align:%s;border-bottom:1px solid #999;padding:2px 8px">%s</th>`, align, html.EscapeString(c.name))
	}
	b.WriteString("</tr></thead><tbody>")
	for i := 0; i < f.Len(); i++ {
		b.WriteString("<tr>")
		for _, c := range f.cols {
			if c.kind == Number {
				fmt.Fprintf(&b, `<td style="text-align:right;padding:2px 8px">%s</td>`, html.EscapeString(FormatNumber(c.nums[i])))
			} else {
				fmt.Fprintf(&b, `<td style="text-align:left;padding:2px 8px">%s</td>`, html.EscapeString(c.texts[i]))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	if f.Len() == 0 {
		b.WriteString(`<p style="font-family:sans-serif;font-size:12px;color:#666">(no rows)</p>`)
	}
	return b.String()
}

// String renders the frame as an aligned plain-text table.
func (f *Frame) String() string {
	if f == nil {
		return "<nil frame>"
	}
	cols := f.Columns()
	cells := make([][]string, f.Len()+1)
	cells[0] = cols
	for i := 0; i < f.Len(); i++ {
		row := make([]string, len(cols))
		for j, c := range cols {
			row[j] = f.Text(c, i)
		}
		cells[i+1] = row
	}
	width := make([]int, len(cols))
	for _, row := range cells {
		for j, s := range row {
			if n := utf8.RuneCountInString(s); n > width[j] {
				width[j] = n
			}
		}
	}
	var b strings.Builder
	if f.Name != "" {
		b.WriteString(f.Name + "\n")
	}
	for i, row := range cells {
		for j, s := range row {
			if j > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(s))
			if f.cols[j].kind == Number && i > 0 {
				b.WriteString(pad + s)
			} else if j == len(row)-1 {
				b.WriteString(s)
			} else {
				b.WriteString(s + pad)
			}
		}
		b.WriteString("\n")
	}
	if f.Len() == 0 {
		b.WriteString("(no rows)\n")
	}
	return b.String()
}

// WriteCSV writes a header line and one line per row. Numbers are written
// with full precision; NaN as an empty field.
func (f *Frame) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(f.Columns()); err != nil {
		return fmt.Errorf("frame %q: write csv: %w", f.Name, err)
	}
	for i := 0; i < f.Len(); i++ {
		rec := make([]string, len(f.cols))
		for j, c := range f.cols {
			if c.kind == Number {
				if !math.IsNaN(c.nums[i]) {
					rec[j] = strconv.FormatFloat(c.nums[i], 'g', -1, 64)
				}
			} else {
				rec[j] = c.texts[i]
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("frame %q: write csv: %w", f.Name, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("frame %q: write csv: %w", f.Name, err)
	}
	return nil
}

// CSV returns the frame as CSV text.
func (f *Frame) CSV() string {
	var b bytes.Buffer
	_ = f.WriteCSV(&b) // writing to a bytes.Buffer cannot fail
	return b.String()
}

// jsonFrame is the JSON form: column names with kinds, then rows as arrays.
// NaN is null.
type jsonFrame struct {
	Name    string          `json:"name,omitempty"`
	Columns []jsonColumn    `json:"columns"`
	Rows    [][]interface{} `json:"rows"`
}

type jsonColumn struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// MarshalJSON encodes the frame as {"name", "columns":[{"name","kind"}], "rows":[[...]]}.
// NaN and infinities are written as null.
func (f *Frame) MarshalJSON() ([]byte, error) {
	jf := jsonFrame{Name: f.Name, Columns: []jsonColumn{}, Rows: [][]interface{}{}}
	for _, c := range f.cols {
		jf.Columns = append(jf.Columns, jsonColumn{Name: c.name, Kind: c.kind.String()})
	}
	for i := 0; i < f.Len(); i++ {
		row := make([]interface{}, len(f.cols))
		for j, c := range f.cols {
			if c.kind == Number {
				x := c.nums[i]
				if math.IsNaN(x) || math.IsInf(x, 0) {
					row[j] = nil
				} else {
					row[j] = x
				}
			} else {
				row[j] = c.texts[i]
			}
		}
		jf.Rows = append(jf.Rows, row)
	}
	return json.Marshal(jf)
}

// UnmarshalJSON decodes the form written by MarshalJSON, replacing f's content.
func (f *Frame) UnmarshalJSON(data []byte) error {
	var jf jsonFrame
	if err := json.Unmarshal(data, &jf); err != nil {
		return fmt.Errorf("frame: decode json: %w", err)
	}
	g := New(jf.Name)
	for _, c := range jf.Columns {
		k := Number
		switch c.Kind {
		case "label":
			k = Label
		case "number":
		default:
			return fmt.Errorf("frame: decode json: column %q has unknown kind %q", c.Name, c.Kind)
		}
		if err := g.AddColumn(c.Name, k); err != nil {
			return fmt.Errorf("frame: decode json: %w", err)
		}
	}
	for ri, row := range jf.Rows {
		if len(row) != len(jf.Columns) {
			return fmt.Errorf("frame: decode json: row %d has %d values, want %d", ri, len(row), len(jf.Columns))
		}
		r := Row{}
		for j, v := range row {
			c := g.cols[j]
			switch x := v.(type) {
			case nil:
				if c.kind == Number {
					r[c.name] = math.NaN()
				} else {
					r[c.name] = ""
				}
			default:
				r[c.name] = x
			}
		}
		if err := g.Append(r); err != nil {
			return fmt.Errorf("frame: decode json: row %d: %w", ri, err)
		}
	}
	*f = *g
	return nil
}
