package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// HTMLOptions configure WriteHTML. The zero value is a complete page with the
// code shown.
type HTMLOptions struct {
	// Title is the page title; "" uses the notebook's first Markdown heading,
	// else "Notebook".
	Title string
	// HideCode leaves code cell sources out (outputs only).
	HideCode bool
	// HeadAssets are consulted in order for every page (e.g. a chart
	// library some output needs; conclab passes the ECharts script's).
	HeadAssets []HeadAsset
}

// HeadAsset returns HTML to put once in the <head> of an exported page, given
// the concatenated HTML of the page's outputs (e.g. a chart library when some
// output needs it, and none was embedded by the outputs themselves). It
// returns "" when nothing is needed.
type HeadAsset func(outputsHTML string) (string, error)

// The display order of MIME types: the first present is shown (nbconvert's
// HTML exporter order).
var mimeOrder = []string{
	"application/javascript", "text/html", "text/markdown", "image/svg+xml", "text/latex",
	"image/png", "image/jpeg", "application/json", "text/plain",
}

const codeStyle = "github"

var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

// WriteFileHTML writes nb's HTML export to path atomically.
func (nb *Notebook) WriteFileHTML(path string, opts HTMLOptions) error {
	var buf bytes.Buffer
	if err := nb.WriteHTML(&buf, opts); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("notebook: %w", err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

// WriteHTML writes nb as one self-contained HTML page: Markdown cells
// rendered (GitHub-flavoured: tables, strikethrough, task lists, autolinks;
// raw HTML kept), code highlighted (CSS in one <style> block), outputs
// embedded: text and errors (ANSI colours converted), HTML (its scripts run),
// Markdown, SVG, PNG and JPEG as data URIs, JSON. Images in Markdown cells
// that refer to cell attachments are embedded as data URIs. Nothing is loaded
// from the network except what outputs themselves refer to.
func (nb *Notebook) WriteHTML(w io.Writer, opts HTMLOptions) error {
	var body bytes.Buffer
	var outs strings.Builder
	for i, c := range nb.Cells {
		id := c.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		switch c.Type {
		case CellMarkdown:
			fmt.Fprintf(&body, "<section class=\"cell markdown\" id=\"cell-%s\">\n", html.EscapeString(id))
			if err := renderMarkdown(&body, c.Source, c.Attachments); err != nil {
				return fmt.Errorf("notebook: cell %d: markdown: %w", i+1, err)
			}
			body.WriteString("</section>\n")
		case CellRaw:
			if f, _ := c.Metadata["format"].(string); f == "text/html" {
				fmt.Fprintf(&body, "<section class=\"cell raw\" id=\"cell-%s\">%s</section>\n", html.EscapeString(id), c.Source)
			}
		case CellCode:
			fmt.Fprintf(&body, "<section class=\"cell code\" id=\"cell-%s\">\n", html.EscapeString(id))
			if !opts.HideCode {
				body.WriteString(`<div class="input"><div class="prompt">` + prompt("In", c.ExecutionCount) + `</div><div class="source">`)
				if err := highlight(&body, c.Source); err != nil {
					return fmt.Errorf("notebook: cell %d: highlighting: %w", i+1, err)
				}
				body.WriteString("</div></div>\n")
			}
			if len(c.Outputs) > 0 {
				body.WriteString(`<div class="outputs">` + "\n")
				for _, o := range c.Outputs {
					h, err := outputHTML(o)
					if err != nil {
						return fmt.Errorf("notebook: cell %d: output: %w", i+1, err)
					}
					p := ""
					if o.Type == OutputExecuteResult {
						p = prompt("Out", o.ExecutionCount)
					}
					fmt.Fprintf(&body, "<div class=\"output %s\"><div class=\"prompt\">%s</div><div class=\"content\">%s</div></div>\n", o.Type, p, h)
					outs.WriteString(h)
				}
				body.WriteString("</div>\n")
			}
			body.WriteString("</section>\n")
		}
	}

	title := opts.Title
	if title == "" {
		title = nb.title()
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString(`<meta name="generator" content="conclab">` + "\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s", html.EscapeString(title), pageCSS)
	if err := chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(&b, chromaStyle()); err != nil {
		return fmt.Errorf("notebook: highlight CSS: %w", err)
	}
	b.WriteString("</style>\n")
	for _, a := range opts.HeadAssets {
		s, err := a(outs.String())
		if err != nil {
			return fmt.Errorf("notebook: page asset: %w", err)
		}
		if s != "" {
			b.WriteString(s)
			b.WriteString("\n")
		}
	}
	b.WriteString("</head>\n<body>\n<main class=\"notebook\">\n")
	b.Write(body.Bytes())
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

func chromaStyle() *chroma.Style {
	if s := styles.Get(codeStyle); s != nil {
		return s
	}
	return styles.Fallback
}

func prompt(label string, n *int) string {
	if n == nil {
		return label + "&nbsp;[&nbsp;]:"
	}
	return fmt.Sprintf("%s&nbsp;[%d]:", label, *n)
}

var headingRE = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)

// title is the text of the first Markdown heading.
func (nb *Notebook) title() string {
	for _, c := range nb.Cells {
		if c.Type != CellMarkdown {
			continue
		}
		if m := headingRE.FindStringSubmatch(c.Source); m != nil {
			t := strings.NewReplacer("*", "", "`", "", "_", " ").Replace(m[1])
			return strings.TrimSpace(t)
		}
	}
	return "Notebook"
}

func highlight(w io.Writer, src string) error {
	lexer := lexers.Get("go")
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return err
	}
	return chromahtml.New(chromahtml.WithClasses(true)).Format(w, chromaStyle(), it)
}

// attachmentTransformer rewrites "attachment:NAME" image destinations to
// data URIs from the cell's attachments.
type attachmentTransformer struct{ att map[string]any }

func (t attachmentTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		img, ok := n.(*ast.Image)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		name, ok := strings.CutPrefix(string(img.Destination), "attachment:")
		if !ok {
			return ast.WalkContinue, nil
		}
		if bundle, ok := t.att[name].(map[string]any); ok {
			mimes := make([]string, 0, len(bundle))
			for m := range bundle {
				mimes = append(mimes, m)
			}
			sort.Strings(mimes)
			for _, m := range mimes {
				if s, ok := bundle[m].(string); ok && strings.HasPrefix(m, "image/") {
					img.Destination = []byte("data:" + m + ";base64," + strings.Join(strings.Fields(s), ""))
					break
				}
			}
		}
		return ast.WalkContinue, nil
	})
}

