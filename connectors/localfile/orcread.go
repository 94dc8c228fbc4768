package localfile

import (
	"fmt"
	"os"
	"time"

	"github.com/stactor/stactor/connectors/localfile/orc"
	"github.com/stactor/stactor/row"
)

// openORC opens an ORC file.
func openORC(path string) (*os.File, *orc.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	f, err := orc.Open(fh, st.Size())
	if err != nil {
		fh.Close()
		// SeaTunnel's OrcReadStrategy.checkFileType words it so
		return nil, nil, fmt.Errorf("this file [%s] is not a orc file, please check the format of this file: %w", path, err)
	}
	return fh, f, nil
}

// orcSchemaOf is the row fields of an ORC file as SeaTunnel's
// OrcReadStrategy gives them (getSeaTunnelRowTypeInfoWithUserConfigRowType):
// the file's columns, or read_columns in their order, each of the file's
// type unless the schema option's field at the same position is a type
// the file's converts to (TypeUtil.canConvert: anything to string, a
// narrower integer to a wider one, float to double, timestamp to time).
func orcSchemaOf(path string, readColumns []string, user []row.Field) ([]row.Field, error) {
	fh, f, err := openORC(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	s := f.Schema()
	names := readColumns
	if len(names) == 0 {
		names = s.FieldNames
	}
	out := make([]row.Field, len(names))
	for i, name := range names {
		k := indexOf(s.FieldNames, name)
		if k < 0 {
			return nil, fmt.Errorf("column [%s] does not exist in the schema of %s [%v]", name, path, s.FieldNames)
		}
		var cfg *row.Type
		if i < len(user) {
			cfg = user[i].Type
		}
		t, err := orcRowType(s.Children[k], cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: column %s: %w", path, name, err)
		}
		out[i] = row.Field{Name: name, Type: t, Nullable: true}
	}
	return out, nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// canConvert is SeaTunnel's TypeUtil.canConvert.
func canConvert(from, to *row.Type) bool {
	if from.Equal(to) || to.ID == row.TypeString {
		return true
	}
	switch from.ID {
	case row.TypeTinyInt:
		return to.ID == row.TypeSmallInt || to.ID == row.TypeInt || to.ID == row.TypeBigInt
	case row.TypeSmallInt:
		return to.ID == row.TypeInt || to.ID == row.TypeBigInt
	case row.TypeInt:
		return to.ID == row.TypeBigInt
	case row.TypeFloat:
		return to.ID == row.TypeDouble
	}
	return false
}

// orcRowType is OrcReadStrategy.orcDataType2SeaTunnelDataType: the row
// type of an ORC type, or cfg (the schema option's type, nil if none)
// where the file's converts to it.
func orcRowType(t *orc.Type, cfg *row.Type) (*row.Type, error) {
	final := func(file *row.Type) *row.Type {
		if cfg != nil && canConvert(file, cfg) {
			return cfg
		}
		return file
	}
	switch t.Kind {
	case orc.KindBoolean:
		return final(row.Boolean), nil
	case orc.KindByte:
		return final(row.TinyInt), nil
	case orc.KindShort:
		return final(row.SmallInt), nil
	case orc.KindInt:
		return final(row.Int), nil
	case orc.KindLong:
		return final(row.BigInt), nil
	case orc.KindFloat:
		return final(row.Float), nil
	case orc.KindDouble:
		return final(row.Double), nil
	case orc.KindBinary:
		return final(row.Bytes), nil
	case orc.KindString, orc.KindVarchar, orc.KindChar:
		return final(row.String), nil
	case orc.KindDate:
		return final(row.Date), nil
	case orc.KindTimestamp, orc.KindTimestampInstant:
		// An instant reads as its wall clock in UTC: SeaTunnel's
		// readTimestampVal makes every ORC timestamp a LocalDateTime.
		if cfg != nil && cfg.ID == row.TypeTime {
			return row.Time, nil
		}
		return final(row.Timestamp), nil
	case orc.KindDecimal:
		return final(row.DecimalOf(t.Precision, t.Scale)), nil
	case orc.KindList:
		var elemCfg *row.Type
		if cfg != nil && cfg.ID == row.TypeArray {
			elemCfg = cfg.Elem
		}
		e, err := orcRowType(t.Children[0], elemCfg)
		if err != nil {
			return nil, err
		}
		switch e.ID {
		case row.TypeString, row.TypeBoolean, row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt, row.TypeFloat, row.TypeDouble:
			return row.ArrayOf(e), nil
		}
		return nil, fmt.Errorf("SeaTunnel array type not supported this genericType [%s] yet", e)
	case orc.KindMap:
		var kc, vc *row.Type
		if cfg != nil && cfg.ID == row.TypeMap {
			kc, vc = cfg.Key, cfg.Elem
		}
		k, err := orcRowType(t.Children[0], kc)
		if err != nil {
			return nil, err
		}
		v, err := orcRowType(t.Children[1], vc)
		if err != nil {
			return nil, err
		}
		return row.MapOf(k, v), nil
	case orc.KindStruct:
		fields := make([]row.Field, len(t.Children))
		for i, c := range t.Children {
			var fc *row.Type
			if cfg != nil && cfg.ID == row.TypeRow && i < len(cfg.Fields) {
				fc = cfg.Fields[i].Type
			}
			ft, err := orcRowType(c, fc)
			if err != nil {
				return nil, err
			}
			fields[i] = row.Field{Name: t.FieldNames[i], Type: ft, Nullable: true}
		}
		return row.RowOf(fields...), nil
	}
	return nil, fmt.Errorf("SeaTunnel file connector not supported this orc type [%s] yet", t.Kind)
}

// orcIn reads the rows of one ORC file from a row index on.
type orcIn struct {
	path string
	fh   *os.File
	rows *orc.Rows
	sc   *sourceConfig
	// types caches the row type of each of the file's ORC types
	types map[*orc.Type]*row.Type
}

// openORCIn opens path at row index at; want are the output data fields,
// found by name among the file's columns.
func openORCIn(sc *sourceConfig, path string, want []row.Field, at int64) (*orcIn, error) {
	fh, f, err := openORC(path)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(want))
	for i, w := range want {
		if cols[i] = indexOf(f.Schema().FieldNames, w.Name); cols[i] < 0 {
			fh.Close()
			return nil, fmt.Errorf("%s: has no column %q", path, w.Name)
		}
	}
	rows, err := f.Rows(cols)
	if err == nil {
		err = rows.Skip(at)
	}
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &orcIn{path: path, fh: fh, rows: rows, sc: sc, types: map[*orc.Type]*row.Type{}}, nil
}

func (o *orcIn) close() error { return o.fh.Close() }

// read appends up to n rows to cols (the output data columns).
func (o *orcIn) read(cols []*row.Column, n int) (int, bool, error) {
	vs, k, err := o.rows.Next(n)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", o.path, err)
	}
	for j, v := range vs {
		c := cols[j]
		for i := 0; i < k; i++ {
			if err := o.appendValue(c, v, i); err != nil {
				return 0, false, fmt.Errorf("%s: column %s: %w", o.path, o.sc.dataFields()[j].Name, err)
			}
		}
	}
	return k, k == 0, nil
}

