package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/workload"
)

// KindImage is the image upload step: decode, convert to RGB, rotate 180°
// four times, encode (bench/workload's ConvertImage, with imaging), and
// save the result to the server's temp dir (made on first use, removed by
// Close; file names are reused after 32 per process, so disk use stays
// bounded). It processes the request's uploaded file, or the generated test
// image its Arg names ("jpeg8k", the source's 1.4 MB 8K JPEG, or "png", the
// 7 KB PNG) when the request has none. It is CPU work that releases the
// GIL, as Pillow's C code does; clear ReleasesGIL to hold it. It can go to a
// process pool: the image bytes go through the pipe, the worker saves the
// result in the same dir, and the result comes back.
const KindImage = "image"

func init() {
	pymodel.RegisterKind(KindImage, pymodel.KindFuncs{
		Run:     runImage,
		Payload: imagePoolPayload,
		Parse: func(v string) (pymodel.Step, error) {
			if _, err := imageSpec(v); err != nil {
				return pymodel.Step{}, err
			}
			return Image(v), nil
		},
	})
}

// Image is an image-processing step on the named test image ("jpeg8k" or
// "png"; "" means "jpeg8k") unless the request uploads one.
func Image(name string) pymodel.Step {
	if name == "" {
		name = "jpeg8k"
	}
	return pymodel.Step{Kind: KindImage, Arg: name, ReleasesGIL: true}
}

func imageSpec(name string) (workload.ImageSpec, error) {
	switch strings.ToLower(name) {
	case "", "jpeg8k", "jpeg", "8k":
		return workload.JPEG8K(), nil
	case "png", "small":
		return workload.SmallPNG(), nil
	}
	return workload.ImageSpec{}, fmt.Errorf("unknown test image %q (want jpeg8k or png)", name)
}

// imageInput is the upload, or the step's generated test image.
func imageInput(ctx context.Context, s pymodel.Step) ([]byte, error) {
	if b := pymodel.Upload(ctx); len(b) > 0 {
		return b, nil
	}
	spec, err := imageSpec(s.Arg)
	if err != nil {
		return nil, err
	}
	return workload.LoadImage(ctx, spec)
}

// imagePoolPayload is what a process-pool worker is sent: the output dir
// and the image.
func imagePoolPayload(ctx context.Context, s pymodel.Step) ([]byte, error) {
	img, err := imageInput(ctx, s)
	if err != nil {
		return nil, err
	}
	dir, err := imageDir(ctx)
	if err != nil {
		return nil, err
	}
	return imagePayload(dir, img), nil
}

func runImage(ctx context.Context, s pymodel.Step, payload []byte) ([]byte, error) {
	var dir string
	var err error
	if payload == nil { // in the requesting process
		if payload, err = imageInput(ctx, s); err != nil {
			return nil, err
		}
		if dir, err = imageDir(ctx); err != nil {
			return nil, err
		}
	} else { // in a pool worker
		dir, payload = splitImagePayload(payload)
	}
	out, format, _, err := workload.ConvertImage(ctx, payload)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if err := saveImage(dir, format, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DBInsert is an I/O step inserting one row per request into db (opened by
// the caller with workload.OpenDB, and closed by it after the server). The
// row's value is prefix plus a per-step sequence number in arrival order at
// the step, so db.Rows shows whether requests overlapped (source 004). It
// runs in this process only.
func DBInsert(db *workload.DB, prefix string) pymodel.Step {
	var seq atomic.Int64
	return pymodel.Custom("db insert", true, func(ctx context.Context) error {
		if db == nil {
			return errors.New("strategy: DBInsert: nil *workload.DB")
		}
		return db.Insert(ctx, prefix+strconv.FormatInt(seq.Add(1), 10))
	})
}

// DBInsertField is an I/O step inserting the request's own value into db:
// field of the JSON object the request posts (source 004's clients post
// {"email": "A@A", "password": ...}), or the whole body, trimmed, when
// field is "". The rows then land in the order the requests reached the
// insert, with the values the client sent, so comparing them with the
// order sent shows whether requests overlapped. A request without the
// value fails. It runs in this process only.
func DBInsertField(db *workload.DB, field string) pymodel.Step {
	return pymodel.Custom("db insert "+field, true, func(ctx context.Context) error {
		if db == nil {
			return errors.New("strategy: DBInsertField: nil *workload.DB")
		}
		v, err := bodyValue(pymodel.Upload(ctx), field)
		if err != nil {
			return fmt.Errorf("db insert: %w", err)
		}
		return db.Insert(ctx, v)
	})
}

// bodyValue is field of a JSON object body, or the trimmed body for "".
func bodyValue(body []byte, field string) (string, error) {
	if field == "" {
		v := strings.TrimSpace(string(body))
		if v == "" {
			return "", errors.New("the request has no body to insert")
		}
		return v, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return "", fmt.Errorf("want a JSON object body with field %q: %w", field, err)
	}
	raw, ok := obj[field]
	if !ok {
		return "", fmt.Errorf("the JSON body has no field %q", field)
	}
	switch v := raw.(type) {
	case string:
		return v, nil
	case float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("field %q is not a string, number or boolean", field)
}

// Print is a step printing lines lines through p (workload.NewPrinter:
// "sync" is a write(2) per line that blocks while the sink is full, "async"
// a queue put, "none" nothing). A sync printer is an I/O wait (the thread
// sits in write, GIL released). It runs in this process only.
func Print(p *workload.Printer, lines int, line string) pymodel.Step {
	io := p == nil || p.Mode() == "sync"
	return pymodel.Custom("print", io, func(ctx context.Context) error {
		if p == nil {
			return errors.New("strategy: Print: nil *workload.Printer")
		}
		if lines <= 0 {
			return fmt.Errorf("strategy: Print: lines must be positive, got %d", lines)
		}
		for i := 0; i < lines; i++ {
			if err := p.Println(ctx, line); err != nil {
				return err
			}
		}
		return nil
	})
}

// Downstream is an I/O step calling a downstream service: f.Calls calls to
// f.URL, sequentially, through a pool of f.Workers, or all at once (f.Mode),
// as source 002's client does. Failed calls fail the step. It runs in this
// process only.
func Downstream(f workload.FanOut) pymodel.Step {
	return pymodel.Custom("downstream", true, func(ctx context.Context) error {
		res, err := f.Run(ctx)
		if err != nil {
			return err
		}
		if res.Errors > 0 {
			return fmt.Errorf("downstream: %d of %d calls failed", res.Errors, f.Calls)
		}
		return nil
	})
}

// requestContext reads the request body: a multipart upload's file part, or
// the raw body, attached to the context for steps that use it.
func (s *server) requestContext(r *http.Request) (context.Context, error) {
	ctx := withImageOut(r.Context(), s.images)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		up, err := workload.ParseUpload(ctx, r, "")
		if err != nil {
			return ctx, err
		}
		return pymodel.WithUpload(ctx, up.Data), nil
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return ctx, nil
	}
	b, err := readAll(r)
	if err != nil {
		return ctx, err
	}
	if len(b) > 0 {
		ctx = pymodel.WithUpload(ctx, b)
	}
	return ctx, nil
}
