// Package display builds Jupyter MIME bundles and publishes them from Go code.
//
// It is a plain Go package: the conclab kernel, the headless notebook runner,
// charts and bench all use it, and notebook cells use it through the
// interpreter, where it is imported automatically as `display` (gophernotes'
// contract, so gophernotes notebooks run unchanged).
//
// A bundle is a Data value: a map from MIME type to content, plus metadata and
// transient fields. Constructors (HTML, Markdown, PNG, ...) build bundles that
// always carry a text/plain fallback. Render converts an arbitrary value by the
// methods it has (HTML() string, PNG() []byte, Render() Data, image.Image ...).
//
// Display, Update and Clear send bundles to the Publisher installed with
// SetPublisher (the kernel installs one per cell); without a publisher they
// return ErrNoPublisher.
package display

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
)

// MIME types understood by Jupyter front ends.
const (
	MIMETypeHTML       = "text/html"
	MIMETypeJavaScript = "application/javascript"
	MIMETypeJPEG       = "image/jpeg"
	MIMETypeJSON       = "application/json"
	MIMETypeLatex      = "text/latex"
	MIMETypeMarkdown   = "text/markdown"
	MIMETypePNG        = "image/png"
	MIMETypePDF        = "application/pdf"
	MIMETypeSVG        = "image/svg+xml"
	MIMETypeText       = "text/plain"
)

// MIMEMap maps a MIME type (or metadata key) to its content. Binary content
// ([]byte) is base64-encoded by the kernel when sent, as Jupyter requires.
type MIMEMap = map[string]any

// Data is a MIME bundle: the content of a display_data or execute_result
// message. Transient["display_id"] names an updatable display.
type Data struct {
	Data      MIMEMap
	Metadata  MIMEMap
	Transient MIMEMap
}

// DisplayID returns the bundle's display id ("" when it has none).
func (d Data) DisplayID() string {
	id, _ := d.Transient["display_id"].(string)
	return id
}

// WithID returns a copy of d whose Transient["display_id"] is id, so that
// Display creates an updatable display and Update can replace it.
func (d Data) WithID(id string) Data {
	t := MIMEMap{}
	for k, v := range d.Transient {
		t[k] = v
	}
	t["display_id"] = id
	d.Transient = t
	return d
}

// Renderer is implemented by values that fully specify their bundle.
// Like the single-format interfaces below, it is satisfied by method set
// alone: a library implements it without importing this package except
// for Data.
type Renderer interface{ Render() Data }

// SimpleRenderer is implemented by values that return only the MIME map.
type SimpleRenderer interface{ SimpleRender() MIMEMap }

// Single-format renderers, by method.
type (
	HTMLer       interface{ HTML() string }
	Markdowner   interface{ Markdown() string }
	SVGer        interface{ SVG() string }
	PNGer        interface{ PNG() []byte }
	JPEGer       interface{ JPEG() []byte }
	Latexer      interface{ Latex() string }
	JavaScripter interface{ JavaScript() string }
	PDFer        interface{ PDF() []byte }
	JSONer       interface{ JSON() map[string]any }
)

// Format is one single-format renderer: a MIME type, the method that
// renders a value to it and the one-method interface declaring it.
type Format struct {
	MIME      string
	Method    string
	Interface reflect.Type
}

// Formats are the single-format renderers Render looks for, in this order
// (the first representation of a MIME type found is kept). The kernel's
// interpreter derives from it how it renders values of types declared in
// cells, whose methods compiled code cannot see.
var Formats = []Format{
	{MIMETypeHTML, "HTML", reflect.TypeFor[HTMLer]()},
	{MIMETypeMarkdown, "Markdown", reflect.TypeFor[Markdowner]()},
	{MIMETypeSVG, "SVG", reflect.TypeFor[SVGer]()},
	{MIMETypeLatex, "Latex", reflect.TypeFor[Latexer]()},
	{MIMETypeJavaScript, "JavaScript", reflect.TypeFor[JavaScripter]()},
	{MIMETypePNG, "PNG", reflect.TypeFor[PNGer]()},
	{MIMETypeJPEG, "JPEG", reflect.TypeFor[JPEGer]()},
	{MIMETypePDF, "PDF", reflect.TypeFor[PDFer]()},
	{MIMETypeJSON, "JSON", reflect.TypeFor[JSONer]()},
}

