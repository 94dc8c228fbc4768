// Package filterrowkind is SeaTunnel's FilterRowKind transform: it keeps the
// rows whose kind is in include_kinds, or drops those in exclude_kinds
// (exactly one of the two, non-empty). Kinds are INSERT, UPDATE_BEFORE,
// UPDATE_AFTER and DELETE (the short forms +I, -U, +U, -D are accepted too).
//
// A batch whose rows all stay is passed on as it is, one whose rows all go
// becomes nil, and only a mixed batch is copied (Batch.Take).
package filterrowkind

import (
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes FilterRowKind transforms.
var Factory = connectors.TransformFactory{
	Name: "FilterRowKind",
	Options: []config.Option{
		{Key: "include_kinds", Type: config.TypeStrings, Doc: "the row kinds to keep"},
		{Key: "exclude_kinds", Type: config.TypeStrings, Doc: "the row kinds to drop"},
	},
	Create: create,
}

type filter struct {
	schema *row.Schema
	keep   [4]bool // by row.Kind
}

var _ connectors.SchemaEvolver = (*filter)(nil)

// EvolvesWithSchema: the filter reads only the rows' kinds, so it passes
// a table's schema changes (connectors.SchemaEvolver).
func (f *filter) EvolvesWithSchema() {}

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	include, exclude := len(cfg.Strings("include_kinds")) > 0, len(cfg.Strings("exclude_kinds")) > 0
	switch {
	case include && exclude:
		return nil, cfg.Errorf("exclude_kinds", "include_kinds and exclude_kinds are mutually exclusive; set only one")
	case !include && !exclude:
		return nil, cfg.Errorf("include_kinds", "set one of include_kinds or exclude_kinds to a non-empty list of row kinds")
	}
	key := "include_kinds"
	if exclude {
		key = "exclude_kinds"
	}
	items := cfg.Raw(key).Items
	if items == nil {
		items = []*hocon.Value{cfg.Raw(key)}
	}
	f := &filter{schema: input}
	if exclude {
		f.keep = [4]bool{true, true, true, true}
	}
	for i, s := range cfg.Strings(key) {
		k, err := row.ParseKind(s)
		if err != nil {
			return nil, cfg.ErrorAt(items[i], key, "%v", err)
		}
		f.keep[k] = include
	}
	return f, nil
}

func (f *filter) OutputSchema() *row.Schema { return f.schema }

func (f *filter) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	if b.Kinds == nil { // every row an INSERT
		if f.keep[row.Insert] {
			return b, nil
		}
		return nil, nil
	}
	var idx []int
	for i, k := range b.Kinds {
		if f.keep[k] {
			idx = append(idx, i)
		}
	}
	switch len(idx) {
	case 0:
		return nil, nil
	case b.Len():
		return b, nil
	}
	return b.Take(idx), nil
}
