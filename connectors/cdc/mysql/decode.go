package mysql

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
	"golang.org/x/text/encoding"
)

// Binlog rows carry values by position, in the binary forms go-mysql
// decodes them to (signed integers whatever the column's sign, ENUM and
// SET as numbers, temporal types as text, TEXT as bytes). A table's
// decoder turns them into the catalog table's columns with Jdbc's type
// mapping (connectors/jdbc), so a row read by the snapshot and the same
// row read from the binlog are equal.

// valueFunc appends one non-null binlog value to c.
type valueFunc func(c *row.Column, v any) error

// table is a captured table: its catalog table and how to decode its
// binlog values and its snapshot rows.
type table struct {
	id   string      // db.table, the catalog table's id
	sch  *row.Schema // the catalog table the framework holds
	desc *jdbc.Table
	vals []valueFunc
	// tsCols are the TIMESTAMP columns, whose values (read in UTC) are
	// turned into wall clocks of server-time-zone.
	tsCols []int
	loc    *time.Location
	zero   string // zeroDateTimeBehavior
}

// newTable makes the decoders of a described table whose catalog table
// is sch; charsets are its columns' character sets (columnCharsets).
func newTable(desc *jdbc.Table, sch *row.Schema, charsets []string, loc *time.Location, zero string) (*table, error) {
	t := &table{id: sch.TableID, sch: sch, desc: desc, loc: loc, zero: zero}
	if len(charsets) != len(sch.Fields) || desc.Schema().Len() != sch.Len() {
		return nil, fmt.Errorf("table %s: %d character sets and %d described columns for %d fields", t.id, len(charsets), desc.Schema().Len(), len(sch.Fields))
	}
	texts, err := desc.MySQLTextDecoders(zero)
	if err != nil {
		return nil, err
	}
	for j, f := range sch.Fields {
		dbType := desc.ColumnType(j)
		if typeName(dbType) == "timestamp" {
			t.tsCols = append(t.tsCols, j)
		}
		cs, err := charsetOf(charsets[j])
		if err != nil {
			return nil, fmt.Errorf("table %s column %q: %w", t.id, f.Name, err)
		}
		vf, err := binlogValue(dbType, f.Type, cs, texts[j])
		if err != nil {
			return nil, fmt.Errorf("table %s column %q: %w", t.id, f.Name, err)
		}
		t.vals = append(t.vals, vf)
	}
	return t, nil
}

// schema is the catalog table.
func (t *table) schema() *row.Schema { return t.sch }

// appendRow appends a binlog row image to cols; a row whose length is not
// the table's is an error (a column was added or dropped since the table
// was described).
func (t *table) appendRow(cols []*row.Column, vals []any) error {
	if len(vals) != len(t.vals) {
		return fmt.Errorf("table %s: a binlog row has %d columns but the table as described has %d (the table changed; its binlog rows cannot be matched to columns)", t.id, len(vals), len(t.vals))
	}
	for j, v := range vals {
		if v == nil {
			cols[j].AppendNull()
			continue
		}
		if err := t.vals[j](cols[j], v); err != nil {
			return fmt.Errorf("table %s column %q: %w", t.id, t.sch.Fields[j].Name, err)
		}
	}
	return nil
}

// localTimestamps turns the TIMESTAMP values of rows from..len of cols,
// UTC wall clocks as the server sends them to a UTC session and to the
// binlog, into wall clocks of server-time-zone.
func (t *table) localTimestamps(cols []*row.Column, from int) {
	if t.loc == time.UTC {
		return
	}
	for _, j := range t.tsCols {
		c := cols[j]
		for i := from; i < len(c.Secs); i++ {
			if c.IsNull(i) {
				continue
			}
			in := row.TimestampTime(c.Secs[i], c.Nanos[i]).In(t.loc)
			wall := time.Date(in.Year(), in.Month(), in.Day(), in.Hour(), in.Minute(), in.Second(), in.Nanosecond(), time.UTC)
			c.Secs[i], c.Nanos[i] = row.TimestampOf(wall)
		}
	}
}

// typeName is the bare type name of an information_schema column type.
func typeName(dbType string) string {
	s := strings.ToLower(strings.TrimSpace(dbType))
	if i := strings.IndexAny(s, "( "); i >= 0 {
		s = s[:i]
	}
	return s
}

// typeArgs are the parenthesised arguments of a column type, unquoted:
// enum('a','b') gives a and b, decimal(10,2) gives 10 and 2.
func typeArgs(dbType string) []string {
	open := strings.IndexByte(dbType, '(')
	end := strings.LastIndexByte(dbType, ')')
	if open < 0 || end < open {
		return nil
	}
	s := dbType[open+1 : end]
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '\'' && i+1 < len(s) && s[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case ch == '\'':
			quoted = !quoted
		case !quoted && ch == ',':
			out = append(out, cur.String())
			cur.Reset()
		case quoted || ch != ' ':
			cur.WriteByte(ch)
		}
	}
	return append(out, cur.String())
}

