// Package copy is SeaTunnel's Copy transform: fields { dest = src, ... }
// (or the older src_field / dest_field pair) adds each dest as a copy of
// its src field, with src's type, nullability and comment, after the input
// fields in the order written.
//
// As in SeaTunnel's MultipleFieldOutputTransform, a dest that names an
// existing field does not add a field: that field, in its place, takes
// src's values and type. Batches are immutable, so a copy shares the src
// column vector instead of cloning values (CopyFieldTransform deep-copies
// because Java rows are mutable): a batch costs O(fields).
package copy

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes Copy transforms.
var Factory = connectors.TransformFactory{
	Name: "Copy",
	Options: []config.Option{
		{Key: "fields", Type: config.TypeObject, Doc: "dest_field = src_field, ..."},
		{Key: "src_field", Type: config.TypeString, Doc: "deprecated: the field to copy (with dest_field)"},
		{Key: "dest_field", Type: config.TypeString, Doc: "deprecated: the new field (with src_field)"},
	},
	Create: create,
}

type copier struct {
	schema *row.Schema
	// source is, for each output column, the input column it is.
	source []int
}

var _ connectors.Transform = (*copier)(nil)

// pair is one dest = src, with where each was written, for errors.
type pair struct {
	dest, src string
	key       string       // the option, for errors
	srcAt     *hocon.Value // src's value
	destAt    *hocon.Value // dest's value (dest_field), or nil when dest is a key of fields
	destKey   hocon.Pos    // dest's key in fields
}

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	pairs, err := readPairs(cfg)
	if err != nil {
		return nil, err
	}
	fields := append([]row.Field(nil), input.Fields...)
	source := make([]int, len(fields))
	for j := range source {
		source[j] = j
	}
	for _, p := range pairs {
		src := input.Index(p.src)
		if src < 0 {
			return nil, cfg.ErrorAt(p.srcAt, p.key, "field %q is not in table %s (fields: %s)", p.src, input.TableID, strings.Join(input.Names(), ", "))
		}
		if p.dest == "" {
			return nil, p.errorAtDest(cfg, "the new field needs a name")
		}
		f := input.Fields[src]
		if at := indexOf(fields, p.dest); at >= 0 { // overwrite in place
			fields[at].Type = f.Type
			source[at] = src
			continue
		}
		f.Name = p.dest
		fields = append(fields, f)
		source = append(source, src)
	}
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, cfg.Errorf("fields", "%v", err)
	}
	schema.PrimaryKey = input.PrimaryKey
	schema.ConstraintKeys = input.ConstraintKeys
	return &copier{schema: schema, source: source}, nil
}

// readPairs reads fields { dest = src } or, when it is not set (as
// CopyTransformConfig does), src_field and dest_field.
func readPairs(cfg *config.PluginConfig) ([]pair, error) {
	if cfg.Has("fields") {
		obj := cfg.Raw("fields")
		if len(obj.Fields) == 0 {
			return nil, cfg.Errorf("fields", "copies no field; write fields { new_field = src_field }")
		}
		var pairs []pair
		for _, f := range obj.Fields {
			if f.Value.Kind == hocon.Object || f.Value.Kind == hocon.Array || f.Value.Kind == hocon.Null {
				return nil, cfg.ErrorAt(f.Value, "fields."+f.Key, "expected the name of the field to copy")
			}
			pairs = append(pairs, pair{dest: f.Key, src: f.Value.String(), key: "fields." + f.Key, srcAt: f.Value, destKey: f.KeyPos})
		}
		return pairs, nil
	}
	src, dest := cfg.Has("src_field"), cfg.Has("dest_field")
	switch {
	case src && dest:
		return []pair{{dest: cfg.String("dest_field"), src: cfg.String("src_field"), key: "src_field",
			srcAt: cfg.Raw("src_field"), destAt: cfg.Raw("dest_field")}}, nil
	case src:
		return nil, cfg.Errorf("src_field", "src_field needs dest_field")
	case dest:
		return nil, cfg.Errorf("dest_field", "dest_field needs src_field")
	}
	return nil, cfg.Errorf("fields", "set fields { new_field = src_field } (or src_field and dest_field)")
}

func (p pair) errorAtDest(cfg *config.PluginConfig, format string, args ...any) error {
	if p.destAt != nil {
		return cfg.ErrorAt(p.destAt, "dest_field", format, args...)
	}
	return &config.Error{Pos: p.destKey, Where: cfg.Where, Key: p.key, Msg: fmt.Sprintf(format, args...)}
}

func indexOf(fields []row.Field, name string) int {
	for j, f := range fields {
		if f.Name == name {
			return j
		}
	}
	return -1
}

func (c *copier) OutputSchema() *row.Schema { return c.schema }

func (c *copier) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	cols := make([]*row.Column, len(c.source))
	for k, j := range c.source {
		cols[k] = b.Cols[j]
	}
	return b.WithColumns(c.schema, cols), nil
}
