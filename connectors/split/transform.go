// Package split is SeaTunnel's Split transform: it splits split_field's
// text by separator into the string fields output_fields.
//
// SplitTransform calls Java's String.split(separator, n) with n the number
// of output fields, and this package does the same: separator is a regular
// expression (Go's RE2 syntax; one Go cannot compile is a plan-time error),
// there are at most n parts and the last one keeps the rest of the text,
// separators included; missing parts are null, and a null field gives
// nulls. A field that is not a string is split as Java prints it (12.5,
// 2024-01-31, ...).
//
// As in SeaTunnel's MultipleFieldOutputTransform, an output field that
// names an existing field replaces it in place (as a string); the others are
// added after the input fields. Unchanged columns are shared with the input
// batch.
package split

import (
	"regexp"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes Split transforms.
var Factory = connectors.TransformFactory{
	Name: "Split",
	Options: []config.Option{
		{Key: "separator", Type: config.TypeString, Required: true, Doc: "regular expression between the parts"},
		{Key: "split_field", Type: config.TypeString, Required: true, Doc: "the field to split"},
		{Key: "output_fields", Type: config.TypeStrings, Required: true, Doc: "the fields that get the parts, in order"},
	},
	Create: create,
}

type splitter struct {
	schema *row.Schema
	field  int            // input column to split
	sep    *regexp.Regexp // separator
	n      int            // number of parts
	slot   []int          // output column of each part
}

var _ connectors.Transform = (*splitter)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	name := cfg.String("split_field")
	j := input.Index(name)
	if j < 0 {
		return nil, cfg.Errorf("split_field", "field %q is not in table %s (fields: %s)", name, input.TableID, strings.Join(input.Names(), ", "))
	}
	switch t := input.Fields[j].Type; t.ID {
	case row.TypeBytes, row.TypeArray, row.TypeMap, row.TypeRow, row.TypeNull:
		return nil, cfg.Errorf("split_field", "field %q is %s; Split works on strings and other scalar fields", name, t)
	}
	sep, err := regexp.Compile(cfg.String("separator"))
	if err != nil {
		return nil, cfg.Errorf("separator", "not a regular expression Go can compile: %v", err)
	}
	outs := cfg.Strings("output_fields")
	if len(outs) == 0 {
		return nil, cfg.Errorf("output_fields", "names no field")
	}
	items := cfg.Raw("output_fields").Items
	if items == nil {
		items = []*hocon.Value{cfg.Raw("output_fields")}
	}
	fields := append([]row.Field(nil), input.Fields...)
	slot := make([]int, len(outs))
	for k, o := range outs {
		if o == "" {
			return nil, cfg.ErrorAt(items[k], "output_fields", "a field needs a name")
		}
		at := -1
		for i, f := range fields {
			if f.Name == o {
				at = i
				break
			}
		}
		if at < 0 {
			fields = append(fields, row.Field{Name: o, Type: row.String, Nullable: true})
			at = len(fields) - 1
		} else {
			fields[at].Type = row.String
		}
		slot[k] = at
	}
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, cfg.Errorf("output_fields", "%v", err)
	}
	schema.PrimaryKey = input.PrimaryKey
	schema.ConstraintKeys = input.ConstraintKeys
	return &splitter{schema: schema, field: j, sep: sep, n: len(outs), slot: slot}, nil
}

func (s *splitter) OutputSchema() *row.Schema { return s.schema }

func (s *splitter) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	n := b.Len()
	parts := make([]*row.Column, s.n)
	for k := range parts {
		parts[k] = row.NewColumn(row.String, n)
	}
	in := b.Cols[s.field]
	var buf []string
	for i := 0; i < n; i++ {
		if in.IsNull(i) {
			for _, c := range parts {
				c.AppendNull()
			}
			continue
		}
		var str string
		if in.Type.Storage() == row.StoreString {
			str = in.Str(i)
		} else {
			str = row.Text(in.Type, in.Value(i))
		}
		buf = javaSplit(buf[:0], s.sep, str, s.n)
		for k, c := range parts {
			if k < len(buf) {
				c.AppendString(buf[k])
			} else {
				c.AppendNull()
			}
		}
	}
	cols := make([]*row.Column, len(s.schema.Fields))
	copy(cols, b.Cols)
	for k, at := range s.slot { // a later part wins a repeated name, as in SeaTunnel
		cols[at] = parts[k]
	}
	return b.WithColumns(s.schema, cols), nil
}
