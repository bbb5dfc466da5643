package workload_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

func TestGeneratedImageSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec         workload.ImageSpec
		min, max     int
		wantFormat   string
		wantW, wantH int
	}{
		{workload.SmallPNG(), 6_000, 8_000, "png", 800, 600},
		{workload.JPEG8K(), 1_250_000, 1_550_000, "jpeg", 7680, 4320},
	}
	for _, tc := range tests {
		t.Run(tc.spec.Name, func(t *testing.T) {
			t.Parallel()
			data, err := workload.LoadImage(context.Background(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) < tc.min || len(data) > tc.max {
				t.Errorf("%s is %d bytes; want %d..%d", tc.spec.Name, len(data), tc.min, tc.max)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.wantFormat || cfg.Width != tc.wantW || cfg.Height != tc.wantH {
				t.Errorf("decoded %s %dx%d; want %s %dx%d", format, cfg.Width, cfg.Height, tc.wantFormat, tc.wantW, tc.wantH)
			}
			again, err := workload.LoadImage(context.Background(), tc.spec)
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("second LoadImage differs (err %v)", err)
			}
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	a, err := workload.SmallPNG().Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := workload.SmallPNG().Generate()
	if !bytes.Equal(a, b) {
		t.Fatal("two Generate calls gave different bytes")
	}
	cached, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil || !bytes.Equal(a, cached) {
		t.Fatalf("cached image differs from Generate (err %v)", err)
	}
}

func TestImageSpecValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec workload.ImageSpec
		want string
	}{
		{workload.ImageSpec{Name: "a", Format: "png", Width: 0, Height: 10}, "size 0x10"},
		{workload.ImageSpec{Name: "a", Format: "png", Width: -5, Height: 10}, "size -5x10"},
		{workload.ImageSpec{Name: "a", Format: "png", Width: 10, Height: 100000}, "size 10x100000"},
		{workload.ImageSpec{Name: "a", Format: "gif", Width: 10, Height: 10}, `format "gif"`},
		{workload.ImageSpec{Name: "a", Format: "jpeg", Width: 10, Height: 10, Quality: 0}, "quality 0"},
	}
	for _, tc := range tests {
		if _, err := tc.spec.Generate(); err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("Generate(%+v) err = %v; want one containing %q", tc.spec, err, tc.want)
		}
		if _, err := workload.LoadImage(context.Background(), tc.spec); err == nil {
			t.Errorf("LoadImage(%+v) succeeded", tc.spec)
		}
	}
}

// TestImageCacheAcrossProcesses starts three processes that generate the
// same image into one empty cache dir at the same time.
func TestImageCacheAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	outs := make([][]byte, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperImageCache$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CONCLAB_CACHE_DIR="+dir, "WORKLOAD_HELPER=1")
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, outs[i])
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "images", "*"))
	if len(files) != 1 {
		t.Fatalf("cache holds %v; want exactly one file (no temp files left)", files)
	}
	got, _ := os.ReadFile(files[0])
	want, _ := workload.SmallPNG().Generate()
	if !bytes.Equal(got, want) {
		t.Fatalf("cached file (%d bytes) differs from Generate (%d bytes)", len(got), len(want))
	}
}

func TestHelperImageCache(t *testing.T) {
	if os.Getenv("WORKLOAD_HELPER") != "1" {
		t.Skip("helper process for TestImageCacheAcrossProcesses")
	}
	path, err := workload.ImageFile(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, os.Getenv("CONCLAB_CACHE_DIR")) {
		t.Fatalf("path %s is outside CONCLAB_CACHE_DIR", path)
	}
}

