package jdbc

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// PostgreSQL values are read raw (pgx's RawValues) and decoded here
// straight into the batch's columns: binary format for the types whose
// wire form is simple, text for numeric (decimal's own parser), timetz,
// bit strings, enums and network types.

// pgTextRead are the read modes asked for in text format.
var pgTextRead = map[string]bool{"numeric": true, "timetz": true, "astext": true, "bit1": true, "money": true}

// pgFormat is the result format code (0 text, 1 binary) of a read mode.
func pgFormat(read string) int16 {
	if pgTextRead[read] {
		return 0
	}
	return 1
}

const pgEpochDays = 10957 // 2000-01-01 in days since 1970-01-01

// decodeFunc appends one non-null raw value to c.
type decodeFunc func(c *row.Column, b []byte) error

// pgDecoder is the decoder of a read mode.
func pgDecoder(read string) (decodeFunc, error) {
	if elem, ok := strings.CutPrefix(read, "array:"); ok {
		dec, err := pgElemDecoder(elem)
		if err != nil {
			return nil, err
		}
		return func(c *row.Column, b []byte) error {
			v, err := pgArray(b, dec)
			if err != nil {
				return err
			}
			c.AppendAny(v)
			return nil
		}, nil
	}
	switch read {
	case "bool":
		return func(c *row.Column, b []byte) error { c.AppendBool(len(b) > 0 && b[0] != 0); return nil }, nil
	case "int2":
		return fixed(2, func(c *row.Column, b []byte) { c.AppendInt(int64(int16(binary.BigEndian.Uint16(b)))) }), nil
	case "int4":
		return fixed(4, func(c *row.Column, b []byte) { c.AppendInt(int64(int32(binary.BigEndian.Uint32(b)))) }), nil
	case "oid":
		return fixed(4, func(c *row.Column, b []byte) { c.AppendInt(int64(binary.BigEndian.Uint32(b))) }), nil
	case "int8":
		return fixed(8, func(c *row.Column, b []byte) { c.AppendInt(int64(binary.BigEndian.Uint64(b))) }), nil
	case "float4":
		return fixed(4, func(c *row.Column, b []byte) {
			c.AppendFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}), nil
	case "float8":
		return fixed(8, func(c *row.Column, b []byte) { c.AppendFloat(math.Float64frombits(binary.BigEndian.Uint64(b))) }), nil
	case "text", "astext":
		return func(c *row.Column, b []byte) error { c.AppendString(string(b)); return nil }, nil
	case "jsonb":
		return func(c *row.Column, b []byte) error {
			if len(b) == 0 || b[0] != 1 {
				return errors.New("unknown jsonb format")
			}
			c.AppendString(string(b[1:]))
			return nil
		}, nil
	case "uuid":
		return func(c *row.Column, b []byte) error {
			if len(b) != 16 {
				return fmt.Errorf("uuid of %d bytes", len(b))
			}
			c.AppendString(formatUUID(b))
			return nil
		}, nil
	case "bytea":
		return func(c *row.Column, b []byte) error { c.AppendBytes(append([]byte{}, b...)); return nil }, nil
	case "bit1":
		return func(c *row.Column, b []byte) error { c.AppendBool(string(b) == "1"); return nil }, nil
	case "numeric":
		return func(c *row.Column, b []byte) error {
			d, err := pgNumeric(b)
			if err != nil {
				return err
			}
			c.AppendDecimal(d)
			return nil
		}, nil
	case "money":
		return func(c *row.Column, b []byte) error {
			d, err := pgMoney(b)
			if err != nil {
				return err
			}
			c.AppendDecimal(d)
			return nil
		}, nil
	case "date":
		return func(c *row.Column, b []byte) error {
			if len(b) != 4 {
				return fmt.Errorf("date of %d bytes", len(b))
			}
			days := int32(binary.BigEndian.Uint32(b))
			if days == math.MaxInt32 || days == math.MinInt32 {
				return errors.New("infinite date has no stactor value")
			}
			c.AppendInt(int64(days) + pgEpochDays)
			return nil
		}, nil
	case "time":
		return func(c *row.Column, b []byte) error {
			if len(b) != 8 {
				return fmt.Errorf("time of %d bytes", len(b))
			}
			v, err := storeTime(time.Duration(int64(binary.BigEndian.Uint64(b))) * time.Microsecond)
			if err != nil {
				return err
			}
			c.AppendInt(v)
			return nil
		}, nil
	case "timetz":
		return func(c *row.Column, b []byte) error {
			s := string(b)
			if i := strings.LastIndexAny(s, "+-"); i >= 8 {
				s = s[:i]
			}
			d, err := row.ParseTime(s)
			if err != nil {
				return fmt.Errorf("timetz %q: %w", b, err)
			}
			c.AppendInt(int64(d))
			return nil
		}, nil
	case "timestamp", "timestamptz":
		return func(c *row.Column, b []byte) error {
			if len(b) != 8 {
				return fmt.Errorf("timestamp of %d bytes", len(b))
			}
			us := int64(binary.BigEndian.Uint64(b))
			if us == math.MaxInt64 || us == math.MinInt64 {
				return errors.New("infinite timestamp has no stactor value")
			}
			t := time.Unix(pgEpochDays*86400+us/1e6, (us%1e6)*1e3).UTC()
			if read == "timestamptz" {
				return appendTimestampTZ(c, t)
			}
			return appendTimestamp(c, t)
		}, nil
	}
	return nil, fmt.Errorf("no decoder for %q", read)
}

