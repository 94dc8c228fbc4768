package jdbc

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// MySQL values arrive in the text protocol (statements are sent with
// their values inline) and are parsed here straight into the batch's
// columns.

// zeroDate says what a zero date ('0000-00-00') becomes, as Connector/J's
// zeroDateTimeBehavior: "exception" (an error), "convertToNull" or
// "round" (0001-01-01).
type zeroDate string

// myDecoder is the decoder of a read mode for a column of type t.
func myDecoder(read string, t *row.Type, zero zeroDate) (decodeFunc, error) {
	switch read {
	case "bool":
		return func(c *row.Column, b []byte) error {
			n, err := parseInt(b)
			if err != nil {
				return err
			}
			c.AppendBool(n != 0)
			return nil
		}, nil
	case "bit1":
		return func(c *row.Column, b []byte) error { c.AppendBool(len(b) > 0 && b[len(b)-1]&1 == 1); return nil }, nil
	case "int":
		return func(c *row.Column, b []byte) error {
			n, err := parseInt(b)
			if err != nil {
				return err
			}
			c.AppendInt(n)
			return nil
		}, nil
	case "float":
		narrow := t.ID == row.TypeFloat
		return func(c *row.Column, b []byte) error {
			f, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				return fmt.Errorf("not a number: %q", b)
			}
			if narrow {
				f = float32Of(f)
			}
			c.AppendFloat(f)
			return nil
		}, nil
	case "decimal":
		return func(c *row.Column, b []byte) error {
			d, err := decimal.NewFromString(string(b))
			if err != nil {
				return fmt.Errorf("not a decimal: %q", b)
			}
			c.AppendDecimal(d)
			return nil
		}, nil
	case "string":
		return func(c *row.Column, b []byte) error { c.AppendString(string(b)); return nil }, nil
	case "bytes":
		return func(c *row.Column, b []byte) error { c.AppendBytes(append([]byte{}, b...)); return nil }, nil
	case "date":
		return func(c *row.Column, b []byte) error {
			y, mo, d, err := parseYMD(b)
			if err != nil {
				return err
			}
			if y == 0 && mo == 0 && d == 0 {
				return appendZero(c, zero, func() error { c.AppendInt(storeDate(1, 1, 1)); return nil })
			}
			c.AppendInt(storeDate(y, time.Month(mo), d))
			return nil
		}, nil
	case "time":
		return func(c *row.Column, b []byte) error {
			d, err := row.ParseTime(string(b))
			if err != nil || (len(b) > 0 && b[0] == '-') {
				return fmt.Errorf("time %q is not a time of day", b)
			}
			c.AppendInt(int64(d))
			return nil
		}, nil
	case "datetime":
		return func(c *row.Column, b []byte) error {
			y, mo, d, err := parseYMD(b)
			if err != nil {
				return err
			}
			if y == 0 && mo == 0 && d == 0 {
				return appendZero(c, zero, func() error {
					return appendTimestamp(c, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
				})
			}
			var clock time.Duration
			if len(b) > 11 {
				if clock, err = row.ParseTime(string(b[11:])); err != nil {
					return fmt.Errorf("datetime %q: %w", b, err)
				}
			}
			return appendTimestamp(c, time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Add(clock))
		}, nil
	}
	return nil, fmt.Errorf("no decoder for %q", read)
}

func appendZero(c *row.Column, zero zeroDate, round func() error) error {
	switch zero {
	case "convertToNull":
		c.AppendNull()
	case "round":
		return round()
	default:
		return errors.New("zero date 0000-00-00 (set zeroDateTimeBehavior=convertToNull or round in the url to read it)")
	}
	return nil
}

// parseYMD reads the YYYY-MM-DD at the start of b.
func parseYMD(b []byte) (y, m, d int, err error) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return 0, 0, 0, fmt.Errorf("not a date: %q", b)
	}
	num := func(s []byte) int {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				err = fmt.Errorf("not a date: %q", b)
				return 0
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, m, d = num(b[0:4]), num(b[5:7]), num(b[8:10])
	return y, m, d, err
}

// parseInt reads a decimal integer without allocating.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty integer")
	}
	neg := b[0] == '-'
	if neg || b[0] == '+' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("not an integer: %q", b)
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not an integer: %q", b)
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, fmt.Errorf("integer out of range: -%s", b)
		}
		return -int64(n), nil
	}
	if n > 1<<63-1 {
		return 0, fmt.Errorf("integer out of range: %s", b)
	}
	return int64(n), nil
}
