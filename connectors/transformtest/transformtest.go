// Package transformtest helps the transforms' tests: it builds a transform
// from the body of its job-file block, validated as a job file's would be,
// reads batches back as rows, and gives a batch in the form it has after
// a cross-node channel (Packed).
package transformtest

import (
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// New creates f's transform over input from body, the options of one
// transform block (`include_fields = [a, b]`). A body that does not parse
// fails t; an option the factory refuses, or a transform it cannot create,
// is the returned error, as a job file would report it.
func New(t testing.TB, f connectors.TransformFactory, body string, input *row.Schema) (connectors.Transform, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "t.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("t.conf", "transform "+f.Name, f.Name, root.Pos, root, f.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, err
	}
	return f.Create(cfg, input)
}

// Rows is b's rows, each led by its kind's short name ("+I", "-D" ...);
// nil for a nil batch.
func Rows(b *row.Batch) [][]any {
	if b == nil {
		return nil
	}
	var out [][]any
	for i := 0; i < b.Len(); i++ {
		out = append(out, append([]any{b.Kind(i).Short()}, b.Row(i)...))
	}
	return out
}

// Packed is b as the row codec decodes it, as a batch from another node
// arrives: its string columns packed (row/packed.go). A transform that
// reads strings must give the same rows for it as for b.
func Packed(t testing.TB, b *row.Batch) *row.Batch {
	t.Helper()
	p, _, err := row.NewDecoder().Decode(row.AppendBatch(nil, b))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return p
}
