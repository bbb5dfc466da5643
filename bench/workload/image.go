package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/disintegration/imaging"
)

// Limits on image input. An upload or image past them is refused with an
// error before any large allocation.
const (
	DefaultUploadField   = "file"      // the source's `file: UploadFile = File(...)`
	MaxUploadBytes       = 64 << 20    // largest upload ParseUpload accepts
	MaxImagePixels       = 100_000_000 // largest decoded image (8K is 33 Mpx)
	MaxGeneratedSide     = 16384       // largest side Generate accepts
	DefaultJPEGQuality   = 75          // Pillow's default save quality
	imageGeneratorFormat = 1           // bump when Generate's output changes
)

// ImageSpec describes a deterministic generated test image. Generate makes
// the same bytes for the same spec on every machine and every run.
type ImageSpec struct {
	Name    string // file name, as the source's k6 script sends it
	Format  string // "jpeg" or "png"
	Width   int
	Height  int
	Quality int // JPEG quality 1–100; ignored for PNG
}

// JPEG8K is the source's big image (000: test_image_2.jpg, "1.4MB 8K"):
// 7680x4320, smooth colour fields, rings and fine noise, JPEG quality 75,
// about 1.42 MB.
func JPEG8K() ImageSpec {
	return ImageSpec{Name: "test_image_2.jpg", Format: "jpeg", Width: 7680, Height: 4320, Quality: DefaultJPEGQuality}
}

// SmallPNG is the source's small image (000: test_image_1.png, "7KB"):
// 800x600 stepped gradients, a disc and a diagonal pattern, about 7 KB.
func SmallPNG() ImageSpec {
	return ImageSpec{Name: "test_image_1.png", Format: "png", Width: 800, Height: 600}
}

func (s ImageSpec) validate() error {
	if s.Width <= 0 || s.Height <= 0 || s.Width > MaxGeneratedSide || s.Height > MaxGeneratedSide {
		return fmt.Errorf("workload: image %q: size %dx%d, want 1..%d on each side", s.Name, s.Width, s.Height, MaxGeneratedSide)
	}
	switch s.Format {
	case "jpeg":
		if s.Quality < 1 || s.Quality > 100 {
			return fmt.Errorf("workload: image %q: JPEG quality %d, want 1..100", s.Name, s.Quality)
		}
	case "png":
	default:
		return fmt.Errorf("workload: image %q: format %q, want \"jpeg\" or \"png\"", s.Name, s.Format)
	}
	return nil
}

// Generate draws and encodes the image; it does not use the cache. The 8K
// JPEG takes about 2 s of CPU; use LoadImage to pay that once per machine.
func (s ImageSpec) Generate() ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	var err error
	if s.Format == "jpeg" {
		err = jpeg.Encode(&buf, drawPhoto(s.Width, s.Height), &jpeg.Options{Quality: s.Quality})
	} else {
		err = png.Encode(&buf, drawShapes(s.Width, s.Height))
	}
	if err != nil {
		return nil, fmt.Errorf("workload: encode %s: %w", s.Name, err)
	}
	return buf.Bytes(), nil
}

// drawPhoto paints smooth colour fields, concentric rings (sharp edges) and
// ±2 levels of deterministic xorshift noise: content that JPEG compresses
// to about 0.34 bits per pixel at quality 75, like a real 8K photo of 1.4 MB.
func drawPhoto(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	s := uint64(88172645463325252)
	clamp := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, v))) }
	for y := 0; y < h; y++ {
		fy := float64(y) / float64(h)
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			fx := float64(x) / float64(w)
			s ^= s << 13
			s ^= s >> 7
			s ^= s << 17
			n := float64(int(s%5) - 2)
			r := 128 + 100*math.Sin(fx*9+fy*3)
			g := 128 + 100*math.Sin(fy*11-fx*2+1)
			b := 128 + 100*math.Cos((fx+fy)*7)
			dx, dy := fx-0.5, (fy-0.5)*float64(h)/float64(w)
			if int(math.Sqrt(dx*dx+dy*dy)*60)%2 == 0 {
				r = 255 - r
			}
			i := x * 4
			row[i], row[i+1], row[i+2], row[i+3] = clamp(r+n), clamp(g+n), clamp(b+n), 255
		}
	}
	return img
}

// drawShapes paints flat stepped gradients, a disc and a diagonal pattern:
// content PNG compresses to about 7 KB at 800x600.
func drawShapes(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	const step = 5
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := uint8((x / step) * step * 255 / w)
			g := uint8((y / step) * step * 255 / h)
			b := uint8(128)
			dx, dy := x-w/2, y-h/2
			if dx*dx+dy*dy < (h/3)*(h/3) {
				r, g, b = 240, 200, 40
			}
			if (x/16+y/16)%7 == 0 {
				b = 220
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = r, g, b, 255
		}
	}
	return img
}

