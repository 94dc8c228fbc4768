package sqlengine

import (
	"strings"

	"github.com/stactor/stactor/row"
)

// Type rules, after SeaTunnel's ZetaSQLType.

func isSmallInt(t *row.Type) bool {
	return t.ID == row.TypeTinyInt || t.ID == row.TypeSmallInt || t.ID == row.TypeInt
}

func isIntType(t *row.Type) bool { return t.IsInteger() }

func isFloatType(t *row.Type) bool { return t.ID == row.TypeFloat || t.ID == row.TypeDouble }

func isNumType(t *row.Type) bool { return t.IsNumeric() }

func isTemporal(t *row.Type) bool {
	return t.ID == row.TypeDate || t.ID == row.TypeTime || t.ID == row.TypeTimestamp
}

func isNullType(t *row.Type) bool { return t.ID == row.TypeNull }

// numRank orders the numeric types as SeaTunnel's SqlType enum does.
func numRank(t *row.Type) int {
	switch t.ID {
	case row.TypeTinyInt:
		return 1
	case row.TypeSmallInt:
		return 2
	case row.TypeInt:
		return 3
	case row.TypeBigInt:
		return 4
	case row.TypeFloat:
		return 5
	case row.TypeDouble:
		return 6
	case row.TypeDecimal:
		return 7
	}
	return 0
}

// mergeDecimal is decimal(max p, max s) over the decimal operands, as
// SeaTunnel derives it (other operands contribute nothing).
func mergeDecimal(ts ...*row.Type) *row.Type {
	p, s := 0, 0
	for _, t := range ts {
		if t.ID == row.TypeDecimal {
			p, s = max(p, t.Precision), max(s, t.Scale)
		}
	}
	if p == 0 {
		p = 1
	}
	if s > p {
		p = s
	}
	return row.DecimalOf(p, s)
}

// arithType is the type of l (+ - * / %) r: int for two of tinyint,
// smallint and int; bigint when one is bigint; decimal when one is
// decimal; double when one is float or double. ok is false for
// non-numeric operands.
func arithType(l, r *row.Type) (*row.Type, bool) {
	switch {
	case isNullType(l) && isNullType(r):
		return row.Null, true
	case isNullType(l) && isNumType(r):
		return arithType(r, r)
	case isNullType(r) && isNumType(l):
		return arithType(l, l)
	case !isNumType(l) || !isNumType(r):
		return nil, false
	case isSmallInt(l) && isSmallInt(r):
		return row.Int, true
	case isIntType(l) && isIntType(r):
		return row.BigInt, true
	case l.ID == row.TypeDecimal || r.ID == row.TypeDecimal:
		return mergeDecimal(l, r), true
	}
	return row.Double, true
}

// maxType is SeaTunnel's getMaxType: the common type of CASE branches and
// similar. The null type gives way to any other; numbers widen; other
// types must be equal.
func maxType(a, b *row.Type) (*row.Type, bool) {
	switch {
	case isNullType(a):
		return b, true
	case isNullType(b):
		return a, true
	case a.Equal(b):
		return a, true
	case isNumType(a) && isNumType(b):
		if a.ID == row.TypeDecimal || b.ID == row.TypeDecimal {
			return mergeDecimal(a, b), true
		}
		if numRank(a) >= numRank(b) {
			return a, true
		}
		return b, true
	case a.ID == b.ID && a.ID != row.TypeRow && a.ID != row.TypeMap && a.ID != row.TypeArray:
		return a, true
	}
	return nil, false
}

// castTypes are the type names CAST accepts: SeaTunnel's, plus BOOLEAN,
// TINYINT, SMALLINT and TIMESTAMP_TZ (SeaTunnel's name of the type).
var castTypes = map[string]*row.Type{
	"STRING": row.String, "VARCHAR": row.String, "CHAR": row.String, "TEXT": row.String,
	"INT": row.Int, "INTEGER": row.Int,
	"BIGINT": row.BigInt, "LONG": row.BigInt,
	"BYTE": row.TinyInt, "TINYINT": row.TinyInt, "SMALLINT": row.SmallInt, "SHORT": row.SmallInt,
	"BYTES": row.Bytes, "BINARY": row.Bytes, "VARBINARY": row.Bytes,
	"DOUBLE": row.Double, "FLOAT": row.Float, "REAL": row.Float,
	"TIMESTAMP": row.Timestamp, "DATETIME": row.Timestamp, "TIMESTAMP_TZ": row.TimestampTZ,
	"DATE": row.Date, "TIME": row.Time,
	"BOOLEAN": row.Boolean, "BOOL": row.Boolean,
}

func castTypeNames() string {
	return "STRING, VARCHAR, INT, INTEGER, BIGINT, LONG, BYTE, TINYINT, SMALLINT, BYTES, BINARY, DOUBLE, FLOAT, DECIMAL(p, s), TIMESTAMP, DATETIME, TIMESTAMP_TZ, DATE, TIME, BOOLEAN"
}

// castTarget resolves a CAST type name.
func castTarget(tn typeName) (*row.Type, error) {
	up := strings.ToUpper(tn.name)
	if up == "DECIMAL" || up == "NUMERIC" {
		p, s := 38, 18
		switch len(tn.args) {
		case 0:
		case 1:
			p, s = tn.args[0], 0
		case 2:
			p, s = tn.args[0], tn.args[1]
		default:
			return nil, errAt(tn.at, "DECIMAL takes a precision and a scale, got %d arguments", len(tn.args))
		}
		if p < 1 || p > 38 || s < 0 || s > p {
			return nil, errAt(tn.at, "DECIMAL(%d, %d) is out of range (precision 1..38, scale 0..precision)", p, s)
		}
		return row.DecimalOf(p, s), nil
	}
	if t, ok := castTypes[up]; ok {
		if len(tn.args) > 1 || len(tn.args) == 1 && t.ID != row.TypeString && t.ID != row.TypeBytes {
			return nil, errAt(tn.at, "type %s takes no arguments", up)
		}
		return t, nil
	}
	return nil, &QueryError{Pos: tn.at, Msg: "unsupported CAST type " + tn.name, Hint: "supported: " + castTypeNames()}
}
