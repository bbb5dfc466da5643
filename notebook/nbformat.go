package notebook

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/conclab/conclab/kernel/cellout"
)

// Cell types.
const (
	CellCode     = "code"
	CellMarkdown = "markdown"
	CellRaw      = "raw"
)

// Output types.
const (
	OutputStream        = "stream"
	OutputDisplayData   = "display_data"
	OutputExecuteResult = "execute_result"
	OutputError         = "error"
)

// Format version written by Write.
const (
	FormatMajor = 4
	FormatMinor = 5
)

// maxNotebookBytes bounds what Read accepts (a guard against reading a huge
// non-notebook file into memory).
const maxNotebookBytes = 512 << 20

// Notebook is an nbformat 4 notebook. Metadata holds the notebook metadata
// (kernelspec, language_info and anything else) as decoded JSON: numbers are
// json.Number so they round-trip exactly.
type Notebook struct {
	Cells    []*Cell
	Metadata map[string]any
	// Format and FormatMinor are the nbformat version read (4 and 0..5).
	// Write always writes 4.5 or later.
	Format, FormatMinor int
}

// Cell is one notebook cell. Source is the cell text joined into one string
// (files may store it as a list of lines). ExecutionCount is nil for a code
// cell that has not run (null in the file); it is unused by other cells.
// Outputs and ExecutionCount are meaningful for code cells only.
type Cell struct {
	ID             string
	Type           string
	Source         string
	Metadata       map[string]any
	Attachments    map[string]any
	ExecutionCount *int
	Outputs        []*Output
}

// Output is one output of a code cell. Which fields are meaningful depends on
// Type: stream has Name ("stdout" or "stderr") and Text; display_data has Data
// and Metadata; execute_result has Data, Metadata and ExecutionCount; error has
// EName, EValue and Traceback. Text-like MIME values in Data are strings (files
// may split them into lines); binary ones (image/png) are base64 strings; JSON
// MIME types hold decoded JSON.
type Output struct {
	Type           string
	Name           string
	Text           string
	Data           map[string]any
	Metadata       map[string]any
	ExecutionCount *int
	EName, EValue  string
	Traceback      []string
}

// FormatError reports a file that is not a valid notebook.
type FormatError struct {
	// Path is the file (may be "" when read from a reader).
	Path string
	// Cell is the 1-based cell number the problem is in, 0 for the notebook.
	Cell int
	Msg  string
	Err  error
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString("not a valid notebook")
	if e.Cell > 0 {
		fmt.Fprintf(&b, " (cell %d)", e.Cell)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *FormatError) Unwrap() error { return e.Err }

// ReadFile reads the notebook at path. Errors name the path; a file that is
// not an nbformat 4 notebook gives a *FormatError.
func ReadFile(path string) (*Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("notebook: %s is a directory", path)
	}
	nb, err := Read(f)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
			return nil, fe
		}
		return nil, fmt.Errorf("notebook: %s: %w", path, err)
	}
	return nb, nil
}

