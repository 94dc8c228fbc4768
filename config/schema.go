package config

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// SchemaOption declares SeaTunnel's `schema` option.
var SchemaOption = Option{Key: "schema", Type: TypeObject, Doc: "the table's schema: { fields { name = type, ... } } or { columns = [ ... ] }"}

// ParseSchema reads SeaTunnel's schema block:
//
//	schema = {
//	  table = "db.t"                     # optional
//	  fields { id = bigint, name = string, c_row = { a = int } }
//	  # or: columns = [ { name = id, type = bigint, nullable = false } ]
//	  primaryKey { name = pk, columnNames = [id] }   # optional
//	  constraintKeys = [                              # optional
//	    { constraintName = uk, constraintType = UNIQUE_KEY,
//	      constraintColumns = [ { columnName = name, sortType = ASC } ] }
//	  ]
//	}
//
// Mistakes are *Error values at the position of the offending key.
func ParseSchema(v *hocon.Value, defaultTable, where string) (*row.Schema, error) {
	errAt := func(p hocon.Pos, key, format string, args ...any) error {
		return &Error{Pos: p, Where: where, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if v == nil || v.Kind != hocon.Object {
		return nil, errAt(posOf(v), "schema", "expected an object { fields { ... } }")
	}
	table := defaultTable
	if t := v.Get("table"); t != nil {
		table = t.String()
	}
	var fields []row.Field
	if f := v.Get("fields"); f != nil {
		if f.Kind != hocon.Object {
			return nil, errAt(f.Pos, "schema.fields", "expected an object { name = type, ... }")
		}
		for _, fld := range f.Fields {
			t, err := fieldType(fld.Value, "schema.fields."+fld.Key, where)
			if err != nil {
				return nil, err
			}
			fields = append(fields, row.Field{Name: fld.Key, Type: t, Nullable: true})
		}
	} else if cols := v.Get("columns"); cols != nil {
		if cols.Kind != hocon.Array {
			return nil, errAt(cols.Pos, "schema.columns", "expected a list of { name = ..., type = ... }")
		}
		seen := map[string]bool{}
		for i, c := range cols.Items {
			key := fmt.Sprintf("schema.columns[%d]", i)
			if c.Kind != hocon.Object || c.Get("name") == nil || c.Get("type") == nil {
				return nil, errAt(c.Pos, key, "expected { name = ..., type = ... }")
			}
			// Caught here rather than by row.NewSchema, to point at the column.
			name := c.Get("name").String()
			if seen[name] {
				return nil, errAt(c.Pos, key, "field %q appears twice", name)
			}
			seen[name] = true
			t, err := fieldType(c.Get("type"), key+".type", where)
			if err != nil {
				return nil, err
			}
			f := row.Field{Name: name, Type: t, Nullable: true}
			if n := c.Get("nullable"); n != nil {
				f.Nullable, _ = n.Bool()
			}
			if cm := c.Get("comment"); cm != nil {
				f.Comment = cm.String()
			}
			fields = append(fields, f)
		}
	} else {
		return nil, errAt(v.Pos, "schema", "has neither fields { ... } nor columns [ ... ]")
	}
	s, err := row.NewSchema(table, fields...)
	if err != nil {
		return nil, errAt(v.Pos, "schema", "%v", err)
	}
	if pk := v.Get("primaryKey"); pk != nil {
		if cn := pk.Get("columnNames"); cn != nil {
			for _, it := range cn.Items {
				if s.Index(it.String()) < 0 {
					return nil, errAt(it.Pos, "schema.primaryKey", "column %q is not a field", it.String())
				}
				s.PrimaryKey = append(s.PrimaryKey, it.String())
			}
		}
	}
	if ck := v.Get("constraintKeys"); ck != nil && ck.Kind != hocon.Null {
		keys, err := constraintKeys(ck, s, errAt)
		if err != nil {
			return nil, err
		}
		s.ConstraintKeys = keys
	}
	return s, nil
}

// constraintTypes are SeaTunnel's ConstraintKey.ConstraintType values.
var constraintTypes = []string{"INDEX_KEY", "UNIQUE_KEY", "FOREIGN_KEY", "VECTOR_INDEX_KEY"}

// constraintKeys reads schema.constraintKeys as SeaTunnel's
// TableSchemaOptions.ConstraintKeyOptions: constraintName, constraintType
// and constraintColumns of { columnName, sortType (ASC by default) }.
// Enum values are case-insensitive, as SeaTunnel's enum options.
func constraintKeys(v *hocon.Value, s *row.Schema, errAt func(hocon.Pos, string, string, ...any) error) ([]row.ConstraintKey, error) {
	const key = "schema.constraintKeys"
	if v.Kind != hocon.Array {
		return nil, errAt(v.Pos, key, "expected a list of { constraintName = ..., constraintType = ..., constraintColumns = [...] }")
	}
	str := func(o *hocon.Value, k, at string) (*hocon.Value, error) {
		x := o.Get(k)
		if x == nil || x.Kind == hocon.Null || x.Kind == hocon.Object || x.Kind == hocon.Array {
			return nil, errAt(o.Pos, at+"."+k, "missing: expected a string")
		}
		return x, nil
	}
	enum := func(x *hocon.Value, at string, values ...string) (string, error) {
		for _, e := range values {
			if strings.EqualFold(e, strings.TrimSpace(x.String())) {
				return e, nil
			}
		}
		return "", errAt(x.Pos, at, "expected one of %s, got %q", strings.Join(values, ", "), x.String())
	}
	var keys []row.ConstraintKey
	for i, it := range v.Items {
		at := fmt.Sprintf("%s[%d]", key, i)
		if it.Kind != hocon.Object {
			return nil, errAt(it.Pos, at, "expected { constraintName = ..., constraintType = ..., constraintColumns = [...] }")
		}
		name, err := str(it, "constraintName", at)
		if err != nil {
			return nil, err
		}
		tv, err := str(it, "constraintType", at)
		if err != nil {
			return nil, err
		}
		typ, err := enum(tv, at+".constraintType", constraintTypes...)
		if err != nil {
			return nil, err
		}
		k := row.ConstraintKey{Name: name.String(), Type: typ}
		cols := it.Get("constraintColumns")
		if cols == nil || cols.Kind != hocon.Array {
			return nil, errAt(it.Pos, at+".constraintColumns", "missing: expected a list of { columnName = ..., sortType = ASC }")
		}
		for j, c := range cols.Items {
			cat := fmt.Sprintf("%s.constraintColumns[%d]", at, j)
			if c.Kind != hocon.Object {
				return nil, errAt(c.Pos, cat, "expected { columnName = ..., sortType = ASC }")
			}
			cn, err := str(c, "columnName", cat)
			if err != nil {
				return nil, err
			}
			if s.Index(cn.String()) < 0 {
				return nil, errAt(cn.Pos, cat+".columnName", "column %q is not a field", cn.String())
			}
			sort := "ASC"
			if st := c.Get("sortType"); st != nil && st.Kind != hocon.Null {
				if sort, err = enum(st, cat+".sortType", "ASC", "DESC"); err != nil {
					return nil, err
				}
			}
			k.Columns = append(k.Columns, row.ConstraintColumn{Name: cn.String(), Sort: sort})
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func fieldType(v *hocon.Value, key, where string) (*row.Type, error) {
	if v.Kind == hocon.Object {
		var fields []row.Field
		for _, f := range v.Fields {
			t, err := fieldType(f.Value, key+"."+f.Key, where)
			if err != nil {
				return nil, err
			}
			fields = append(fields, row.Field{Name: f.Key, Type: t, Nullable: true})
		}
		return row.RowOf(fields...), nil
	}
	if v.Kind == hocon.Array {
		return nil, &Error{Pos: v.Pos, Where: where, Key: key, Msg: "expected a type name such as int or decimal(10, 2)"}
	}
	t, err := row.ParseType(v.String())
	if err != nil {
		return nil, &Error{Pos: v.Pos, Where: where, Key: key, Msg: err.Error()}
	}
	return t, nil
}

func posOf(v *hocon.Value) hocon.Pos {
	if v == nil {
		return hocon.Pos{}
	}
	return v.Pos
}
