package workload_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

func TestFrameColumnOrder(t *testing.T) {
	t.Parallel()
	img := workload.ImageFrame("uploads", []workload.ImageResult{
		{Filename: "a.png", Format: "png", BytesIn: 10, BytesOut: 12, Timings: workload.ImageTimings{Decode: time.Millisecond}},
		{Filename: "b.jpg", Format: "jpeg", BytesIn: 20, BytesOut: 22},
	})
	pr := workload.PrintFrame("print", []workload.PrintStats{{Mode: "sync", Lines: 3, Writes: 3}, {Mode: "none", Lines: 3}})
	tests := []struct {
		name    string
		got     []string
		want    string
		wantLen int
	}{
		{"image", img.Columns(), "filename,format,bytes_in,bytes_out,parse_ms,decode_ms,convert_ms,rotate_ms,encode_ms,save_ms,total_ms", 2},
		{"print", pr.Columns(), "mode,count,writes,bytes_out,dropped,write_ms,max_write_ms", 2},
	}
	for _, tc := range tests {
		if got := strings.Join(tc.got, ","); got != tc.want {
			t.Errorf("%s columns = %s; want %s", tc.name, got, tc.want)
		}
	}
	if img.Len() != 2 || img.Float("decode_ms", 0) != 1 || img.Text("format", 1) != "jpeg" {
		t.Errorf("image frame:\n%s", img)
	}
	if pr.Float("writes", 0) != 3 || pr.Float("writes", 1) != 0 {
		t.Errorf("print frame:\n%s", pr)
	}
}

func ExampleDB_Rows() {
	ctx := context.Background()
	db, err := workload.OpenDB(ctx, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	for _, e := range workload.Emails(3) {
		db.Insert(ctx, e)
	}
	rows, _ := db.Rows(ctx)
	fmt.Println(strings.Join(rows.Columns(), " "))
	only, _ := rows.Select("seq", "value")
	fmt.Print(only)
	// Output:
	// seq value t_ms id
	// inserts (sqlite)
	// seq  value
	//   1  A@A
	//   2  B@B
	//   3  C@C
}

func ExamplePrintFrame() {
	sink, _ := workload.DevNullSink()
	defer sink.Close()
	var stats []workload.PrintStats
	for _, mode := range []string{workload.PrintSync, workload.PrintNone} {
		p, _ := workload.NewPrinter(mode, sink, 0)
		for range 5 {
			p.Println(context.Background(), "GET /doPrint")
		}
		p.Close()
		stats = append(stats, p.Stats())
	}
	f, _ := workload.PrintFrame("print per request", stats).Select("mode", "count", "writes", "bytes_out")
	fmt.Print(f)
	// Output:
	// print per request
	// mode  count  writes  bytes_out
	// sync      5       5         65
	// none      5       0          0
}

func ExampleImageFrame() {
	img, _ := workload.LoadImage(context.Background(), workload.SmallPNG())
	p, _ := workload.NewImagePipeline("")
	defer p.Close()
	var results []workload.ImageResult
	for range 2 {
		res, err := p.Process(context.Background(), "test_image_1.png", img)
		if err != nil {
			fmt.Println(err)
			return
		}
		results = append(results, res)
	}
	f := workload.ImageFrame("uploads", results)
	fmt.Println(f.Len(), f.Columns()[:4], f.Float("bytes_in", 1))
	// Output: 2 [filename format bytes_in bytes_out] 7068
}
