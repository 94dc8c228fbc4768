package literal

import (
	"strings"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// ParseType reads a type as SeaTunnel's schema options accept it: a type
// string (int, decimal(30, 8), map<string, array<int>>, and also a nested
// row written inline as in "map<string, {c_int = int, c_string = string}>"),
// or an object { name = type, ... } for a row.
func ParseType(v *hocon.Value) (*row.Type, error) {
	switch v.Kind {
	case hocon.Object:
		fields := make([]row.Field, 0, len(v.Fields))
		for _, f := range v.Fields {
			t, err := ParseType(f.Value)
			if err != nil {
				return nil, wrap(err, "field %s", f.Key)
			}
			fields = append(fields, row.Field{Name: f.Key, Type: t, Nullable: true})
		}
		return row.RowOf(fields...), nil
	case hocon.Array, hocon.Null:
		return nil, errAt(v, "expected a type name such as int or decimal(10, 2)")
	}
	t, err := row.ParseType(InlineRows(v.Text))
	if err != nil {
		return nil, errAt(v, "%v", err)
	}
	return t, nil
}

// InlineRows rewrites SeaTunnel's inline row syntax inside a type string,
// {a = int, b = string}, as row<a: int, b: string>, which row.ParseType
// reads. Other strings are returned unchanged.
func InlineRows(s string) string {
	if !strings.ContainsRune(s, '{') {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, c := range s {
		switch {
		case c == '{':
			depth++
			b.WriteString("row<")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(">")
		case c == '=' && depth > 0:
			b.WriteString(":")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// InlineSchema returns schema (SeaTunnel's schema block) with every type
// string under fields { } and columns [ ] passed through InlineRows, so
// config.ParseSchema can read the inline row syntax. schema itself is not
// modified: the changed parts are copies.
func InlineSchema(schema *hocon.Value) *hocon.Value {
	if schema == nil || schema.Kind != hocon.Object {
		return schema
	}
	out := *schema
	out.Fields = make([]*hocon.Field, len(schema.Fields))
	for i, f := range schema.Fields {
		nf := *f
		switch f.Key {
		case "fields":
			nf.Value = inlineTypes(f.Value)
		case "columns":
			if f.Value.Kind == hocon.Array {
				cols := *f.Value
				cols.Items = make([]*hocon.Value, len(f.Value.Items))
				for j, c := range f.Value.Items {
					cols.Items[j] = c
					if c.Kind == hocon.Object && c.Get("type") != nil {
						cc := *c
						cc.Fields = make([]*hocon.Field, len(c.Fields))
						for k, cf := range c.Fields {
							ncf := *cf
							if cf.Key == "type" {
								ncf.Value = inlineTypes(cf.Value)
							}
							cc.Fields[k] = &ncf
						}
						cols.Items[j] = &cc
					}
				}
				nf.Value = &cols
			}
		}
		out.Fields[i] = &nf
	}
	return &out
}

func inlineTypes(v *hocon.Value) *hocon.Value {
	switch v.Kind {
	case hocon.String:
		if s := InlineRows(v.Text); s != v.Text {
			c := *v
			c.Text = s
			return &c
		}
	case hocon.Object:
		c := *v
		c.Fields = make([]*hocon.Field, len(v.Fields))
		for i, f := range v.Fields {
			nf := *f
			nf.Value = inlineTypes(f.Value)
			c.Fields[i] = &nf
		}
		return &c
	}
	return v
}