// appendValue appends row i of v to c, converting to c's type.
func (o *orcIn) appendValue(c *row.Column, v *orc.Vector, i int) error {
	if v.Nulls[i] {
		c.AppendNull()
		return nil
	}
	k := v.Type.Kind
	switch c.Type.ID {
	case row.TypeBoolean:
		if k == orc.KindBoolean {
			c.AppendBool(v.Ints[i] == 1)
			return nil
		}
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		if k >= orc.KindByte && k <= orc.KindLong {
			c.AppendInt(v.Ints[i])
			return nil
		}
	case row.TypeFloat, row.TypeDouble:
		if k == orc.KindFloat || k == orc.KindDouble {
			c.AppendFloat(v.Floats[i])
			return nil
		}
	case row.TypeString:
		if k == orc.KindString || k == orc.KindVarchar || k == orc.KindChar || k == orc.KindBinary {
			c.AppendString(o.sc.decodeText(v.Bytes[i]))
			return nil
		}
	case row.TypeDate:
		if k == orc.KindDate {
			if err := row.CheckDate(v.Ints[i]); err != nil {
				return err
			}
			c.AppendInt(v.Ints[i])
			return nil
		}
	case row.TypeTimestamp:
		if k == orc.KindTimestamp || k == orc.KindTimestampInstant {
			if err := row.CheckTimestamp(v.Secs[i]); err != nil {
				return err
			}
			c.AppendTimestamp(v.Secs[i], v.Nanos[i])
			return nil
		}
	}
	x, err := o.boxed(c.Type, v, i)
	if err != nil {
		return err
	}
	return c.AppendValue(x)
}