// Read decodes an nbformat 4 notebook (any minor version). Sources and text
// outputs stored as lists of lines are joined; cells without ids (nbformat
// before 4.5) get stable ids derived from their position and source.
func Read(r io.Reader) (*Notebook, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxNotebookBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxNotebookBytes {
		return nil, &FormatError{Msg: fmt.Sprintf("larger than %d MiB", maxNotebookBytes>>20)}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark some editors add
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &FormatError{Msg: "empty file"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw struct {
		Cells         []json.RawMessage `json:"cells"`
		Metadata      map[string]any    `json:"metadata"`
		NBFormat      *int              `json:"nbformat"`
		NBFormatMinor *int              `json:"nbformat_minor"`
		Worksheets    json.RawMessage   `json:"worksheets"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, &FormatError{Msg: "invalid JSON", Err: jsonErr(b, err)}
	}
	if dec.More() {
		return nil, &FormatError{Msg: "invalid JSON: data after the notebook object"}
	}
	switch {
	case raw.NBFormat == nil:
		return nil, &FormatError{Msg: `no "nbformat" field (is this a Jupyter notebook?)`}
	case *raw.NBFormat != 4:
		return nil, &FormatError{Msg: fmt.Sprintf("nbformat %d is not supported (only 4; convert it with `jupyter nbconvert --to notebook`)", *raw.NBFormat)}
	case raw.Cells == nil:
		return nil, &FormatError{Msg: `no "cells" list`}
	}
	nb := &Notebook{Metadata: raw.Metadata, Format: 4}
	if raw.NBFormatMinor != nil {
		nb.FormatMinor = *raw.NBFormatMinor
	}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for i, rc := range raw.Cells {
		c, err := decodeCell(rc)
		if err != nil {
			return nil, &FormatError{Cell: i + 1, Msg: err.Error()}
		}
		nb.Cells = append(nb.Cells, c)
	}
	if err := nb.fixIDs(); err != nil {
		return nil, err
	}
	return nb, nil
}

// jsonErr adds the line and column to a JSON syntax error.
func jsonErr(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

var idRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// fixIDs checks cell ids and gives stable ids to cells that have none.
func (nb *Notebook) fixIDs() error {
	seen := map[string]bool{}
	for i, c := range nb.Cells {
		if c.ID == "" {
			continue
		}
		if !idRE.MatchString(c.ID) {
			return &FormatError{Cell: i + 1, Msg: fmt.Sprintf("invalid cell id %q (want 1-64 of a-z A-Z 0-9 - _)", c.ID)}
		}
		if seen[c.ID] {
			return &FormatError{Cell: i + 1, Msg: fmt.Sprintf("duplicate cell id %q", c.ID)}
		}
		seen[c.ID] = true
	}
	for i, c := range nb.Cells {
		if c.ID != "" {
			continue
		}
		for salt := 0; ; salt++ {
			h := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s\x00%s", i, salt, c.Type, c.Source)))
			id := hex.EncodeToString(h[:4])
			if !seen[id] {
				c.ID = id
				seen[id] = true
				break
			}
		}
	}
	return nil
}

// multiline decodes an nbformat multiline string: a string or a list of strings.
func multiline(raw json.RawMessage, field string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", fmt.Errorf("%s: want a string or a list of strings", field)
	}
	return strings.Join(lines, ""), nil
}

func decodeCell(rc json.RawMessage) (*Cell, error) {
	var raw struct {
		ID             *string                      `json:"id"`
		CellType       string                       `json:"cell_type"`
		Source         json.RawMessage              `json:"source"`
		Metadata       map[string]any               `json:"metadata"`
		Attachments    map[string]any               `json:"attachments"`
		ExecutionCount *int                         `json:"execution_count"`
		Outputs        []map[string]json.RawMessage `json:"outputs"`
	}
	dec := json.NewDecoder(bytes.NewReader(rc))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("cell is not a JSON object of the expected shape: %w", err)
	}
	c := &Cell{Type: raw.CellType, Metadata: raw.Metadata, Attachments: raw.Attachments}
	if raw.ID != nil {
		if *raw.ID == "" {
			return nil, errors.New("empty cell id")
		}
		c.ID = *raw.ID
	}
	switch c.Type {
	case CellCode, CellMarkdown, CellRaw:
	case "":
		return nil, errors.New(`no "cell_type"`)
	default:
		return nil, fmt.Errorf("unknown cell_type %q", c.Type)
	}
	var err error
	if c.Source, err = multiline(raw.Source, "source"); err != nil {
		return nil, err
	}
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	if c.Type != CellCode {
		return c, nil
	}
	c.ExecutionCount = raw.ExecutionCount
	for j, ro := range raw.Outputs {
		o, err := decodeOutput(ro)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", j+1, err)
		}
		c.Outputs = append(c.Outputs, o)
	}
	return c, nil
}

func decodeJSON(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func decodeOutput(ro map[string]json.RawMessage) (*Output, error) {
	o := &Output{}
	if err := json.Unmarshal(ro["output_type"], &o.Type); err != nil {
		return nil, errors.New(`no "output_type"`)
	}
	var err error
	switch o.Type {
	case OutputStream:
		if err = json.Unmarshal(ro["name"], &o.Name); err != nil {
			return nil, errors.New(`stream output without a "name"`)
		}
		o.Text, err = multiline(ro["text"], "text")
	case OutputDisplayData, OutputExecuteResult:
		if err = decodeJSON(ro["data"], &o.Data); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		if err = decodeJSON(ro["metadata"], &o.Metadata); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		for k, v := range o.Data {
			if cellout.IsJSON(k) {
				continue
			}
			if l, ok := v.([]any); ok {
				var b strings.Builder
				all := true
				for _, x := range l {
					s, ok := x.(string)
					if !ok {
						all = false
						break
					}
					b.WriteString(s)
				}
				if all {
					o.Data[k] = b.String()
				}
			}
		}
		if o.Type == OutputExecuteResult {
			if err = decodeJSON(ro["execution_count"], &o.ExecutionCount); err != nil {
				return nil, fmt.Errorf("execution_count: %w", err)
			}
		}
	case OutputError:
		_ = json.Unmarshal(ro["ename"], &o.EName)
		_ = json.Unmarshal(ro["evalue"], &o.EValue)
		if err = decodeJSON(ro["traceback"], &o.Traceback); err != nil {
			return nil, fmt.Errorf("traceback: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown output_type %q", o.Type)
	}
	return o, err
}

// splitLines splits s after each "\n" (Jupyter's on-disk form of multiline
// strings); "" gives an empty list.
func splitLines(s string) []string {
	out := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// On-disk shapes; fields are in alphabetical order so that the output matches
// Jupyter's (json.dumps with sort_keys=True, indent=1).
type (
	diskNotebook struct {
		Cells         []any          `json:"cells"`
		Metadata      map[string]any `json:"metadata"`
		NBFormat      int            `json:"nbformat"`
		NBFormatMinor int            `json:"nbformat_minor"`
	}
	diskTextCell struct {
		Attachments map[string]any `json:"attachments,omitempty"`
		CellType    string         `json:"cell_type"`
		ID          string         `json:"id"`
		Metadata    map[string]any `json:"metadata"`
		Source      []string       `json:"source"`
	}
	diskCodeCell struct {
		CellType       string         `json:"cell_type"`
		ExecutionCount *int           `json:"execution_count"`
		ID             string         `json:"id"`
		Metadata       map[string]any `json:"metadata"`
		Outputs        []any          `json:"outputs"`
		Source         []string       `json:"source"`
	}
	diskStream struct {
		Name       string   `json:"name"`
		OutputType string   `json:"output_type"`
		Text       []string `json:"text"`
	}
	diskDisplay struct {
		Data       map[string]any `json:"data"`
		Metadata   map[string]any `json:"metadata"`
		OutputType string         `json:"output_type"`
	}
	diskResult struct {
		Data           map[string]any `json:"data"`
		ExecutionCount *int           `json:"execution_count"`
		Metadata       map[string]any `json:"metadata"`
		OutputType     string         `json:"output_type"`
	}
	diskError struct {
		EName      string   `json:"ename"`
		EValue     string   `json:"evalue"`
		OutputType string   `json:"output_type"`
		Traceback  []string `json:"traceback"`
	}
)

// diskData converts a MIME bundle to its on-disk form: text MIME types (and
// SVG, JavaScript) split into lines, []byte base64-encoded.
func diskData(d map[string]any) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		switch x := v.(type) {
		case []byte:
			out[k] = base64.StdEncoding.EncodeToString(x)
		case string:
			if strings.HasPrefix(k, "text/") || k == "image/svg+xml" || k == "application/javascript" {
				out[k] = splitLines(x)
			} else {
				out[k] = x
			}
		default:
			out[k] = v
		}
	}
	return out
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Write encodes nb as nbformat 4.5 JSON the way Jupyter writes it (sorted
// keys, one-space indent, multiline strings as lists of lines, trailing
// newline), so a notebook read and written unchanged is byte-identical to a
// Jupyter-written file.
func (nb *Notebook) Write(w io.Writer) error {
	if err := nb.fixIDs(); err != nil {
		return err
	}
	d := diskNotebook{Metadata: orEmpty(nb.Metadata), NBFormat: FormatMajor, NBFormatMinor: max(nb.FormatMinor, FormatMinor), Cells: []any{}}
	for i, c := range nb.Cells {
		switch c.Type {
		case CellCode:
			dc := diskCodeCell{CellType: c.Type, ExecutionCount: c.ExecutionCount, ID: c.ID,
				Metadata: orEmpty(c.Metadata), Source: splitLines(c.Source), Outputs: []any{}}
			for j, o := range c.Outputs {
				do, err := diskOutput(o)
				if err != nil {
					return fmt.Errorf("notebook: cell %d output %d: %w", i+1, j+1, err)
				}
				dc.Outputs = append(dc.Outputs, do)
			}
			d.Cells = append(d.Cells, dc)
		case CellMarkdown, CellRaw:
			d.Cells = append(d.Cells, diskTextCell{Attachments: c.Attachments, CellType: c.Type, ID: c.ID,
				Metadata: orEmpty(c.Metadata), Source: splitLines(c.Source)})
		default:
			return fmt.Errorf("notebook: cell %d: unknown cell type %q", i+1, c.Type)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("notebook: encoding: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func diskOutput(o *Output) (any, error) {
	switch o.Type {
	case OutputStream:
		name := o.Name
		if name == "" {
			name = "stdout"
		}
		return diskStream{Name: name, OutputType: o.Type, Text: splitLines(o.Text)}, nil
	case OutputDisplayData:
		return diskDisplay{Data: diskData(o.Data), Metadata: orEmpty(o.Metadata), OutputType: o.Type}, nil
	case OutputExecuteResult:
		return diskResult{Data: diskData(o.Data), ExecutionCount: o.ExecutionCount, Metadata: orEmpty(o.Metadata), OutputType: o.Type}, nil
	case OutputError:
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		return diskError{EName: o.EName, EValue: o.EValue, OutputType: o.Type, Traceback: tb}, nil
	}
	return nil, fmt.Errorf("unknown output type %q", o.Type)
}

// WriteFile writes nb to path atomically: to a temporary file in the same
// directory, then renamed over path, so a failed write leaves any existing
// file untouched. When path is a symbolic link (or a chain of them), the
// file it points to is written, the same way (the temporary file is next to
// that target), and the link stays a link; the target's permissions are
// kept.
func (nb *Notebook) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := nb.Write(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// maxLinks bounds the symbolic links followed to a write's target.
const maxLinks = 40

// writeTarget returns the file a write to path replaces: path, or when path
// is a symbolic link, the file the chain of links ends at (it may not exist
// yet: a dangling link is written through, as a shell's > does).
func writeTarget(path string) (string, error) {
	p := path
	for range maxLinks {
		// Relative link targets are relative to the link's real directory.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", fmt.Errorf("%s: more than %d symbolic links", path, maxLinks)
}

// writeFileAtomic writes b to path's target (see writeTarget) through a
// temporary file next to the target, renamed over it.
func writeFileAtomic(path string, b []byte) error {
	target, err := writeTarget(path)
	if err != nil {
		return fmt.Errorf("notebook: writing %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fmt.Errorf("notebook: writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		mode := os.FileMode(0o644)
		if fi, serr := os.Stat(target); serr == nil {
			mode = fi.Mode().Perm()
		}
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("notebook: writing %s: %w", path, err)
	}
	return nil
}

// Language returns the notebook's language, from metadata.kernelspec.language
// or metadata.language_info.name, lower-cased ("" when neither is set).
func (nb *Notebook) Language() string {
	if ks, ok := nb.Metadata["kernelspec"].(map[string]any); ok {
		if l, ok := ks["language"].(string); ok && l != "" {
			return strings.ToLower(l)
		}
	}
	if li, ok := nb.Metadata["language_info"].(map[string]any); ok {
		if l, ok := li["name"].(string); ok && l != "" {
			return strings.ToLower(l)
		}
	}
	return ""
}

// CheckLanguage returns an error when the notebook declares a language other
// than Go. A notebook that declares none is accepted (and gets Go's
// language_info when executed).
func (nb *Notebook) CheckLanguage() error {
	switch l := nb.Language(); l {
	case "", "go", "golang":
		return nil
	default:
		kernel := ""
		if ks, ok := nb.Metadata["kernelspec"].(map[string]any); ok {
			if n, ok := ks["name"].(string); ok {
				kernel = fmt.Sprintf(" (kernel %q)", n)
			}
		}
		return fmt.Errorf("a %s notebook%s, not Go: conclab runs Go notebooks only", l, kernel)
	}
}