func renderMarkdown(w io.Writer, src string, attachments map[string]any) error {
	if len(attachments) == 0 {
		return markdown.Convert([]byte(src), w)
	}
	ctx := parser.NewContext()
	p := markdown.Parser()
	doc := p.Parse(text.NewReader([]byte(src)), parser.WithContext(ctx))
	attachmentTransformer{attachments}.Transform(doc.(*ast.Document), nil, ctx)
	return markdown.Renderer().Render(w, []byte(src), doc)
}

var _ parser.ASTTransformer = attachmentTransformer{}

func outputHTML(o *Output) (string, error) {
	switch o.Type {
	case OutputStream:
		return fmt.Sprintf(`<pre class="%s">%s</pre>`, html.EscapeString(o.Name), ansiHTML(o.Text)), nil
	case OutputError:
		var b strings.Builder
		b.WriteString(`<pre class="error">`)
		if len(o.Traceback) > 0 {
			b.WriteString(ansiHTML(strings.Join(o.Traceback, "\n")))
		} else {
			b.WriteString(ansiHTML(o.EName + ": " + o.EValue))
		}
		b.WriteString("</pre>")
		return b.String(), nil
	case OutputDisplayData, OutputExecuteResult:
		return bundleHTML(o.Data, o.Metadata)
	}
	return "", fmt.Errorf("unknown output type %q", o.Type)
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func bundleHTML(data, meta map[string]any) (string, error) {
	for _, m := range mimeOrder {
		v, ok := data[m]
		if !ok {
			continue
		}
		switch m {
		case "application/javascript":
			return "<script>\n" + strings.ReplaceAll(str(v), "</script", `<\/script`) + "\n</script>", nil
		case "text/html", "image/svg+xml":
			return str(v), nil
		case "text/markdown":
			var b bytes.Buffer
			if err := markdown.Convert([]byte(str(v)), &b); err != nil {
				return "", err
			}
			return `<div class="md">` + b.String() + `</div>`, nil
		case "text/latex":
			return `<pre class="latex">` + html.EscapeString(str(v)) + `</pre>`, nil
		case "image/png", "image/jpeg":
			attrs := ""
			if md, ok := meta[m].(map[string]any); ok {
				for _, k := range []string{"width", "height"} {
					if x, ok := md[k]; ok {
						attrs += fmt.Sprintf(` %s="%s"`, k, html.EscapeString(fmt.Sprint(x)))
					}
				}
			}
			b64 := strings.Join(strings.Fields(str(v)), "")
			return fmt.Sprintf(`<img src="data:%s;base64,%s"%s alt="%s">`, m, b64, attrs, m), nil
		case "application/json":
			var js bytes.Buffer
			enc := json.NewEncoder(&js)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			return `<pre class="json">` + html.EscapeString(strings.TrimSuffix(js.String(), "\n")) + `</pre>`, nil
		case "text/plain":
			return `<pre>` + ansiHTML(str(v)) + `</pre>`, nil
		}
	}
	return "", nil
}

const pageCSS = `:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #1f2328; font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
main.notebook { max-width: 1100px; margin: 0 auto; padding: 24px 16px 64px; }
.cell { margin: 0 0 14px; }
.cell.markdown { padding: 0 0 0 92px; }
.cell.markdown table, .md table { border-collapse: collapse; margin: 8px 0; }
.cell.markdown th, .cell.markdown td, .md th, .md td { border: 1px solid #d0d7de; padding: 4px 10px; }
.cell.markdown tr:nth-child(2n), .md tr:nth-child(2n) { background: #f6f8fa; }
.cell.markdown code, .md code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; font-size: 90%; }
.input, .output { display: flex; align-items: flex-start; }
.prompt { flex: 0 0 84px; padding: 6px 8px 0 0; text-align: right; color: #57606a; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.source { flex: 1; min-width: 0; border: 1px solid #d0d7de; border-radius: 6px; background: #f6f8fa; overflow-x: auto; }
.source pre { margin: 0; padding: 8px 10px; background: transparent !important; }
pre { tab-size: 4; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.output .content { flex: 1; min-width: 0; overflow-x: auto; padding: 4px 0; }
.output .content > pre { margin: 0; padding: 4px 10px; white-space: pre-wrap; }
.output .content > :not(pre):not(script) { margin-left: 10px; }
.output .content > .md > :first-child { margin-top: 0; }
.output .content > .md > :last-child { margin-bottom: 0; }
.output pre.stderr { background: #fff5f5; }
.output pre.error { background: #ffebe9; color: #82071e; }
.output img { max-width: 100%; }
.output table { border-collapse: collapse; }
.output th, .output td { border: 1px solid #d0d7de; padding: 2px 8px; }
`
