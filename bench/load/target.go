package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Target is what every request of a run sends. The zero Method is GET, or
// POST when a Body or Files are given.
type Target struct {
	// URL is an absolute http:// or https:// URL (Options.TLS configures
	// the latter).
	URL    string
	Method string
	// Header adds request headers (Host, Content-Length and Connection are
	// set by the generator).
	Header http.Header
	// Body is sent as is with every request.
	Body []byte
	// Files and Fields make the body multipart/form-data (like k6's
	// http.file); Body must then be empty.
	Files  []File
	Fields map[string]string
}

// File is one multipart file part. Data is used when set; otherwise the
// file at Path is read once before the run.
type File struct {
	Field       string // form field name, e.g. "file"
	Path        string
	Name        string // file name sent; defaults to the base of Path
	Data        []byte
	ContentType string // defaults to application/octet-stream
}

// methods a request line may carry.
var validMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// prepared is a validated target: what every request sends, ready for
// either transport.
type prepared struct {
	url     *url.URL
	method  string
	header  http.Header // the caller's, canonical, plus Content-Type
	body    []byte
	addr    string // host:port to dial
	tls     bool   // https
	head    bool   // HEAD: responses have no body
	timeout time.Duration
}

// prepare validates t against o (loopback unless AllowRemote) and builds
// the request once.
func (t Target) prepare(ctx context.Context, o *Options) (*prepared, error) {
	if t.URL == "" {
		return nil, fmt.Errorf("load: target URL is empty")
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("load: malformed target URL %q: %w", t.URL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("load: malformed target URL %q: want http://host[:port]/path or https://...", t.URL)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("load: malformed target URL %q: no host", t.URL)
	case u.User != nil:
		return nil, fmt.Errorf("load: target URL %q: user info is not supported", t.URL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if pn, err := strconv.Atoi(port); err != nil || pn < 1 || pn > 65535 {
		return nil, fmt.Errorf("load: malformed target URL %q: port %s is not in 1..65535", t.URL, port)
	}
	if err := checkLoopback(ctx, u.Hostname(), o.AllowRemote); err != nil {
		return nil, err
	}
	method := strings.ToUpper(t.Method)
	if method == "" {
		method = "GET"
		if len(t.Body) > 0 || len(t.Files) > 0 {
			method = "POST"
		}
	}
	if !validMethods[method] {
		return nil, fmt.Errorf("load: unsupported method %q", t.Method)
	}
	body, ctype, err := t.body()
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for k, vs := range t.Header {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		switch ck {
		case "Host", "Content-Length", "Connection", "Transfer-Encoding":
			return nil, fmt.Errorf("load: header %q is set by the generator", k)
		}
		if ck == "Content-Type" && ctype != "" {
			return nil, fmt.Errorf("load: header Content-Type conflicts with the multipart body")
		}
		for _, v := range vs {
			if strings.ContainsAny(k+v, "\r\n") {
				return nil, fmt.Errorf("load: header %q contains a line break", k)
			}
			h.Add(ck, v)
		}
	}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	return &prepared{url: u, method: method, header: h, body: body, addr: net.JoinHostPort(u.Hostname(), port),
		tls: u.Scheme == "https", head: method == "HEAD", timeout: o.Timeout}, nil
}

// raw serialises the request as HTTP/1.1 bytes: head, then body. The
// head has Host and the target's own headers, nothing else (as wrk's): a
// header the user did not ask for is work for the server on every request
// — a default User-Agent cost the trivial Go server 2 % more CPU a
// request — so one that wants it says -H 'User-Agent: ...'.
func (p *prepared) raw(closeConn bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", p.method, p.url.RequestURI(), p.url.Host)
	keys := make([]string, 0, len(p.header))
	for k := range p.header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range p.header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if len(p.body) > 0 || p.method == "POST" || p.method == "PUT" || p.method == "PATCH" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(p.body))
	}
	if closeConn {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	b.Write(p.body)
	return b.Bytes()
}

// body returns the request body and its multipart content type, if any.
func (t Target) body() ([]byte, string, error) {
	if len(t.Files) == 0 && len(t.Fields) == 0 {
		return t.Body, "", nil
	}
	if len(t.Body) > 0 {
		return nil, "", fmt.Errorf("load: target has both Body and Files/Fields; use one")
	}
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	keys := make([]string, 0, len(t.Fields))
	for k := range t.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := mw.WriteField(k, t.Fields[k]); err != nil {
			return nil, "", fmt.Errorf("load: field %q: %w", k, err)
		}
	}
	for _, f := range t.Files {
		if f.Field == "" {
			return nil, "", fmt.Errorf("load: upload file %q has no form field name", f.Path+f.Name)
		}
		data := f.Data
		if data == nil {
			if f.Path == "" {
				return nil, "", fmt.Errorf("load: upload field %q has neither Data nor Path", f.Field)
			}
			var err error
			data, err = os.ReadFile(f.Path)
			if err != nil {
				return nil, "", fmt.Errorf("load: upload file for field %q: %w", f.Field, err)
			}
		}
		name := f.Name
		if name == "" {
			name = filepath.Base(f.Path)
		}
		if name == "" || name == "." {
			name = f.Field
		}
		ct := f.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, name))
		h.Set("Content-Type", ct)
		pw, err := mw.CreatePart(h)
		if err != nil {
			return nil, "", fmt.Errorf("load: upload field %q: %w", f.Field, err)
		}
		if _, err := io.Copy(pw, bytes.NewReader(data)); err != nil {
			return nil, "", fmt.Errorf("load: upload field %q: %w", f.Field, err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", fmt.Errorf("load: multipart body: %w", err)
	}
	return b.Bytes(), mw.FormDataContentType(), nil
}

// checkLoopback refuses a host that is not loopback unless allowRemote.
// Names are resolved (bounded by a short timeout); every address must be
// loopback.
func checkLoopback(ctx context.Context, host string, allowRemote bool) error {
	if allowRemote {
		return nil
	}
	const hint = "load goes only to loopback (127.0.0.1, ::1, localhost); set AllowRemote (--allow-remote) to load another host"
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("load: target host %s is not loopback: %s", host, hint)
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(rctx, host)
	if err != nil {
		return fmt.Errorf("load: target host %q: %w (%s)", host, err, hint)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("load: target host %q resolves to %s, which is not loopback: %s", host, a.IP, hint)
		}
	}
	if len(addrs) == 0 {
		return fmt.Errorf("load: target host %q has no address", host)
	}
	return nil
}