// MakeData returns a bundle holding data under mimeType, with a text/plain
// fallback of fmt.Sprint(data) when mimeType is not text/plain.
func MakeData(mimeType string, data any) Data {
	d := Data{Data: MIMEMap{mimeType: data}}
	if mimeType != MIMETypeText {
		switch data.(type) {
		case []byte:
			d.Data[MIMETypeText] = fmt.Sprintf("<%s, %d bytes>", mimeType, len(data.([]byte)))
		default:
			d.Data[MIMETypeText] = fmt.Sprint(data)
		}
	}
	return d
}

// MakeData3 returns a bundle with an explicit text/plain representation.
func MakeData3(mimeType, plaintext string, data any) Data {
	return Data{Data: MIMEMap{MIMETypeText: plaintext, mimeType: data}}
}

// MIME wraps a data and a metadata map into a bundle.
func MIME(data, metadata MIMEMap) Data { return Data{Data: data, Metadata: metadata} }

// Text returns a plain-text bundle.
func Text(s string) Data { return MakeData(MIMETypeText, s) }

// HTML returns an HTML bundle.
func HTML(html string) Data { return MakeData(MIMETypeHTML, html) }

// Markdown returns a Markdown bundle.
func Markdown(markdown string) Data { return MakeData(MIMETypeMarkdown, markdown) }

// SVG returns an SVG image bundle.
func SVG(svg string) Data { return MakeData(MIMETypeSVG, svg) }

// JavaScript returns a JavaScript bundle (run by front ends that allow it).
func JavaScript(js string) Data { return MakeData(MIMETypeJavaScript, js) }

// Latex returns an inline LaTeX bundle ($...$).
func Latex(latex string) Data {
	return MakeData3(MIMETypeLatex, latex, "$"+strings.Trim(latex, "$")+"$")
}

// Math returns a display-math LaTeX bundle ($$...$$).
func Math(latex string) Data {
	return MakeData3(MIMETypeLatex, latex, "$$"+strings.Trim(latex, "$")+"$$")
}

// PNG returns a PNG image bundle; png holds the encoded file.
func PNG(png []byte) Data { return MakeData(MIMETypePNG, png) }

// JPEG returns a JPEG image bundle; jpeg holds the encoded file.
func JPEG(jpeg []byte) Data { return MakeData(MIMETypeJPEG, jpeg) }

// PDF returns a PDF bundle.
func PDF(pdf []byte) Data { return MakeData(MIMETypePDF, pdf) }

// JSON returns an application/json bundle of v, which must be JSON-encodable.
func JSON(v any) Data { return MakeData(MIMETypeJSON, v) }

// Image encodes img as PNG and returns an image bundle with its width and
// height as metadata. An encoding error becomes a text/plain error bundle.
func Image(img image.Image) Data {
	if img == nil {
		return Text("<nil image>")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Text("display.Image: " + err.Error())
	}
	b := img.Bounds()
	return Data{
		Data: MIMEMap{
			MIMETypePNG:  buf.Bytes(),
			MIMETypeText: fmt.Sprintf("<image %dx%d>", b.Dx(), b.Dy()),
		},
		Metadata: MIMEMap{MIMETypePNG: MIMEMap{"width": b.Dx(), "height": b.Dy()}},
	}
}

