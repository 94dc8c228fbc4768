package literal

import (
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
	t, err := row.ParseType(v.Text)
	if err != nil {
		return nil, errAt(v, "%v", err)
	}
	return t, nil
}
