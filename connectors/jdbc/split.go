package jdbc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// keyVal is a split-key value in its stored form: integers, dates (days)
// and timestamps (the row model's int) in I, decimals and strings in S.
type keyVal struct {
	I int64  `json:"i,omitempty"`
	S string `json:"s,omitempty"`
}

// keyOf is the split-key value at row i of c.
func keyOf(c *row.Column, i int) *keyVal {
	switch c.Type.Storage() {
	case row.StoreInt:
		return &keyVal{I: c.Ints[i]}
	case row.StoreDecimal:
		return &keyVal{S: c.Decs[i].String()}
	case row.StoreString:
		return &keyVal{S: c.Str(i)}
	}
	return nil
}

// equal tells whether row i of c holds k.
func (k *keyVal) equal(c *row.Column, i int) bool {
	if k == nil || c.IsNull(i) {
		return false
	}
	switch c.Type.Storage() {
	case row.StoreInt:
		return c.Ints[i] == k.I
	case row.StoreDecimal:
		d, err := decimal.NewFromString(k.S)
		return err == nil && c.Decs[i].Equal(d)
	case row.StoreString:
		return c.Str(i) == k.S
	}
	return false
}

// arg is k as a statement argument for a key of type t.
func (k *keyVal) arg(dialect string, t *row.Type) (any, error) {
	c := row.NewColumn(t, 1)
	switch t.Storage() {
	case row.StoreInt:
		c.AppendInt(k.I)
	case row.StoreDecimal:
		d, err := decimal.NewFromString(k.S)
		if err != nil {
			return nil, err
		}
		c.AppendDecimal(d)
	case row.StoreString:
		c.AppendString(k.S)
	default:
		return nil, fmt.Errorf("%s is not a split key type", t)
	}
	f, err := argOf(dialect, t)
	if err != nil {
		return nil, err
	}
	return f(c, 0), nil
}

func (k *keyVal) String() string {
	if k == nil {
		return "-"
	}
	if k.S != "" {
		return strconv.Quote(k.S)
	}
	return strconv.FormatInt(k.I, 10)
}

// splittable tells whether a column of type t can split a table, as
// SeaTunnel's supported split data types: numbers, strings and dates.
func splittable(t *row.Type) bool {
	switch t.ID {
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt, row.TypeDecimal, row.TypeString, row.TypeDate:
		return true
	}
	return false
}

// split is a range of one table's split key, with the position reached in
// it. A nil bound is open. The split of the rows whose key is null has
// IsNull. Last is the last key emitted and Ties the rows emitted with
// that key (for keys that are not unique); Rows counts the rows emitted,
// the position of a table read without a split key.
type split struct {
	Table  int     `json:"t"`
	Seq    int     `json:"n"`
	Lo     *keyVal `json:"lo,omitempty"`
	LoIncl bool    `json:"loi,omitempty"`
	Hi     *keyVal `json:"hi,omitempty"`
	HiIncl bool    `json:"hii,omitempty"`
	IsNull bool    `json:"null,omitempty"`

	Last *keyVal `json:"last,omitempty"`
	Ties int64   `json:"ties,omitempty"`
	Rows int64   `json:"rows,omitempty"`
}

func (s *split) id() string { return fmt.Sprintf("jdbc-%d-%d", s.Table, s.Seq) }

func (s *split) encode() connectors.Split {
	b, _ := json.Marshal(s) // plain fields: cannot fail
	return connectors.Split{ID: s.id(), Data: b}
}

func decodeSplit(cs connectors.Split) (*split, error) {
	var s split
	if err := json.Unmarshal(cs.Data, &s); err != nil {
		return nil, fmt.Errorf("Jdbc split %q: %w", cs.ID, err)
	}
	return &s, nil
}

// splitSQL is the statement that reads (the rest of) s from table t, and
// its arguments: the table's query wrapped with the range, the position
// and where_condition, in a total order so that a position means one
// place.
func splitSQL(d dialectSQL, t *sourceTable, s *split, where string) (string, []any, error) {
	var conds []string
	var args []any
	add := func(cond string, v *keyVal) error {
		a, err := v.arg(d.name, t.keyType())
		if err != nil {
			return err
		}
		args = append(args, a)
		conds = append(conds, strings.Replace(cond, "?", d.placeholder(len(args)), 1))
		return nil
	}
	if where != "" {
		conds = append(conds, "("+where+")")
	}
	if t.Key != "" {
		k := d.quote(t.Key)
		switch {
		case s.IsNull:
			conds = append(conds, k+" IS NULL")
		default:
			if s.Lo != nil {
				op := " > ?"
				if s.LoIncl {
					op = " >= ?"
				}
				if err := add(k+op, s.Lo); err != nil {
					return "", nil, err
				}
			}
			if s.Hi != nil {
				op := " < ?"
				if s.HiIncl {
					op = " <= ?"
				}
				if err := add(k+op, s.Hi); err != nil {
					return "", nil, err
				}
			}
			if !s.IsNull && t.KeyNullable {
				conds = append(conds, k+" IS NOT NULL")
			}
		}
		if s.Last != nil {
			op := " > ?"
			if !t.KeyUnique {
				op = " >= ?" // the ties already emitted are skipped as read
			}
			if err := add(k+op, s.Last); err != nil {
				return "", nil, err
			}
		}
	}
	q := "SELECT " + selectList(d, t) + " FROM (" + t.Query + ") stactor_t"
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	order := t.Order
	if s.IsNull {
		// Every key is null here: the position is a row count, so the
		// order must be total over the other columns.
		order = nil
		for _, c := range t.Columns {
			if c.Name != t.Key && sortable(c) {
				order = append(order, c.Name)
			}
		}
	}
	if len(order) > 0 {
		var cols []string
		for _, c := range order {
			cols = append(cols, d.quote(c))
		}
		q += " ORDER BY " + strings.Join(cols, ", ")
	}
	return q, args, nil
}

// dialectSQL is what statements differ in between the dialects.
type dialectSQL struct {
	name string
}

func (d dialectSQL) quote(ident string) string {
	if d.name == dialectMySQL {
		return "`" + strings.ReplaceAll(ident, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

func (d dialectSQL) placeholder(n int) string {
	if d.name == dialectMySQL {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}

// table is a quoted table path.
func (d dialectSQL) table(p tablePath) string {
	if d.name == dialectMySQL {
		return d.quote(p.Database) + "." + d.quote(p.Table)
	}
	return d.quote(p.Schema) + "." + d.quote(p.Table)
}

// selectList names the columns read. MySQL's text protocol prints a FLOAT
// with 6 digits, so floats are read as the double they widen to, which
// prints every digit of the float.
func selectList(d dialectSQL, t *sourceTable) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		q := d.quote(c.Name)
		if d.name == dialectMySQL && c.Type.ID == row.TypeFloat {
			q = "(" + q + " + 0E0) AS " + q
		}
		cols[i] = q
	}
	return strings.Join(cols, ", ")
}
