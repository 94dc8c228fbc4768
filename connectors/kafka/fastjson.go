package kafka

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// flatJSON decodes the common record, a flat JSON object of scalars
// without escapes, straight into a row, without building a map: about
// half of a Kafka → Kafka job's CPU went to encoding/json. Anything else
// (nesting, escapes, odd spacing at the end) it leaves to the general
// decoder (ok false), which also words the errors.
type flatJSON struct {
	schema *row.Schema
	index  map[string]int
	// scratch of one record, reused: the reader's fetch goroutine is the
	// only caller
	vals []any
	ints []int64
	strs []string
	how  []uint8
}

// what a scratch slot holds
const (
	slotNull uint8 = iota
	slotInt        // ints[i] for a bigint field
	slotStr        // strs[i] for a string field
	slotAny        // vals[i], converted
)

func newFlatJSON(schema *row.Schema) *flatJSON {
	f := &flatJSON{schema: schema, index: make(map[string]int, len(schema.Fields))}
	for i, fl := range schema.Fields {
		switch fl.Type.ID {
		case row.TypeArray, row.TypeMap, row.TypeRow:
			return nil // nested values need the general decoder
		}
		f.index[fl.Name] = i
	}
	n := len(schema.Fields)
	f.vals, f.ints, f.strs, f.how = make([]any, n), make([]int64, n), make([]string, n), make([]uint8, n)
	return f
}

// appendTo decodes v and appends its row to b: ok false leaves v to the
// general decoder; an error appends nothing.
func (f *flatJSON) appendTo(v []byte, b *row.Builder) (ok bool, err error) {
	clear(f.how)
	clear(f.vals)
	if ok, err = f.parse(v); !ok || err != nil {
		return ok, err
	}
	for i := range f.schema.Fields {
		c := b.Col(i)
		switch f.how[i] {
		case slotNull:
			c.AppendNull()
		case slotInt:
			c.AppendInt(f.ints[i])
		case slotStr:
			c.AppendString(f.strs[i])
		default:
			if err := c.AppendValue(f.vals[i]); err != nil {
				return true, err // converted already: cannot happen
			}
		}
	}
	b.EndRow(row.Insert)
	return true, nil
}

// decode returns the row's values boxed, or ok false (for tests, which
// hold it against the general decoder).
func (f *flatJSON) decode(v []byte) ([]any, bool, error) {
	clear(f.how)
	clear(f.vals)
	ok, err := f.parse(v)
	if !ok || err != nil {
		return nil, ok, err
	}
	out := make([]any, len(f.how))
	for i, h := range f.how {
		switch h {
		case slotInt:
			out[i] = f.ints[i]
		case slotStr:
			out[i] = f.strs[i]
		case slotAny:
			out[i] = f.vals[i]
		}
	}
	return out, true, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parse reads v into the scratch slots, converted to the fields' types.
func (f *flatJSON) parse(v []byte) (ok bool, err error) {
	p := 0
	ws := func() {
		for p < len(v) && isSpace(v[p]) {
			p++
		}
	}
	ws()
	if p >= len(v) || v[p] != '{' {
		return false, nil
	}
	p++
	for first := true; ; first = false {
		ws()
		if p < len(v) && v[p] == '}' && first {
			p++
			break
		}
		if p >= len(v) || v[p] != '"' {
			return false, nil
		}
		end := bytes.IndexByte(v[p+1:], '"')
		if end < 0 {
			return false, nil
		}
		key := v[p+1 : p+1+end]
		if !plainString(key) {
			return false, nil
		}
		p += end + 2
		ws()
		if p >= len(v) || v[p] != ':' {
			return false, nil
		}
		p++
		ws()
		if p >= len(v) {
			return false, nil
		}
		i, known := f.index[string(key)]
		if known {
			f.how[i] = slotNull // until the value says otherwise (the last of a repeated key counts)
		}
		var val any
		switch c := v[p]; {
		case c == '"':
			end := bytes.IndexByte(v[p+1:], '"')
			if end < 0 {
				return false, nil
			}
			s := v[p+1 : p+1+end]
			if !plainString(s) {
				return false, nil
			}
			p += end + 2
			if known {
				if f.schema.Fields[i].Type.ID == row.TypeString {
					f.how[i], f.strs[i] = slotStr, string(s)
					break
				}
				val = string(s)
			}
		case c == 'n' && bytes.HasPrefix(v[p:], []byte("null")):
			p += 4
		case c == 't' && bytes.HasPrefix(v[p:], []byte("true")):
			p += 4
			val = true
		case c == 'f' && bytes.HasPrefix(v[p:], []byte("false")):
			p += 5
			val = false
		case c == '-' || (c >= '0' && c <= '9'):
			start := p
			for p < len(v) && (v[p] == '-' || v[p] == '+' || v[p] == '.' || v[p] == 'e' || v[p] == 'E' || (v[p] >= '0' && v[p] <= '9')) {
				p++
			}
			tok := v[start:p]
			if !jsonNumber(tok) {
				return false, nil // not JSON (00, 1., -): the general decoder says why
			}
			if known {
				if t := f.schema.Fields[i].Type; t.IsInteger() {
					n, perr := strconv.ParseInt(string(tok), 10, 64)
					if perr != nil {
						return false, nil
					}
					if t.ID == row.TypeBigInt {
						f.how[i], f.ints[i] = slotInt, n
						break
					}
					val = n
				} else {
					val = json.Number(tok)
				}
			}
		default:
			return false, nil // an object or an array
		}
		if known {
			if val != nil {
				if f.vals[i], err = fromJSON(f.schema.Fields[i].Type, val); err != nil {
					return true, fieldError(f.schema.Fields[i].Name, err)
				}
				f.how[i] = slotAny
			}
		}
		ws()
		if p < len(v) && v[p] == ',' {
			p++
			continue
		}
		if p < len(v) && v[p] == '}' {
			p++
			break
		}
		return false, nil
	}
	ws()
	return p == len(v), nil
}

// jsonNumber tells whether tok is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(tok []byte) bool {
	i, n := 0, len(tok)
	digits := func() int {
		start := i
		for i < n && tok[i] >= '0' && tok[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < n && tok[i] == '-' {
		i++
	}
	switch {
	case i < n && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < n && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < n && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < n && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// plainString tells whether s, between a string's quotes, is taken as it
// is: no escape, no control character (not JSON), valid UTF-8 (the
// general decoder replaces what is not).
func plainString(s []byte) bool {
	ascii := true
	for _, c := range s {
		switch {
		case c == '\\' || c < 0x20:
			return false
		case c >= 0x80:
			ascii = false
		}
	}
	return ascii || utf8.Valid(s)
}
