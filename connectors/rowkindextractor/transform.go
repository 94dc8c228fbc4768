// Package rowkindextractor is SeaTunnel's RowKindExtractor transform: it
// turns a change stream into an append-only one. Every output row is an
// INSERT, and a new string field, custom_field_name (row_kind by default),
// holds the row's original kind: +I, -U, +U, -D with transform_type SHORT
// (the default), INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE with FULL.
//
// The field is added after the input fields, not nullable, as
// RowKindExtractorTransform declares it; a name already in the table is a
// plan-time error. The input's columns are shared, and the kind column's
// strings are the shared constants, so a batch costs one []string.
package rowkindextractor

import (
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes RowKindExtractor transforms.
var Factory = connectors.TransformFactory{
	Name: "RowKindExtractor",
	Options: []config.Option{
		{Key: "custom_field_name", Type: config.TypeString, Default: "row_kind", Doc: "name of the added field"},
		{Key: "transform_type", Type: config.TypeEnum, Enum: []string{"SHORT", "FULL"}, Default: "SHORT", Doc: "SHORT (+I, -U, +U, -D) or FULL (INSERT, UPDATE_BEFORE, ...)"},
	},
	Create: create,
}

type extractor struct {
	schema *row.Schema
	names  [4]string // by row.Kind
}

var _ connectors.Transform = (*extractor)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	name := cfg.String("custom_field_name")
	if name == "" {
		return nil, cfg.Errorf("custom_field_name", "the added field needs a name")
	}
	if input.Index(name) >= 0 {
		return nil, cfg.Errorf("custom_field_name", "field %q is already in table %s (fields: %s)", name, input.TableID, strings.Join(input.Names(), ", "))
	}
	fields := append(append([]row.Field(nil), input.Fields...),
		row.Field{Name: name, Type: row.String, Comment: "Output column of RowKind"})
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, cfg.Errorf("custom_field_name", "%v", err)
	}
	schema.PrimaryKey = input.PrimaryKey
	schema.ConstraintKeys = input.ConstraintKeys
	e := &extractor{schema: schema}
	for k := range e.names {
		if cfg.String("transform_type") == "FULL" {
			e.names[k] = row.Kind(k).String()
		} else {
			e.names[k] = row.Kind(k).Short()
		}
	}
	return e, nil
}

func (e *extractor) OutputSchema() *row.Schema { return e.schema }

func (e *extractor) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	kinds := make([]string, b.Len())
	if b.Kinds == nil {
		for i := range kinds {
			kinds[i] = e.names[row.Insert]
		}
	} else {
		for i, k := range b.Kinds {
			kinds[i] = e.names[k]
		}
	}
	cols := append(append(make([]*row.Column, 0, len(b.Cols)+1), b.Cols...), &row.Column{Type: row.String, Strs: kinds})
	return &row.Batch{Schema: e.schema, Cols: cols, N: b.Len()}, nil
}
