// Package jsonpath is SeaTunnel's JsonPath transform: each entry of columns
// reads src_field as a JSON document, selects a value with a Jayway
// JsonPath (path), converts it to dest_type (string by default) and writes
// it to dest_field.
//
// The JsonPath language is implemented here (path.go, eval.go, filter.go,
// function.go) after Jayway's: $.a.b, $['k'], [0], [-1], [0,2], [1:3], *,
// .., [?(@.x > 1 && @.y =~ /a.*/i)] filters, and length(), size(), keys(),
// min(), max(), avg(), sum(), stddev(), first(), last(), index(n). A
// definite path that reaches nothing is an error; any other path gives the
// JSON list of what it reached. A path that does not compile is a plan-time
// error at the path.
//
// src_field may be a string or bytes holding JSON text, or an array, map or
// row value (a row reads as the JSON array of its fields, so "$[0]" is its
// first field). A null source gives nulls. Values are converted as
// SeaTunnel's JsonToRowConverters does (convert.go).
//
// Errors (text that is not JSON, a path that reaches nothing, a value that
// does not convert) follow column_error_handle_way, then
// row_error_handle_way: a column's SKIP writes null, SKIP_ROW drops the row,
// FAIL fails; with neither set on the column, the row's SKIP drops the row
// and its FAIL (the default) fails the job.
//
// Where this differs from SeaTunnel: JSON text is read as strict JSON plus
// single-quoted strings (json-smart's permissive mode accepts more, such as
// unquoted words); filter regular expressions are Go's RE2; an empty source
// string is a data error (Jayway throws an IllegalArgumentException that no
// error handling catches); dates and times inside array or row sources read
// as ISO text; a decimal too wide for dest_type is a conversion error.
//
// As in SeaTunnel's MultipleFieldOutputTransform, a dest_field that names an
// existing field replaces it in place (with dest_type); other dest fields
// are added after the input fields. Unchanged columns are shared with the
// input batch; each source is parsed once per row however many columns
// read it.
package jsonpath

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes JsonPath transforms.
var Factory = connectors.TransformFactory{
	Name: "JsonPath",
	Options: []config.Option{
		{Key: "columns", Type: config.TypeList, Required: true, Doc: "[{ src_field, path, dest_field, dest_type = string, column_error_handle_way }]"},
		{Key: "row_error_handle_way", Type: config.TypeEnum, Enum: []string{"FAIL", "SKIP"}, Default: "FAIL", Doc: "FAIL the job or SKIP the row on a data error"},
	},
	Create: create,
}

type transform struct {
	schema  *row.Schema
	cols    []*column
	slots   []int       // output field of each slot
	types   []*row.Type // type of each slot
	sources []int       // the distinct src fields
	rowSkip bool
}

var _ connectors.Transform = (*transform)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	cols, err := readColumns(cfg, input)
	if err != nil {
		return nil, err
	}
	t := &transform{cols: cols, rowSkip: cfg.String("row_error_handle_way") == "SKIP"}
	fields := append([]row.Field(nil), input.Fields...)
	slotOf := map[int]int{} // output field -> slot
	docOf := map[int]int{}  // src field -> index in sources
	for _, c := range cols {
		at := -1
		for i, f := range fields {
			if f.Name == c.dest {
				at = i
				break
			}
		}
		if at < 0 {
			fields = append(fields, row.Field{Name: c.dest, Type: c.typ, Nullable: true})
			at = len(fields) - 1
		} else {
			fields[at].Type = c.typ // a later column wins a repeated dest
		}
		slot, ok := slotOf[at]
		if !ok {
			slot = len(t.slots)
			slotOf[at] = slot
			t.slots = append(t.slots, at)
			t.types = append(t.types, nil)
		}
		t.types[slot] = c.typ
		c.slot = slot
		d, ok := docOf[c.src]
		if !ok {
			d = len(t.sources)
			docOf[c.src] = d
			t.sources = append(t.sources, c.src)
		}
		c.doc = d
	}
	if t.schema, err = row.NewSchema(input.TableID, fields...); err != nil {
		return nil, cfg.Errorf("columns", "%v", err)
	}
	t.schema.PrimaryKey = input.PrimaryKey
	t.schema.ConstraintKeys = input.ConstraintKeys
	return t, nil
}