// binlogValue is the decoder of a column's binlog values. text decodes
// the text form, which the binlog shares with the text protocol for
// temporal types, decimals and JSON.
func binlogValue(dbType string, t *row.Type, cs encoding.Encoding, text func(*row.Column, []byte) error) (valueFunc, error) {
	name := typeName(dbType)
	unsigned := strings.Contains(strings.ToLower(dbType), "unsigned")
	viaText := func(c *row.Column, v any) error {
		switch x := v.(type) {
		case string:
			return text(c, []byte(x))
		case []byte:
			return text(c, x)
		case decimal.Decimal:
			return text(c, []byte(x.String()))
		}
		return text(c, []byte(fmt.Sprint(v)))
	}
	switch name {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year", "bool", "boolean":
		bits := map[string]uint{"tinyint": 8, "bool": 8, "boolean": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64, "year": 64}[name]
		return func(c *row.Column, v any) error {
			n, err := binlogInt(v)
			if err != nil {
				return err
			}
			switch {
			case t.ID == row.TypeBoolean:
				c.AppendBool(n != 0)
			case unsigned && bits == 64:
				d := decimal.NewFromBigInt(new(big.Int).SetUint64(uint64(n)), 0)
				c.AppendDecimal(d)
			case unsigned:
				c.AppendInt(n & (1<<bits - 1))
			default:
				c.AppendInt(n)
			}
			return nil
		}, nil
	case "float", "double", "real":
		return func(c *row.Column, v any) error {
			switch x := v.(type) {
			case float32:
				c.AppendFloat(float64(x))
			case float64:
				if t.ID == row.TypeFloat {
					x = float64(float32(x))
				}
				c.AppendFloat(x)
			default:
				return fmt.Errorf("binlog value %T for a %s column", v, dbType)
			}
			return nil
		}, nil
	case "bit":
		width := 1
		if a := typeArgs(dbType); len(a) == 1 {
			width, _ = strconv.Atoi(a[0])
		}
		return func(c *row.Column, v any) error {
			n, err := binlogInt(v)
			if err != nil {
				return err
			}
			if t.ID == row.TypeBoolean {
				c.AppendBool(n&1 == 1)
				return nil
			}
			b := make([]byte, (width+7)/8)
			for i := len(b) - 1; i >= 0; i-- {
				b[i] = byte(n)
				n >>= 8
			}
			c.AppendBytes(b)
			return nil
		}, nil
	case "enum":
		members := typeArgs(dbType)
		return func(c *row.Column, v any) error {
			n, err := binlogInt(v)
			if err != nil {
				return err
			}
			switch {
			case n == 0:
				c.AppendString("") // MySQL's error value of an enum
			case int(n) <= len(members):
				c.AppendString(members[n-1])
			default:
				return fmt.Errorf("enum index %d beyond its %d members", n, len(members))
			}
			return nil
		}, nil
	case "set":
		members := typeArgs(dbType)
		return func(c *row.Column, v any) error {
			n, err := binlogInt(v)
			if err != nil {
				return err
			}
			var parts []string
			for i, m := range members {
				if n&(1<<uint(i)) != 0 {
					parts = append(parts, m)
				}
			}
			c.AppendString(strings.Join(parts, ","))
			return nil
		}, nil
	case "binary":
		// The binlog drops a BINARY(n)'s trailing zero bytes; a read
		// returns them.
		width := 1
		if a := typeArgs(dbType); len(a) == 1 {
			width, _ = strconv.Atoi(a[0])
		}
		return func(c *row.Column, v any) error {
			b := append([]byte{}, bytesOf(v)...)
			for len(b) < width {
				b = append(b, 0)
			}
			c.AppendBytes(b)
			return nil
		}, nil
	}
	switch t.ID {
	case row.TypeString:
		return func(c *row.Column, v any) error {
			var s string
			switch x := v.(type) {
			case string:
				s = x
			case []byte:
				s = string(x)
			default:
				return fmt.Errorf("binlog value %T for a %s column", v, dbType)
			}
			if cs != nil {
				u, err := cs.NewDecoder().String(s)
				if err != nil {
					return fmt.Errorf("text not in the column's character set: %v", err)
				}
				s = u
			}
			c.AppendString(s)
			return nil
		}, nil
	case row.TypeBytes:
		return func(c *row.Column, v any) error { c.AppendBytes(append([]byte{}, bytesOf(v)...)); return nil }, nil
	case row.TypeDecimal, row.TypeDate, row.TypeTime, row.TypeTimestamp:
		return viaText, nil
	}
	return nil, fmt.Errorf("type %s has no binlog decoder", dbType)
}

func bytesOf(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	return []byte(fmt.Sprint(v))
}

// binlogInt widens go-mysql's integer values.
func binlogInt(v any) (int64, error) {
	switch x := v.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return int64(x), nil
	}
	return 0, fmt.Errorf("binlog value %T is not an integer", v)
}