// CacheDir is where generated files are kept: $CONCLAB_CACHE_DIR when set,
// else os.UserCacheDir()/conclab, else $TMPDIR/conclab-cache.
func CacheDir() string {
	if d := os.Getenv("CONCLAB_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "conclab")
	}
	return filepath.Join(os.TempDir(), "conclab-cache")
}

func (s ImageSpec) cacheName() string {
	ext := filepath.Ext(s.Name)
	base := strings.TrimSuffix(filepath.Base(s.Name), ext)
	if s.Format == "jpeg" {
		return fmt.Sprintf("%s-%dx%d-q%d-g%d%s", base, s.Width, s.Height, s.Quality, imageGeneratorFormat, ext)
	}
	return fmt.Sprintf("%s-%dx%d-g%d%s", base, s.Width, s.Height, imageGeneratorFormat, ext)
}

var (
	imageMu    sync.Mutex
	imageCache = map[string][]byte{}
)

// ImageFile returns the path of the spec's image in CacheDir()/images,
// generating it on first use. Safe for concurrent use, also across
// processes: the file is written to a temporary name and renamed into
// place, so a reader never sees a partial file (two processes racing on
// first use both generate, and one rename wins with identical bytes). When
// the cache dir cannot be written, $TMPDIR/conclab-cache/images is used.
func ImageFile(ctx context.Context, s ImageSpec) (string, error) {
	if err := s.validate(); err != nil {
		return "", err
	}
	dirs := []string{filepath.Join(CacheDir(), "images"), filepath.Join(os.TempDir(), "conclab-cache", "images")}
	imageMu.Lock()
	defer imageMu.Unlock()
	for _, dir := range dirs {
		path := filepath.Join(dir, s.cacheName())
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return path, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("workload: image %s: %w", s.Name, err)
	}
	data, err := s.Generate()
	if err != nil {
		return "", err
	}
	var errs []error
	for _, dir := range dirs {
		path := filepath.Join(dir, s.cacheName())
		if err := writeFileAtomic(dir, path, data); err != nil {
			errs = append(errs, err)
			continue
		}
		imageCache[path] = data
		return path, nil
	}
	return "", fmt.Errorf("workload: cache image %s: %w", s.Name, errors.Join(errs...))
}

// LoadImage returns the bytes of the spec's image, generated once per
// machine (see ImageFile) and kept in memory after the first call. The
// caller owns the returned slice. Safe for concurrent use.
func LoadImage(ctx context.Context, s ImageSpec) ([]byte, error) {
	path, err := ImageFile(ctx, s)
	if err != nil {
		return nil, err
	}
	imageMu.Lock()
	data, ok := imageCache[path]
	imageMu.Unlock()
	if !ok {
		data, err = os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("workload: read cached image: %w", err)
		}
		imageMu.Lock()
		imageCache[path] = data
		imageMu.Unlock()
	}
	return bytes.Clone(data), nil
}

func writeFileAtomic(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// MultipartUpload builds a multipart/form-data body holding data as a file
// part named field with the given filename, as k6's http.file or a browser
// form sends it. It returns the body and its Content-Type.
func MultipartUpload(field, filename string, data []byte) (body []byte, contentType string, err error) {
	if field == "" {
		field = DefaultUploadField
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": field, "filename": filename}))
	h.Set("Content-Type", "application/octet-stream")
	pw, err := mw.CreatePart(h)
	if err == nil {
		_, err = pw.Write(data)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("workload: build multipart upload: %w", err)
	}
	return buf.Bytes(), mw.FormDataContentType(), nil
}

// NewUploadRequest returns a POST to url carrying data as the multipart
// file field "file", ready for an http.Client.
func NewUploadRequest(ctx context.Context, url, filename string, data []byte) (*http.Request, error) {
	body, ctype, err := MultipartUpload(DefaultUploadField, filename, data)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("workload: upload request: %w", err)
	}
	req.Header.Set("Content-Type", ctype)
	return req, nil
}

// Upload is one file read from a multipart request.
type Upload struct {
	Field       string
	Filename    string
	ContentType string
	Data        []byte
}

// ParseUpload reads the multipart/form-data body of r and returns the file
// part named field ("" means DefaultUploadField) held in memory; nothing is
// written to disk. A body that is not multipart, has no such part, or is
// larger than MaxUploadBytes is an error.
func ParseUpload(ctx context.Context, r *http.Request, field string) (Upload, error) {
	if field == "" {
		field = DefaultUploadField
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return Upload{}, fmt.Errorf("workload: parse upload: want multipart/form-data with a %q file, got Content-Type %q: %w", field, r.Header.Get("Content-Type"), err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return Upload{}, fmt.Errorf("workload: parse upload: %w", err)
		}
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return Upload{}, fmt.Errorf("workload: parse upload: no part named %q in the form", field)
		}
		if err != nil {
			return Upload{}, fmt.Errorf("workload: parse upload: %w", err)
		}
		if part.FormName() != field {
			part.Close()
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, MaxUploadBytes+1))
		part.Close()
		if err != nil {
			return Upload{}, fmt.Errorf("workload: parse upload: read %q: %w", field, err)
		}
		if len(data) > MaxUploadBytes {
			return Upload{}, fmt.Errorf("workload: parse upload: %q is larger than %d bytes", field, MaxUploadBytes)
		}
		return Upload{Field: field, Filename: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data}, nil
	}
}

