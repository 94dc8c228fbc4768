package kafka

import (
	"bytes"
	"encoding/json"
	"strconv"

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
}

func newFlatJSON(schema *row.Schema) *flatJSON {
	f := &flatJSON{schema: schema, index: make(map[string]int, len(schema.Fields))}
	for i, fl := range schema.Fields {
		switch fl.Type.ID {
		case row.TypeArray, row.TypeMap, row.TypeRow:
			return nil // nested values need the general decoder
		}
		f.index[fl.Name] = i
	}
	return f
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// decode returns the row's values, or ok false to leave v to the general
// decoder.
func (f *flatJSON) decode(v []byte) (vals []any, ok bool, err error) {
	p := 0
	ws := func() {
		for p < len(v) && isSpace(v[p]) {
			p++
		}
	}
	ws()
	if p >= len(v) || v[p] != '{' {
		return nil, false, nil
	}
	p++
	vals = make([]any, len(f.schema.Fields))
	for first := true; ; first = false {
		ws()
		if p < len(v) && v[p] == '}' && first {
			p++
			break
		}
		if p >= len(v) || v[p] != '"' {
			return nil, false, nil
		}
		end := bytes.IndexByte(v[p+1:], '"')
		if end < 0 {
			return nil, false, nil
		}
		key := v[p+1 : p+1+end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false, nil
		}
		p += end + 2
		ws()
		if p >= len(v) || v[p] != ':' {
			return nil, false, nil
		}
		p++
		ws()
		if p >= len(v) {
			return nil, false, nil
		}
		i, known := f.index[string(key)]
		var val any
		switch c := v[p]; {
		case c == '"':
			end := bytes.IndexByte(v[p+1:], '"')
			if end < 0 {
				return nil, false, nil
			}
			s := v[p+1 : p+1+end]
			if bytes.IndexByte(s, '\\') >= 0 {
				return nil, false, nil
			}
			p += end + 2
			if known {
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
			if known {
				tok := v[start:p]
				if t := f.schema.Fields[i].Type; t.IsInteger() {
					n, perr := strconv.ParseInt(string(tok), 10, 64)
					if perr != nil {
						return nil, false, nil
					}
					val = n
				} else {
					val = json.Number(tok)
				}
			}
		default:
			return nil, false, nil // an object or an array
		}
		if known && val != nil {
			if vals[i], err = fromJSON(f.schema.Fields[i].Type, val); err != nil {
				return nil, true, fieldError(f.schema.Fields[i].Name, err)
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
		return nil, false, nil
	}
	ws()
	if p != len(v) {
		return nil, false, nil
	}
	return vals, true, nil
}
