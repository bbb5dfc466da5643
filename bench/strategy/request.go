package strategy

import (
	"context"
	"net/http"
	"strings"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/workload"
)

// requestContext reads the request body: a multipart upload's file part, or
// the raw body, attached to the context for steps that use it.
func (s *server) requestContext(r *http.Request) (context.Context, error) {
	ctx := pymodel.WithOutputDir(r.Context(), s.images.get)
	if isMultipart(r) {
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

// isMultipart says r's body is a multipart form (an upload).
func isMultipart(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data")
}