func (t *transform) OutputSchema() *row.Schema { return t.schema }

// document is a source's parsed value for the current row.
type document struct {
	done bool
	null bool
	v    any
	err  error
}

func (t *transform) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	n := b.Len()
	out := make([]*row.Column, len(t.slots))
	for s, typ := range t.types {
		out[s] = row.NewColumn(typ, n)
	}
	docs := make([]document, len(t.sources))
	vals := make([]any, len(t.slots))
	var kept []int // nil while every row stays
rows:
	for i := 0; i < n; i++ {
		clear(docs)
		clear(vals)
		for _, c := range t.cols {
			v, err := t.value(b, i, c, &docs[c.doc])
			if err == nil {
				vals[c.slot] = v
				continue
			}
			switch {
			case c.way == waySkip:
				vals[c.slot] = nil
				continue
			case c.way == waySkipRow || (c.way == wayUnset && t.rowSkip):
				if kept == nil {
					kept = make([]int, i, n)
					for k := range kept {
						kept[k] = k
					}
				}
				continue rows
			}
			return nil, fmt.Errorf("JsonPath: row %d, column %s (path %s on field %s): %w",
				i, c.dest, c.path.src, b.Schema.Fields[c.src].Name, err)
		}
		for s, v := range vals {
			appendValue(out[s], v)
		}
		if kept != nil {
			kept = append(kept, i)
		}
	}
	in := b
	if kept != nil {
		if len(kept) == 0 {
			return nil, nil
		}
		in = b.Take(kept)
	}
	cols := make([]*row.Column, len(t.schema.Fields))
	copy(cols, in.Cols)
	for s, at := range t.slots {
		cols[at] = out[s]
	}
	return in.WithColumns(t.schema, cols), nil
}

// value reads column c of row i.
func (t *transform) value(b *row.Batch, i int, c *column, d *document) (any, error) {
	if !d.done {
		d.done = true
		src := b.Cols[c.src]
		switch {
		case src.IsNull(i):
			d.null = true
		case src.Type.Storage() == row.StoreString: // the common case, without boxing the string
			d.v, d.err = parseJSON(src.Str(i))
		default:
			d.v, d.err = sourceJSON(c.srcType, src.Value(i))
		}
	}
	if d.null {
		return nil, nil
	}
	if d.err != nil {
		return nil, d.err
	}
	v, err := c.path.read(d.v, d.v)
	if err != nil {
		return nil, err
	}
	return convert(c.typ, v)
}

// appendValue appends a value convert produced: the boxed form of the
// column's type, or nil.
func appendValue(col *row.Column, v any) {
	if v == nil {
		col.AppendNull()
		return
	}
	switch col.Type.Storage() {
	case row.StoreInt:
		switch x := v.(type) {
		case int64:
			col.AppendInt(x)
		case time.Duration: // time
			col.AppendInt(int64(x))
		case time.Time: // date
			col.AppendInt(row.DateOf(x))
		}
	case row.StoreTimestamp:
		col.AppendTimestamp(row.TimestampOf(v.(time.Time)))
	case row.StoreTimestampTZ:
		col.AppendTimestampTZ(row.TimestampTZOf(v.(time.Time)))
	case row.StoreFloat:
		col.AppendFloat(v.(float64))
	case row.StoreString:
		col.AppendString(v.(string))
	case row.StoreBool:
		col.AppendBool(v.(bool))
	case row.StoreBytes:
		col.AppendBytes(v.([]byte))
	case row.StoreDecimal:
		col.AppendDecimal(v.(decimal.Decimal))
	case row.StoreAny:
		col.AppendAny(v)
	default:
		col.AppendNull()
	}
}
