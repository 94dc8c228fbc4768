// Package fieldmapper is SeaTunnel's FieldMapper transform: field_mapper
// { old = new, ... } keeps only the listed fields, in the mapping's order,
// renamed; each keeps its type, nullability and comment
// (FieldMapperTransform.transformTableSchema).
//
// Output batches share the input's column vectors, so a batch costs
// O(fields), whatever its row count (DESIGN §4). The primary key is kept
// when every key column name is among the output names, as SeaTunnel
// checks it.
package fieldmapper

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes FieldMapper transforms.
var Factory = connectors.TransformFactory{
	Name: "FieldMapper",
	Options: []config.Option{
		{Key: "field_mapper", Type: config.TypeObject, Required: true, Doc: "input field = output field, in output order"},
	},
	Create: create,
}

type mapper struct {
	schema *row.Schema
	index  []int // input column of each output column
}

var _ connectors.Transform = (*mapper)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	const key = "field_mapper"
	m := cfg.Raw(key)
	if len(m.Fields) == 0 {
		return nil, cfg.Errorf(key, "maps no field; write field_mapper { input_field = output_field }")
	}
	var (
		index  []int
		fields []row.Field
		taken  = map[string]bool{}
	)
	for _, f := range m.Fields {
		j := input.Index(f.Key)
		if j < 0 {
			return nil, &config.Error{Pos: f.KeyPos, Where: cfg.Where, Key: key,
				Msg: fmt.Sprintf("field %q is not in table %s (fields: %s)", f.Key, input.TableID, strings.Join(input.Names(), ", "))}
		}
		if f.Value.Kind == hocon.Object || f.Value.Kind == hocon.Array || f.Value.Kind == hocon.Null || f.Value.String() == "" {
			return nil, cfg.ErrorAt(f.Value, key+"."+f.Key, "expected the output field's name")
		}
		name := f.Value.String()
		if taken[name] {
			return nil, cfg.ErrorAt(f.Value, key+"."+f.Key, "output field %q is mapped twice", name)
		}
		taken[name] = true
		out := input.Fields[j]
		out.Name = name
		index = append(index, j)
		fields = append(fields, out)
	}
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, cfg.Errorf(key, "%v", err)
	}
	schema.PrimaryKey = keptKey(input.PrimaryKey, schema)
	schema.ConstraintKeys = mappedKeys(input, schema, index)
	return &mapper{schema: schema, index: index}, nil
}

// mappedKeys are the input's constraint keys over the output's names, as
// SeaTunnel's FieldMapperTransform maps them: each key column becomes the
// output fields it is mapped to, and a key none of whose columns is mapped
// is dropped.
func mappedKeys(input, out *row.Schema, index []int) []row.ConstraintKey {
	var keys []row.ConstraintKey
	for _, k := range input.ConstraintKeys {
		var cols []row.ConstraintColumn
		for _, c := range k.Columns {
			for o, j := range index {
				if input.Fields[j].Name == c.Name {
					cols = append(cols, row.ConstraintColumn{Name: out.Fields[o].Name, Sort: c.Sort})
				}
			}
		}
		if len(cols) > 0 {
			keys = append(keys, row.ConstraintKey{Name: k.Name, Type: k.Type, Columns: cols})
		}
	}
	return keys
}

// keptKey is the primary key when all its column names are output names.
func keptKey(pk []string, out *row.Schema) []string {
	for _, k := range pk {
		if out.Index(k) < 0 {
			return nil
		}
	}
	return pk
}

func (m *mapper) OutputSchema() *row.Schema { return m.schema }

func (m *mapper) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	cols := make([]*row.Column, len(m.index))
	for k, j := range m.index {
		cols[k] = b.Cols[j]
	}
	return b.WithColumns(m.schema, cols), nil
}