func fixed(n int, f func(c *row.Column, b []byte)) decodeFunc {
	return func(c *row.Column, b []byte) error {
		if len(b) != n {
			return fmt.Errorf("value of %d bytes, want %d", len(b), n)
		}
		f(c, b)
		return nil
	}
}

// pgNumeric reads numeric's text form; NaN and infinities have no decimal.
func pgNumeric(b []byte) (decimal.Decimal, error) {
	s := string(b)
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return decimal.Decimal{}, fmt.Errorf("numeric %s has no decimal value", s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return d, fmt.Errorf("numeric %q: %w", s, err)
	}
	return d, nil
}

// pgMoney parses money's text form, which the server's lc_monetary
// shapes ("$1,234.56", "-$1,234.56", "1.234,56 €", "($5.00)"; pgoutput
// sends it so too): the digits, a minus sign or parentheses for negative,
// and as decimal separator the last '.' or ',' unless three digits follow
// it (a group separator: money prints its fraction digits always, two in
// most locales), the rest (currency symbol, spaces) dropped.
func pgMoney(b []byte) (decimal.Decimal, error) {
	var digits []byte
	neg, sep := false, -1
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9':
			digits = append(digits, ch)
		case ch == '-' || ch == '(':
			neg = true
		case ch == '.' || ch == ',':
			sep = len(digits)
		}
	}
	if len(digits) == 0 {
		return decimal.Decimal{}, fmt.Errorf("money %q has no digits", b)
	}
	frac := 0
	if sep >= 0 && len(digits)-sep != 3 {
		frac = len(digits) - sep
	}
	d, err := decimal.NewFromString(string(digits))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("money %q: %w", b, err)
	}
	d = d.Shift(int32(-frac))
	if neg {
		d = d.Neg()
	}
	return d, nil
}

func formatUUID(b []byte) string {
	var buf [36]byte
	hex.Encode(buf[0:8], b[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], b[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], b[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], b[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], b[10:16])
	return string(buf[:])
}

// pgElemDecoder decodes one array element to its boxed value.
func pgElemDecoder(read string) (func([]byte) (any, error), error) {
	var t *row.Type
	switch read {
	case "bool":
		t = row.Boolean
	case "int2", "int4", "int8":
		t = row.BigInt
	case "float4", "float8":
		t = row.Double
	case "text":
		t = row.String
	default:
		return nil, fmt.Errorf("no array decoder for %q", read)
	}
	dec, err := pgDecoder(read)
	if err != nil {
		return nil, err
	}
	return func(b []byte) (any, error) {
		c := row.NewColumn(t, 1)
		if err := dec(c, b); err != nil {
			return nil, err
		}
		return c.Value(0), nil
	}, nil
}

// pgArray reads a one-dimensional array in binary format.
func pgArray(b []byte, elem func([]byte) (any, error)) ([]any, error) {
	if len(b) < 12 {
		return nil, errors.New("short array")
	}
	ndim := int(int32(binary.BigEndian.Uint32(b)))
	if ndim == 0 {
		return []any{}, nil
	}
	if ndim != 1 {
		return nil, fmt.Errorf("array of %d dimensions (only one-dimensional arrays map)", ndim)
	}
	if len(b) < 20 {
		return nil, errors.New("short array")
	}
	n := int(int32(binary.BigEndian.Uint32(b[12:])))
	b = b[20:]
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return nil, errors.New("short array")
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if len(b) < l {
			return nil, errors.New("short array")
		}
		v, err := elem(b[:l])
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i+1, err)
		}
		out = append(out, v)
		b = b[l:]
	}
	return out, nil
}