// boxed is row i of v as a boxed value (row.Value) of type t.
func (o *orcIn) boxed(t *row.Type, v *orc.Vector, i int) (any, error) {
	if v.Nulls[i] {
		return nil, nil
	}
	file, ok := o.types[v.Type]
	if !ok {
		var err error
		if file, err = orcRowType(v.Type, nil); err != nil {
			return nil, err
		}
		o.types[v.Type] = file
	}
	var x any
	switch v.Type.Kind {
	case orc.KindBoolean:
		x = v.Ints[i] == 1
	case orc.KindByte, orc.KindShort, orc.KindInt, orc.KindLong:
		x = v.Ints[i]
	case orc.KindFloat, orc.KindDouble:
		x = v.Floats[i]
	case orc.KindString, orc.KindVarchar, orc.KindChar:
		x = o.sc.decodeText(v.Bytes[i])
	case orc.KindBinary:
		x = append([]byte(nil), v.Bytes[i]...)
	case orc.KindDecimal:
		x = v.Decimals[i]
	case orc.KindDate:
		if err := row.CheckDate(v.Ints[i]); err != nil {
			return nil, err
		}
		x = time.Unix(v.Ints[i]*86400, 0).UTC()
	case orc.KindTimestamp, orc.KindTimestampInstant:
		if err := row.CheckTimestamp(v.Secs[i]); err != nil {
			return nil, err
		}
		if t.ID == row.TypeTime {
			// OrcReadStrategy: the time of day of the timestamp
			return time.Duration(row.FloorMod(v.Secs[i], 86400)*int64(time.Second) + int64(v.Nanos[i])), nil
		}
		x = row.TimestampTime(v.Secs[i], v.Nanos[i])
	case orc.KindList, orc.KindMap:
		elemT, keyT := t.Elem, t.Key
		if t.ID != row.TypeArray && t.ID != row.TypeMap {
			elemT, keyT = file.Elem, file.Key
		}
		var keys, vals []any
		for k := v.Offsets[i]; k < v.Offsets[i+1]; k++ {
			if v.Type.Kind == orc.KindMap {
				kx, err := o.boxed(keyT, v.Children[0], k)
				if err != nil {
					return nil, err
				}
				keys = append(keys, kx)
			}
			ex, err := o.boxed(elemT, v.Children[len(v.Children)-1], k)
			if err != nil {
				return nil, err
			}
			vals = append(vals, ex)
		}
		if v.Type.Kind == orc.KindMap {
			x = &row.MapValue{Keys: keys, Values: vals}
		} else {
			if vals == nil {
				vals = []any{}
			}
			x = vals
		}
	case orc.KindStruct:
		fields := make([]any, len(v.Children))
		for k, c := range v.Children {
			ft := file.Fields[k].Type
			if t.ID == row.TypeRow && k < len(t.Fields) {
				ft = t.Fields[k].Type
			}
			fx, err := o.boxed(ft, c, i)
			if err != nil {
				return nil, err
			}
			fields[k] = fx
		}
		x = fields
	default:
		return nil, fmt.Errorf("cannot read orc %s values", v.Type.Kind)
	}
	if t.ID == row.TypeString && file.ID != row.TypeString {
		// OrcReadStrategy: toString of the Java value
		if d, ok := x.(interface{ String() string }); ok && file.ID == row.TypeDecimal {
			return d.String(), nil
		}
		return row.Text(file, x), nil
	}
	return x, nil
}

// decodeText is the text of a string value in the encoding option's
// charset (OrcReadStrategy reads strings with it).
func (sc *sourceConfig) decodeText(b []byte) string {
	switch {
	case sc.latin1 && hasHigh(b):
		return string(latin1ToUTF8(nil, b))
	case sc.charset != nil && hasHigh(b):
		return string(decodeCharset(nil, sc.charset, b))
	}
	return string(b)
}
