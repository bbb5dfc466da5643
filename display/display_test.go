package display_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/display"
)

type htmlMD struct{}

func (htmlMD) HTML() string     { return "<b>x</b>" }
func (htmlMD) Markdown() string { return "**x**" }
func (htmlMD) String() string   { return "x" }

type bundle struct{}

func (bundle) Render() display.Data {
	return display.Data{Data: display.MIMEMap{"text/csv": "a,b"}, Metadata: display.MIMEMap{"k": 1}}
}

type svg struct{}

func (svg) SVG() string { return "<svg/>" }

type pngOnly struct{}

func (pngOnly) PNG() []byte { return []byte{0x89, 'P', 'N', 'G'} }

func TestRender(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	tests := []struct {
		name   string
		v      any
		ok     bool
		mimes  []string
		plain  string
		absent []string
	}{
		{"nil", nil, false, nil, "", nil},
		{"int", 42, false, []string{"text/plain"}, "42", []string{"text/html"}},
		{"html+markdown", htmlMD{}, true, []string{"text/html", "text/markdown", "text/plain"}, "x", nil},
		{"bundle", bundle{}, true, []string{"text/csv", "text/plain"}, "{}", nil},
		{"svg", svg{}, true, []string{"image/svg+xml"}, "{}", nil},
		{"png method", pngOnly{}, true, []string{"image/png"}, "{}", nil},
		{"image", img, true, []string{"image/png", "text/plain"}, "<image 3x2>", nil},
		{"data", display.HTML("<i>h</i>"), true, []string{"text/html"}, "<i>h</i>", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, ok := display.Render(tt.v)
			if ok != tt.ok {
				t.Fatalf("Render(%v) ok = %v; want %v", tt.v, ok, tt.ok)
			}
			for _, m := range tt.mimes {
				if _, has := d.Data[m]; !has {
					t.Errorf("Render(%v) lacks %s: %v", tt.v, m, d.Data)
				}
			}
			for _, m := range tt.absent {
				if _, has := d.Data[m]; has {
					t.Errorf("Render(%v) has unexpected %s", tt.v, m)
				}
			}
			if tt.plain != "" && d.Data["text/plain"] != tt.plain {
				t.Errorf("Render(%v) text/plain = %q; want %q", tt.v, d.Data["text/plain"], tt.plain)
			}
		})
	}
}

func TestImageIsDecodablePNG(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	d := display.Image(img)
	b, _ := d.Data["image/png"].([]byte)
	got, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if r, _, _, _ := got.At(1, 1).RGBA(); r != 0xffff {
		t.Errorf("pixel (1,1) red = %x; want ffff", r)
	}
}

func TestConstructors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    display.Data
		mime string
		want any
	}{
		{display.HTML("<p>"), "text/html", "<p>"},
		{display.Markdown("# h"), "text/markdown", "# h"},
		{display.SVG("<svg/>"), "image/svg+xml", "<svg/>"},
		{display.Latex("x^2"), "text/latex", "$x^2$"},
		{display.Math("x^2"), "text/latex", "$$x^2$$"},
		{display.JavaScript("1"), "application/javascript", "1"},
		{display.Any("text/csv", "a,b"), "text/csv", "a,b"},
		{display.Auto("<html><body>x</body></html>"), "text/plain", "<html><body>x</body></html>"},
		{display.Auto([]byte("<html><body>x</body></html>")), "text/html", "<html><body>x</body></html>"},
	}
	for i, tt := range tests {
		if got := tt.d.Data[tt.mime]; fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("case %d: %s = %v; want %v", i, tt.mime, got, tt.want)
		}
		if _, ok := tt.d.Data["text/plain"]; !ok {
			t.Errorf("case %d: no text/plain fallback", i)
		}
	}
}

type recorder struct {
	mu      sync.Mutex
	events  []string
	failing bool
}

func (r *recorder) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "display "+d.DisplayID()+" "+fmt.Sprint(d.Data["text/plain"]))
	return nil
}
func (r *recorder) Update(id string, d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "update "+id+" "+fmt.Sprint(d.Data["text/plain"]))
	return nil
}
func (r *recorder) Clear(wait bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprint("clear ", wait))
	return nil
}

// TestPublisher is not parallel: it installs the process-wide publisher.
func TestPublisher(t *testing.T) {
	if err := display.Display(display.Text("x")); !errors.Is(err, display.ErrNoPublisher) {
		t.Fatalf("Display without publisher = %v; want ErrNoPublisher", err)
	}
	r := &recorder{}
	restore := display.SetPublisher(r)
	h, err := display.Open(display.Progress("load", 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Update(display.Progress("load", 4, 4)); err != nil {
		t.Fatal(err)
	}
	if err := display.Clear(true); err != nil {
		t.Fatal(err)
	}
	if err := display.Update("", display.Text("x")); err == nil {
		t.Error("Update with empty id: want error")
	}
	restore()
	restore() // safe twice
	if err := display.Show(1); !errors.Is(err, display.ErrNoPublisher) {
		t.Errorf("after restore: %v; want ErrNoPublisher", err)
	}
	want := []string{
		"display " + h.ID() + " load 1/4 (25%)",
		"update " + h.ID() + " load 4/4 (100%)",
		"clear true",
	}
	if strings.Join(r.events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events = %q; want %q", r.events, want)
	}
}
