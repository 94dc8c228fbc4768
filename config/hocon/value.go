package hocon

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value.
type Kind int

// The kinds of values. Null is the zero Kind.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "bool", "number", "string", "object", "array"}

// String returns the lower-case name of the kind ("null", "bool", ...).
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Value is a fully resolved HOCON value.
type Value struct {
	Kind Kind
	Pos  Pos // where the value starts in the source
	// Text is, for scalars, the string value (unescaped) or the number,
	// bool or null literal as written. It is empty for objects and arrays.
	Text string
	// Fields are an object's fields in source order (after merging).
	// Keys are unique, except in objects kept by Options.KeepDuplicates
	// and in copies of them made by substitution.
	Fields []*Field
	Items  []*Value // for Array
	Quoted bool     // the scalar came from a quoted string, so "5" and 5 can be told apart
}

// Field is one key of an object.
type Field struct {
	Key    string
	KeyPos Pos
	Value  *Value
}

// Get returns the field of an object with exactly this key (no path
// splitting), or nil if v is not an object or has no such field. Of a
// key repeated under Options.KeepDuplicates it returns the first; range
// over Fields to see them all.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, f := range v.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Field returns the field with exactly this key (the first, if it is
// repeated), or nil.
func (v *Value) Field(key string) *Field {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, f := range v.Fields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// Lookup follows a HOCON path expression such as `env.job.mode` or
// `source.FakeSource."row.num"` through nested objects. It returns nil
// if any step is missing or the path is not a valid path expression.
// Each step takes the first of repeated keys, as Get does (substitutions
// in the document take the last).
func (v *Value) Lookup(path string) *Value {
	keys, msg := parsePath(path)
	if msg != "" {
		return nil
	}
	for _, k := range keys {
		v = v.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// Bool interprets the value as a boolean the way HOCON does: true, yes
// and on are true; false, no and off are false (case-insensitive). It
// accepts booleans and strings, quoted or not.
func (v *Value) Bool() (bool, bool) {
	if v == nil || (v.Kind != Bool && v.Kind != String) {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(v.Text)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// Int interprets a number or a numeric string as an int64. It reports
// false for non-integral or out-of-range values.
func (v *Value) Int() (int64, bool) {
	s, ok := v.numberText()
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// Float interprets a number or a numeric string as a float64.
func (v *Value) Float() (float64, bool) {
	s, ok := v.numberText()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

func (v *Value) numberText() (string, bool) {
	if v == nil || (v.Kind != Number && v.Kind != String) {
		return "", false
	}
	s := strings.TrimSpace(v.Text)
	if !looksNumeric(s) {
		return "", false
	}
	return s, true
}

// String returns the text of a scalar ("null" for null). Objects and
// arrays are rendered compactly as JSON, which is also valid HOCON.
func (v *Value) String() string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case Object, Array:
		var b strings.Builder
		writeCompact(&b, v)
		return b.String()
	case Null:
		return "null"
	}
	return v.Text
}

// ToAny converts the value to plain Go values: map[string]any, []any,
// string, int64 (integral numbers that fit), float64 (other numbers),
// bool or nil. Of repeated keys it keeps the first, as Get does.
func (v *Value) ToAny() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Object:
		m := make(map[string]any, len(v.Fields))
		for _, f := range v.Fields {
			if _, dup := m[f.Key]; !dup {
				m[f.Key] = f.Value.ToAny()
			}
		}
		return m
	case Array:
		a := make([]any, len(v.Items))
		for i, it := range v.Items {
			a[i] = it.ToAny()
		}
		return a
	case Number:
		if i, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(v.Text, 64); err == nil {
			return f
		}
		return v.Text
	case Bool:
		return v.Text == "true"
	case Null:
		return nil
	}
	return v.Text
}

// isNumber reports whether unquoted text is a HOCON number literal:
// -?digits(.digits)?([eE][+-]?digits)?
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	j := skipDigits(s, i)
	if j == i {
		return false
	}
	i = j
	if i < len(s) && s[i] == '.' {
		j = skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j = skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// looksNumeric is the lenient check used when converting strings:
// an optional sign, digits with an optional fraction (either part may be
// empty, not both) and an optional exponent. It rules out the words and
// hex forms strconv would otherwise accept.
func looksNumeric(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j := skipDigits(s, i)
	digits := j > i
	i = j
	if i < len(s) && s[i] == '.' {
		j = skipDigits(s, i+1)
		digits = digits || j > i+1
		i = j
	}
	if !digits {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j = skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// classify turns unquoted text into a scalar: true/false, null, a
// number, or else an unquoted string.
func classify(text string, pos Pos) *Value {
	switch text {
	case "true", "false":
		return &Value{Kind: Bool, Pos: pos, Text: text}
	case "null":
		return &Value{Kind: Null, Pos: pos, Text: text}
	}
	if isNumber(text) {
		return &Value{Kind: Number, Pos: pos, Text: text}
	}
	return &Value{Kind: String, Pos: pos, Text: text}
}