func TestConvertImageRoundTripsPNG(t *testing.T) {
	t.Parallel()
	in, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	out, format, tm, err := workload.ConvertImage(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if format != "png" {
		t.Errorf("format = %q; want png", format)
	}
	a, _ := png.Decode(bytes.NewReader(in))
	b, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	// Four 180° turns are the identity, and PNG is lossless.
	if !samePixels(a, b) {
		t.Error("output pixels differ from input after four 180° rotations")
	}
	if tm.Decode <= 0 || tm.Convert <= 0 || tm.Rotate <= 0 || tm.Encode <= 0 || tm.Parse != 0 || tm.Save != 0 {
		t.Errorf("timings %+v: want decode, convert, rotate, encode > 0 and parse, save = 0", tm)
	}
}

func TestConvertImageDropsAlpha(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.NRGBA{R: 10, G: 20, B: 30, A: 40}), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out, _, _, err := workload.ConvertImage(context.Background(), buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := png.Decode(bytes.NewReader(out))
	if !got.(interface{ Opaque() bool }).Opaque() {
		t.Error("converted image still has alpha < 255; want RGB (opaque)")
	}
}

func TestConvertImage8K(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("8K pipeline skipped in -short")
	}
	in, err := workload.LoadImage(context.Background(), workload.JPEG8K())
	if err != nil {
		t.Fatal(err)
	}
	out, format, tm, err := workload.ConvertImage(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	cfg, f, err := image.DecodeConfig(bytes.NewReader(out))
	if err != nil || format != "jpeg" || f != "jpeg" || cfg.Width != 7680 || cfg.Height != 4320 {
		t.Fatalf("output: %s/%s %dx%d err %v; want jpeg 7680x4320", format, f, cfg.Width, cfg.Height, err)
	}
	t.Logf("8K JPEG: %d -> %d bytes, %+v", len(in), len(out), tm)
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

// pngHeader is a valid PNG signature and IHDR chunk claiming w x h.
func pngHeader(w, h uint32) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(13))
	chunk := append([]byte("IHDR"), ihdr[:]...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestConvertImageBadInput(t *testing.T) {
	t.Parallel()
	small, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "does not decode (0 bytes"},
		{"text", []byte("hello, not an image"), `starting "hello, n"`},
		{"truncated png", small[:len(small)/2], "png image does not decode"},
		{"header only", pngHeader(100, 100), "png image does not decode"},
		{"too many pixels", pngHeader(20000, 20000), "20000x20000, want 1..100000000 pixels"},
		{"truncated jpeg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF"), "does not decode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, _, err := workload.ConvertImage(context.Background(), tc.data)
			if err == nil || !contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestConvertImageCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := workload.ConvertImage(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

// TestImagePipelineOverHTTP sends a real multipart upload to a real server
// whose handler runs the pipeline.
func TestImagePipelineOverHTTP(t *testing.T) {
	t.Parallel()
	p, err := workload.NewImagePipeline(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var results []workload.ImageResult
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := p.HandleUpload(r.Context(), r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		results = append(results, res)
		mu.Unlock()
		fmt.Fprint(w, res.Path)
	}))
	defer srv.Close()
	img, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	send := func(filename string, data []byte) (int, string) {
		req, err := workload.NewUploadRequest(context.Background(), srv.URL, filename, data)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	code, body := send("test_image_1.png", img)
	if code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	if filepath.Dir(body) != p.Dir() || !strings.HasPrefix(filepath.Base(body), "test_image_1-") || filepath.Ext(body) != ".png" {
		t.Errorf("saved to %s; want %s/test_image_1-*.png", body, p.Dir())
	}
	saved, err := os.ReadFile(body)
	if err != nil {
		t.Fatal(err)
	}
	if res := results[0]; res.BytesIn != len(img) || res.BytesOut != len(saved) || res.Timings.Parse <= 0 || res.Timings.Save <= 0 {
		t.Errorf("result %+v: want bytes_in %d, bytes_out %d, parse and save > 0", res, len(img), len(saved))
	}
	row := results[0].Row()
	for _, col := range []string{"parse_ms", "decode_ms", "convert_ms", "rotate_ms", "encode_ms", "save_ms", "total_ms", "bytes_in", "bytes_out"} {
		if _, ok := row[col]; !ok {
			t.Errorf("row lacks %s", col)
		}
	}
	if code, body := send("../../evil.png", []byte("not an image")); code != http.StatusBadRequest || !contains(body, "does not decode") {
		t.Errorf("bad image: %d %q; want 400 naming the decode failure", code, body)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
		t.Errorf("output dir still there after Close (stat err %v)", err)
	}
}

func TestParseUploadBadRequests(t *testing.T) {
	t.Parallel()
	body, ctype, err := workload.MultipartUpload("other", "a.png", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ctype, body, want string
	}{
		{"json", "application/json", `{}`, `want multipart/form-data with a "file" file, got Content-Type "application/json"`},
		{"no field", ctype, string(body), `no part named "file"`},
		{"broken", "multipart/form-data; boundary=xyz", "--xyz\r\ngarbage", "parse upload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/upload", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.ctype)
			_, err := workload.ParseUpload(context.Background(), r, "")
			if err == nil || !contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// BenchmarkImagePhases times each pipeline phase on each test image.
func BenchmarkImagePhases(b *testing.B) {
	for _, spec := range []workload.ImageSpec{workload.SmallPNG(), workload.JPEG8K()} {
		data, err := workload.LoadImage(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(spec.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var sum workload.ImageTimings
			n := 0
			for b.Loop() {
				_, _, tm, err := workload.ConvertImage(context.Background(), data)
				if err != nil {
					b.Fatal(err)
				}
				sum.Decode += tm.Decode
				sum.Convert += tm.Convert
				sum.Rotate += tm.Rotate
				sum.Encode += tm.Encode
				n++
			}
			per := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(n) }
			b.ReportMetric(per(sum.Decode), "decode-ms/op")
			b.ReportMetric(per(sum.Convert), "convert-ms/op")
			b.ReportMetric(per(sum.Rotate), "rotate-ms/op")
			b.ReportMetric(per(sum.Encode), "encode-ms/op")
		})
	}
}

// BenchmarkImagePipeline runs the whole pipeline, multipart parse and save
// included, on the 8K JPEG.
func BenchmarkImagePipeline(b *testing.B) {
	data, err := workload.LoadImage(context.Background(), workload.JPEG8K())
	if err != nil {
		b.Fatal(err)
	}
	p, err := workload.NewImagePipeline(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		req, err := workload.NewUploadRequest(context.Background(), "http://127.0.0.1/upload", "test_image_2.jpg", data)
		if err != nil {
			b.Fatal(err)
		}
		res, err := p.HandleUpload(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		os.Remove(res.Path)
	}
}

func ExampleConvertImage() {
	in, err := workload.LoadImage(context.Background(), workload.SmallPNG())
	if err != nil {
		fmt.Println(err)
		return
	}
	out, format, _, err := workload.ConvertImage(context.Background(), in)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, _, _ := image.DecodeConfig(bytes.NewReader(out))
	fmt.Println(format, cfg.Width, cfg.Height)
	_, _, _, err = workload.ConvertImage(context.Background(), []byte("GIF89a?"))
	fmt.Println(err != nil)
	// Output:
	// png 800 600
	// true
}

func ExampleLoadImage() {
	data, err := workload.LoadImage(context.Background(), workload.JPEG8K())
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, format, _ := image.DecodeConfig(bytes.NewReader(data))
	fmt.Println(format, cfg.Width, cfg.Height, len(data) > 1_300_000 && len(data) < 1_500_000)
	// Output: jpeg 7680 4320 true
}

func ExampleImagePipeline_HandleUpload() {
	p, err := workload.NewImagePipeline("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close() // removes p.Dir() and every saved file
	img, _ := workload.LoadImage(context.Background(), workload.SmallPNG())
	req, _ := workload.NewUploadRequest(context.Background(), "http://127.0.0.1/upload", "test_image_1.png", img)
	res, err := p.HandleUpload(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Filename, res.Format, filepath.Dir(res.Path) == p.Dir())
	// Output: test_image_1.png png true
}

func ExampleParseUpload() {
	body, ctype, _ := workload.MultipartUpload("file", "tiny.png", []byte("PNG bytes here"))
	r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
	r.Header.Set("Content-Type", ctype)
	up, err := workload.ParseUpload(context.Background(), r, "file")
	fmt.Println(up.Field, up.Filename, len(up.Data), err)
	// Output: file tiny.png 14 <nil>
}

func ExampleImageSpec_Generate() {
	data, err := workload.SmallPNG().Generate() // no cache; same bytes every time
	cfg, format, _ := image.DecodeConfig(bytes.NewReader(data))
	fmt.Println(format, cfg.Width, cfg.Height, err)
	// Output: png 800 600 <nil>
}

func TestImagePhaseFunctions(t *testing.T) {
	t.Parallel()
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 9)
	}
	rgb := workload.ToRGB(src)
	if !rgb.Opaque() {
		t.Error("ToRGB result not opaque")
	}
	if got := workload.RotateFour(rgb); !samePixels(got, rgb) || got == rgb {
		t.Error("RotateFour: want a new image equal to its input")
	}
	tests := []struct{ in, want string }{
		{"jpeg", "jpeg"}, {"png", "png"}, {"gif", "gif"}, {"bmp", "bmp"}, {"tiff", "tiff"}, {"webp", "png"}, {"", "png"},
	}
	for _, tc := range tests {
		out, format, err := workload.EncodeImage(rgb, tc.in, 0)
		if err != nil || format != tc.want {
			t.Errorf("EncodeImage(%q) format %q, err %v; want %q", tc.in, format, err, tc.want)
			continue
		}
		img, got, err := workload.DecodeImage(out)
		if err != nil || got != tc.want || img.Bounds() != rgb.Bounds() {
			t.Errorf("DecodeImage(EncodeImage(%q)) = %s %v, %v", tc.in, got, img.Bounds(), err)
		}
	}
}

func TestHelperImageCacheReadOnly(t *testing.T) {
	if os.Getenv("WORKLOAD_HELPER") != "ro" {
		t.Skip("helper process for TestImageCacheFallsBack")
	}
	path, err := workload.ImageFile(context.Background(), workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("PATH=" + path)
}

// TestImageCacheFallsBack: a cache dir that cannot be created (under a
// regular file) falls back to $TMPDIR/conclab-cache.
func TestImageCacheFallsBack(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	blocker := filepath.Join(tmp, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperImageCacheReadOnly$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "CONCLAB_CACHE_DIR="+filepath.Join(blocker, "cache"), "TMPDIR="+tmp, "WORKLOAD_HELPER=ro")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	want := "PATH=" + filepath.Join(tmp, "conclab-cache", "images")
	if !strings.Contains(string(out), want) {
		t.Fatalf("helper output lacks %q:\n%s", want, out)
	}
}