// ImageTimings are the wall-clock durations of the pipeline's phases.
// Phases a call did not run are zero.
type ImageTimings struct {
	Parse   time.Duration // multipart body read into memory
	Decode  time.Duration // bytes -> image
	Convert time.Duration // -> RGB (Pillow's image.convert("RGB"))
	Rotate  time.Duration // four 180° rotations
	Encode  time.Duration // image -> bytes, in the input's format
	Save    time.Duration // bytes written to the output file
}

// Total is the sum of the phases.
func (t ImageTimings) Total() time.Duration {
	return t.Parse + t.Decode + t.Convert + t.Rotate + t.Encode + t.Save
}

// Row returns the timings as a frame row: parse_ms, decode_ms, convert_ms,
// rotate_ms, encode_ms, save_ms, total_ms.
func (t ImageTimings) Row() frame.Row {
	return frame.Row{
		"parse_ms": ms(t.Parse), "decode_ms": ms(t.Decode), "convert_ms": ms(t.Convert),
		"rotate_ms": ms(t.Rotate), "encode_ms": ms(t.Encode), "save_ms": ms(t.Save),
		"total_ms": ms(t.Total()),
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ConvertImage is the pipeline's CPU part, bytes in and bytes out, so it
// can run anywhere — a thread, a loop, a worker process fed through a pipe:
// DecodeImage → ToRGB → RotateFour → EncodeImage in the input's format
// (JPEG at quality 75, as Pillow saves). It returns the encoded image, its
// format name ("jpeg", "png", "gif", "tiff", "bmp") and the phase timings
// (Parse and Save zero). Input that does not decode, or decodes to more
// than MaxImagePixels, is an error naming the problem. ctx is checked
// between phases; a phase in progress is not interrupted.
//
// Note: imaging spreads each operation over GOMAXPROCS goroutines; set
// GOMAXPROCS (or count CPU time) when a single Python thread is modelled.
// A runtime that gives phases different GIL behaviour calls the four
// phase functions itself.
func ConvertImage(ctx context.Context, data []byte) (out []byte, format string, t ImageTimings, err error) {
	phase := func(name string, d *time.Duration, f func() error) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("workload: image %s: %w", name, err)
		}
		start := time.Now()
		err := f()
		*d = time.Since(start)
		return err
	}
	var img image.Image
	var rgb *image.NRGBA
	err = phase("decode", &t.Decode, func() (err error) {
		img, format, err = DecodeImage(data)
		return err
	})
	if err == nil {
		err = phase("convert", &t.Convert, func() error { rgb = ToRGB(img); return nil })
	}
	if err == nil {
		err = phase("rotate", &t.Rotate, func() error { rgb = RotateFour(rgb); return nil })
	}
	if err == nil {
		err = phase("encode", &t.Encode, func() (err error) {
			out, format, err = EncodeImage(rgb, format, len(data))
			return err
		})
	}
	if err != nil {
		return nil, "", t, err
	}
	return out, format, t, nil
}

// DecodeImage decodes JPEG, PNG, GIF, BMP or TIFF bytes and returns the
// image and its format name. The header is checked first: an image of more
// than MaxImagePixels is refused before its pixels are allocated. Bytes
// that do not decode are an error quoting their length and first bytes.
func DecodeImage(data []byte) (image.Image, string, error) {
	cfg, name, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("workload: image does not decode (%d bytes, starting %q): %w", len(data), head(data), err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxImagePixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, "", fmt.Errorf("workload: %s image is %dx%d, want 1..%d pixels", name, cfg.Width, cfg.Height, MaxImagePixels)
	}
	img, err := imaging.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("workload: %s image does not decode (%d bytes): %w", name, len(data), err)
	}
	return img, name, nil
}

// ToRGB converts img to 8-bit RGB — a new NRGBA image with every alpha
// 255, as Pillow's convert("RGB") drops the alpha channel.
func ToRGB(img image.Image) *image.NRGBA {
	dst := imaging.Clone(img)
	for i := 3; i < len(dst.Pix); i += 4 {
		dst.Pix[i] = 0xff
	}
	return dst
}