// Any returns a bundle for v under mimeType. Values with renderer methods are
// rendered by them; strings are taken as mimeType content; byte slices,
// io.Readers and io.WriterTos are read, and their MIME type is detected when
// mimeType is "".
func Any(mimeType string, v any) Data {
	if d, ok := Render(v); ok {
		if mimeType != "" && d.Data[mimeType] == nil {
			if s, ok := v.(string); ok {
				d.Data[mimeType] = s
			}
		}
		return d
	}
	var b []byte
	switch x := v.(type) {
	case string:
		if mimeType == "" {
			mimeType = MIMETypeText
		}
		return MakeData(mimeType, x)
	case []byte:
		b = x
	case io.WriterTo:
		var buf bytes.Buffer
		if _, err := x.WriteTo(&buf); err != nil {
			return Text("display.Any: " + err.Error())
		}
		b = buf.Bytes()
	case io.Reader:
		var err error
		if b, err = io.ReadAll(x); err != nil {
			return Text("display.Any: " + err.Error())
		}
	default:
		return Text(fmt.Sprint(v))
	}
	if mimeType == "" {
		mimeType = http.DetectContentType(b)
		if i := strings.IndexByte(mimeType, ';'); i >= 0 {
			mimeType = mimeType[:i]
		}
	}
	if strings.HasPrefix(mimeType, "text/") || mimeType == MIMETypeSVG || mimeType == MIMETypeJavaScript {
		return MakeData(mimeType, string(b))
	}
	return MakeData(mimeType, b)
}

// Auto is Any("", v): the MIME type is detected.
func Auto(v any) Data { return Any("", v) }

// File reads the file at path and returns it as a bundle of mimeType
// (detected when ""). A read error becomes a text/plain error bundle.
func File(mimeType, path string) Data {
	b, err := os.ReadFile(path)
	if err != nil {
		return Text("display.File: " + err.Error())
	}
	return Any(mimeType, b)
}

// Render converts v to a bundle by the methods it implements, merging every
// representation found: Render() Data, SimpleRender() MIMEMap, HTML(),
// Markdown(), SVG(), Latex(), JavaScript() string, PNG(), JPEG(), PDF()
// []byte, JSON() map[string]any, and image.Image (encoded as PNG). A Data
// value is returned as is. ok is false when v has none of these; the bundle
// then holds only text/plain fmt.Sprint(v). The result always has text/plain.
func Render(v any) (d Data, ok bool) {
	switch x := v.(type) {
	case nil:
		return Data{}, false
	case Data:
		if x.Data == nil {
			x.Data = MIMEMap{}
		}
		return x, true
	case *Data:
		if x == nil {
			return Data{}, false
		}
		return Render(*x)
	}
	d = Data{Data: MIMEMap{}}
	if r, is := v.(Renderer); is {
		x := r.Render()
		merge(&d.Data, x.Data)
		merge(&d.Metadata, x.Metadata)
		merge(&d.Transient, x.Transient)
		ok = true
	}
	if r, is := v.(SimpleRenderer); is {
		merge(&d.Data, r.SimpleRender())
		ok = true
	}
	put := func(mime string, val any) {
		if _, have := d.Data[mime]; !have {
			d.Data[mime] = val
		}
		ok = true
	}
	rv := reflect.ValueOf(v)
	for _, f := range Formats {
		if rv.Type().Implements(f.Interface) {
			put(f.MIME, rv.MethodByName(f.Method).Call(nil)[0].Interface())
		}
	}
	if img, is := v.(image.Image); is && d.Data[MIMETypePNG] == nil {
		im := Image(img)
		merge(&d.Data, im.Data)
		merge(&d.Metadata, im.Metadata)
		ok = true
	}
	return ensureText(d, v), ok
}

// EncodeJPEG encodes img as a JPEG bundle at the given quality (1-100).
func EncodeJPEG(img image.Image, quality int) Data {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return Text("display.EncodeJPEG: " + err.Error())
	}
	return JPEG(buf.Bytes())
}

func ensureText(d Data, v any) Data {
	if d.Data == nil {
		d.Data = MIMEMap{}
	}
	if s, _ := d.Data[MIMETypeText].(string); s == "" {
		cp := MIMEMap{}
		for k, x := range d.Data {
			cp[k] = x
		}
		cp[MIMETypeText] = fmt.Sprint(v)
		d.Data = cp
	}
	return d
}

func merge(dst *MIMEMap, src MIMEMap) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = MIMEMap{}
	}
	for k, v := range src {
		(*dst)[k] = v
	}
}

// errors returned by the package-level publishing functions.
var (
	// ErrNoPublisher is returned by Display, Update and Clear when no
	// publisher is installed (code running outside a kernel or runner).
	ErrNoPublisher = errors.New("display: no publisher installed (not running in a conclab kernel or notebook runner)")
)
