package cpython

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// Source 000's print recap, model and real in one bench.Run under closed
// VUs: six rows in the source's order, every request answered.
func TestExperiment000Print(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	res, err := bench.Run(context.Background(), Experiment000Print(200, 2, 700*time.Millisecond, nil, Options{StopGrace: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("\n%v", s)
	want := []string{DoPrint, RealPrefix + DoPrint, DoPrintAsync, RealPrefix + DoPrintAsync, DontPrint, RealPrefix + DontPrint}
	if got := s.Texts("strategy"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v; want %v", got, want)
	}
	for i, l := range want {
		if s.Float("count", i) < 2 || s.Float("errors", i) != 0 {
			t.Errorf("%s: count %v errors %v", l, s.Float("count", i), s.Float("errors", i))
		}
	}
}

func TestPrintModelBadInput(t *testing.T) {
	t.Parallel()
	if _, err := PrintMode000("/nope"); err == nil || !strings.Contains(err.Error(), "/doPrint") {
		t.Errorf("PrintMode000 of an unknown endpoint: %v; want an error listing the endpoints", err)
	}
	for _, p := range []PrintModel{{Endpoint: "/nope", Lines: 1}, {Endpoint: DoPrint}, {Endpoint: DoPrint, Lines: 2_000_000}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: Validate nil", p)
		}
		if _, err := p.Start(context.Background(), pymodel.Workload{}, strategy.StartOptions{}); err == nil {
			t.Errorf("%+v: Start nil", p)
		}
	}
}

// Source 000's upload, model and real in one bench.Run: every VU posts the
// same image file as a multipart upload (load.Target Files) and every
// strategy's handler answers it; with CONCLAB_MYSQL_DSN the real app
// inserts into MySQL and drops its table at the end.
func TestExperiment000Upload(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "PIL", "multipart", "pymysql", "aiomysql")
	ctx := context.Background()
	o := Options000Upload{Calibration: SourceMachine(0.2), ImageSize: ImageSize{320, 180}, VUs: 2, Duration: 600 * time.Millisecond, Think: -1,
		Python: Options{StopGrace: time.Second}}
	if dsn := os.Getenv("CONCLAB_MYSQL_DSN"); dsn != "" {
		o.DB = &DB{MySQLDSN: dsn}
	}
	e, err := Experiment000Upload(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Request.Files) != 1 || e.Request.Files[0].Field != "file" {
		t.Fatalf("request files %+v", e.Request.Files)
	}
	res, err := bench.Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("\n%v", s)
	if s.Len() != 8 {
		t.Fatalf("%d rows; want 8", s.Len())
	}
	for i := 0; i < s.Len(); i++ {
		if s.Float("count", i) < 1 || s.Float("errors", i) != 0 || s.Float("bytes_out", i) < 1000 {
			t.Errorf("%s: count %v errors %v bytes_out %v", s.Text("strategy", i), s.Float("count", i), s.Float("errors", i), s.Float("bytes_out", i))
		}
	}
	path, err := UploadImage(ctx, Options{}, ImageSize{320, 180})
	if err != nil || path != e.Request.Files[0].Path {
		t.Errorf("UploadImage again = %q, %v; want the cached %q", path, err, e.Request.Files[0].Path)
	}
}

// The source's machine on the model: one row per upload strategy, every
// request answered; bad settings refused.
func TestModel000(t *testing.T) {
	e, err := Model000(SourceMachine(0.2), 2, 500*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if got := strings.Join(s.Texts("strategy"), ","); got != strings.Join(Strategies000, ",") {
		t.Errorf("rows %s", got)
	}
	for i := 0; i < s.Len(); i++ {
		if s.Float("count", i) < 1 || s.Float("errors", i) != 0 {
			t.Errorf("%s: count %v errors %v", s.Text("strategy", i), s.Float("count", i), s.Float("errors", i))
		}
	}
	if _, err := Model000(SourceMachine(0), 0, time.Second, 0); err == nil {
		t.Error("zero VUs: no error")
	}
	if _, _, err := Model000Upload("sync", nil); err == nil {
		t.Error("nil calibration: no error")
	}
}