// RotateFour rotates img by 180° four times with imaging.Rotate180, each
// turn a new image as Pillow's rotate(180) makes: the result equals img.
func RotateFour(img *image.NRGBA) *image.NRGBA {
	for range 4 {
		img = imaging.Rotate180(img)
	}
	return img
}

// EncodeImage encodes img in format ("jpeg" at DefaultJPEGQuality, "png",
// "gif", "tiff", "bmp"; anything else becomes "png") and returns the bytes
// and the format used. sizeHint preallocates the buffer (0 is fine).
func EncodeImage(img image.Image, format string, sizeHint int) ([]byte, string, error) {
	f, err := imaging.FormatFromExtension(format)
	if err != nil {
		f, format = imaging.PNG, "png"
	}
	var buf bytes.Buffer
	buf.Grow(max(sizeHint, 0))
	if err := imaging.Encode(&buf, img, f, imaging.JPEGQuality(DefaultJPEGQuality)); err != nil {
		return nil, format, fmt.Errorf("workload: encode %s: %w", format, err)
	}
	return buf.Bytes(), format, nil
}

func head(b []byte) string {
	if len(b) > 8 {
		b = b[:8]
	}
	return string(b)
}

// ImageResult is the outcome of one pipeline run.
type ImageResult struct {
	Filename string // as uploaded
	Path     string // where the output was saved
	Format   string
	BytesIn  int
	BytesOut int
	Timings  ImageTimings
}

// Row returns the result as a frame row: filename, format, bytes_in,
// bytes_out and the timing columns of ImageTimings.Row.
func (r ImageResult) Row() frame.Row {
	row := r.Timings.Row()
	row["filename"] = r.Filename
	row["format"] = r.Format
	row["bytes_in"] = r.BytesIn
	row["bytes_out"] = r.BytesOut
	return row
}

// ImagePipeline is the source's upload handler body: parse the multipart
// upload, convert the image (ConvertImage) and save the output in a
// directory the pipeline owns. The caller must call Close, which removes the
// directory and every file saved in it. Safe for concurrent use.
type ImagePipeline struct {
	dir       string
	closeOnce sync.Once
	closeErr  error
}

// NewImagePipeline creates the pipeline's output directory inside parent
// ("" means os.TempDir()).
func NewImagePipeline(parent string) (*ImagePipeline, error) {
	dir, err := os.MkdirTemp(parent, "conclab-images-*")
	if err != nil {
		return nil, fmt.Errorf("workload: image pipeline output dir: %w", err)
	}
	return &ImagePipeline{dir: dir}, nil
}

// Dir is the output directory; it is gone after Close.
func (p *ImagePipeline) Dir() string { return p.dir }

// HandleUpload runs the whole pipeline on an upload request: ParseUpload
// (field "file"), ConvertImage, Save. Timings cover every phase.
func (p *ImagePipeline) HandleUpload(ctx context.Context, r *http.Request) (ImageResult, error) {
	start := time.Now()
	up, err := ParseUpload(ctx, r, DefaultUploadField)
	parse := time.Since(start)
	if err != nil {
		return ImageResult{}, err
	}
	res, err := p.Process(ctx, up.Filename, up.Data)
	res.Timings.Parse = parse
	return res, err
}

// Process converts data (ConvertImage) and saves the output: the pipeline
// without the multipart parse.
func (p *ImagePipeline) Process(ctx context.Context, filename string, data []byte) (ImageResult, error) {
	res := ImageResult{Filename: filename, BytesIn: len(data)}
	out, format, t, err := ConvertImage(ctx, data)
	res.Format, res.Timings = format, t
	if err != nil {
		return res, err
	}
	start := time.Now()
	res.Path, err = p.Save(ctx, filename, format, out)
	res.Timings.Save = time.Since(start)
	res.BytesOut = len(out)
	return res, err
}

// Save writes data to a new file in Dir named after filename, with the
// extension of format, and returns its path.
func (p *ImagePipeline) Save(ctx context.Context, filename, format string, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("workload: save image: %w", err)
	}
	base := strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename))
	base = strings.Map(func(r rune) rune {
		if r == '*' || r == '/' || r == os.PathSeparator || r < ' ' {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." {
		base = "upload"
	}
	ext := "." + format
	if format == "jpeg" {
		ext = ".jpg"
	}
	f, err := os.CreateTemp(p.dir, base+"-*"+ext)
	if err != nil {
		return "", fmt.Errorf("workload: save image: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("workload: save image: %w", err)
	}
	return f.Name(), nil
}

// Close removes the output directory and everything saved in it. Safe to
// call twice.
func (p *ImagePipeline) Close() error {
	p.closeOnce.Do(func() {
		if err := os.RemoveAll(p.dir); err != nil {
			p.closeErr = fmt.Errorf("workload: remove image dir: %w", err)
		}
	})
	return p.closeErr
}
