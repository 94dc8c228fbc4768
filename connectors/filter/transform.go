// Package filter is SeaTunnel's Filter transform: it keeps the fields named
// by include_fields (in that list's order, as FilterFieldTransform does) or
// drops the fields named by exclude_fields (keeping the input's order).
//
// Filter never touches values: each output batch shares the input's column
// vectors, so a batch costs O(fields), whatever its row count (DESIGN §4).
// The table keeps its primary key when every key column survives.
package filter

import (
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes Filter transforms.
var Factory = connectors.TransformFactory{
	Name: "Filter",
	Options: []config.Option{
		// "fields" is SeaTunnel's fallback key (the option's older name).
		{Key: "include_fields", Type: config.TypeStrings, Fallbacks: []string{"fields"}, Doc: "the fields to keep, in output order"},
		{Key: "exclude_fields", Type: config.TypeStrings, Doc: "the fields to drop"},
	},
	Create: create,
}

type filter struct {
	schema *row.Schema
	index  []int // input column of each output column
}

var _ connectors.Transform = (*filter)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	include, exclude := cfg.Has("include_fields"), cfg.Has("exclude_fields")
	switch {
	case include && exclude:
		return nil, cfg.Errorf("exclude_fields", "include_fields and exclude_fields are mutually exclusive; set only one")
	case !include && !exclude:
		return nil, cfg.Errorf("include_fields", "set one of include_fields or exclude_fields")
	}
	key := "include_fields"
	if exclude {
		key = "exclude_fields"
	}
	names, items := cfg.Strings(key), cfg.Raw(key).Items
	if items == nil { // a single string is a list of one
		items = []*hocon.Value{cfg.Raw(key)}
	}
	listed := make(map[string]bool, len(names))
	for i, n := range names {
		if input.Index(n) < 0 {
			return nil, cfg.ErrorAt(items[i], key, "field %q is not in table %s (fields: %s)", n, input.TableID, strings.Join(input.Names(), ", "))
		}
		if include && listed[n] {
			return nil, cfg.ErrorAt(items[i], key, "field %q is listed twice", n)
		}
		listed[n] = true
	}

	var index []int
	if include {
		for _, n := range names {
			index = append(index, input.Index(n))
		}
	} else {
		for j, f := range input.Fields {
			if !listed[f.Name] {
				index = append(index, j)
			}
		}
	}
	fields := make([]row.Field, len(index))
	for k, j := range index {
		fields[k] = input.Fields[j]
	}
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, cfg.Errorf(key, "%v", err)
	}
	schema.PrimaryKey = keptKey(input.PrimaryKey, schema)
	schema.ConstraintKeys = input.KeptConstraintKeys(schema)
	return &filter{schema: schema, index: index}, nil
}

// keptKey is the primary key when all its columns are still there.
func keptKey(pk []string, out *row.Schema) []string {
	for _, k := range pk {
		if out.Index(k) < 0 {
			return nil
		}
	}
	return pk
}

func (f *filter) OutputSchema() *row.Schema { return f.schema }

func (f *filter) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	cols := make([]*row.Column, len(f.index))
	for k, j := range f.index {
		cols[k] = b.Cols[j]
	}
	return b.WithColumns(f.schema, cols), nil
}
