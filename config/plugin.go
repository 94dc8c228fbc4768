package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/config/hocon"
)

// PluginConfig is one plugin block (or env) whose options were checked
// against their declarations. Accessors return the value set in the file,
// or the declared default; they are only for declared keys.
type PluginConfig struct {
	File  string
	Where string // "source FakeSource", "env", ...
	Name  string // the plugin's name as written
	Pos   hocon.Pos
	Body  *hocon.Value

	decl   map[string]Option
	values map[string]any
	set    map[string]*hocon.Value
	// warnings are what the plugin's resolve said of its options
	// (Warnf), for the plan's warnings.
	warnings []Warning
}

// Validate checks body against the declared options (plus extra, such as
// CommonPluginOptions). Unknown keys become warnings.
func Validate(file, where, name string, pos hocon.Pos, body *hocon.Value, opts ...[]Option) (*PluginConfig, []Warning, error) {
	c := &PluginConfig{File: file, Where: where, Name: name, Pos: pos, Body: body,
		decl: map[string]Option{}, values: map[string]any{}, set: map[string]*hocon.Value{}}
	var all []Option
	for _, group := range opts {
		all = append(all, group...)
	}
	known := map[string]bool{}
	var prefixes []string
	for _, o := range all {
		c.decl[o.Key] = o
		known[o.Key] = true
		for _, f := range o.Fallbacks {
			known[f] = true
		}
		if o.Prefix {
			prefixes = append(prefixes, o.Key+".")
		}
	}
	for _, o := range all {
		if o.Prefix {
			continue
		}
		v, key := lookupAny(body, o.Key, o.Fallbacks)
		if v != nil && v.Kind == hocon.Null {
			v = nil // null is unset, as in SeaTunnel's ReadonlyConfig
		}
		if v == nil {
			if o.Required {
				return nil, nil, &Error{Pos: pos, Where: where, Key: o.Key, Msg: "missing; it is required: " + o.Describe()}
			}
			if o.Default != nil {
				c.values[o.Key] = o.Default
			}
			continue
		}
		val, err := convertOption(o, v)
		if err != nil {
			return nil, nil, &Error{Pos: v.Pos, Where: where, Key: key, Msg: err.Error()}
		}
		c.values[o.Key] = val
		c.set[o.Key] = v
	}
	var warnings []Warning
	if body != nil {
		walkLeaves(body, "", known, func(path string, v *hocon.Value, keyPos hocon.Pos) {
			for _, p := range prefixes {
				if strings.HasPrefix(path, p) {
					return
				}
			}
			msg := fmt.Sprintf("%s: unknown option %q is ignored", where, path)
			if s := suggest(path, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			warnings = append(warnings, Warning{Pos: keyPos, Msg: msg})
		})
	}
	return c, warnings, nil
}

// lookupAny finds key (or one of its fallbacks) in body, as a quoted key
// or as a dotted path.
func lookupAny(body *hocon.Value, key string, fallbacks []string) (*hocon.Value, string) {
	if body == nil {
		return nil, ""
	}
	for _, k := range append([]string{key}, fallbacks...) {
		if v := body.Get(k); v != nil {
			return v, k
		}
		if v := body.Lookup(k); v != nil {
			return v, k
		}
	}
	return nil, ""
}

// walkLeaves calls fn for every key path in body that is not declared,
// descending into objects whose path is not itself declared.
func walkLeaves(v *hocon.Value, prefix string, known map[string]bool, fn func(string, *hocon.Value, hocon.Pos)) {
	for _, f := range v.Fields {
		path := f.Key
		if prefix != "" {
			path = prefix + "." + f.Key
		}
		if known[path] {
			continue
		}
		if f.Value.Kind == hocon.Object && hasKnownUnder(known, path+".") {
			walkLeaves(f.Value, path, known, fn)
			continue
		}
		fn(path, f.Value, f.KeyPos)
	}
}

func hasKnownUnder(known map[string]bool, prefix string) bool {
	for k := range known {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func convertOption(o Option, v *hocon.Value) (any, error) {
	got := func() string {
		switch v.Kind {
		case hocon.Object:
			return "an object"
		case hocon.Array:
			return "a list"
		}
		return strconv.Quote(v.String())
	}
	switch o.Type {
	case TypeString:
		if v.Kind == hocon.Object || v.Kind == hocon.Array {
			return nil, fmt.Errorf("expected a string, got %s", got())
		}
		if u := unresolvedVariable(v.String()); u != "" && !o.Template && v.Quoted {
			return nil, unresolvedError(u)
		}
		return v.String(), nil
	case TypeInt:
		if n, ok := v.Int(); ok && (v.Kind == hocon.Number || v.Kind == hocon.String) {
			return n, nil
		}
		return nil, fmt.Errorf("expected an integer, got %s", got())
	case TypeFloat:
		if f, ok := v.Float(); ok && (v.Kind == hocon.Number || v.Kind == hocon.String) {
			return f, nil
		}
		return nil, fmt.Errorf("expected a number, got %s", got())
	case TypeBool:
		if b, ok := v.Bool(); ok && (v.Kind == hocon.Bool || v.Kind == hocon.String) {
			return b, nil
		}
		return nil, fmt.Errorf("expected true or false, got %s", got())
	case TypeEnum:
		if v.Kind == hocon.Object || v.Kind == hocon.Array {
			return nil, fmt.Errorf("expected one of %s, got %s", strings.Join(o.Enum, ", "), got())
		}
		for _, e := range o.Enum {
			if strings.EqualFold(e, v.String()) {
				return e, nil
			}
		}
		return nil, fmt.Errorf("expected one of %s, got %s", strings.Join(o.Enum, ", "), got())
	case TypeStrings:
		switch v.Kind {
		case hocon.Array:
			out := make([]string, 0, len(v.Items))
			for i, it := range v.Items {
				if it.Kind == hocon.Object || it.Kind == hocon.Array {
					return nil, fmt.Errorf("item %d: expected a string", i+1)
				}
				out = append(out, it.String())
			}
			return out, nil
		case hocon.Object:
			return nil, fmt.Errorf("expected a list of strings, got an object")
		}
		return []string{v.String()}, nil
	case TypeObject:
		if v.Kind != hocon.Object {
			return nil, fmt.Errorf("expected an object { ... }, got %s", got())
		}
		return v, nil
	case TypeList:
		if v.Kind != hocon.Array {
			return nil, fmt.Errorf("expected a list [ ... ], got %s", got())
		}
		return v, nil
	case TypeDuration:
		ms := func(n int64) (any, error) {
			if n > maxDurationMs || n < -maxDurationMs {
				return nil, fmt.Errorf("%d milliseconds is too long (at most %d, about 292 years)", n, maxDurationMs)
			}
			return time.Duration(n) * time.Millisecond, nil
		}
		if v.Kind == hocon.Number {
			if n, ok := v.Int(); ok {
				return ms(n)
			}
		}
		if v.Kind == hocon.String {
			if n, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
				return ms(n)
			}
			if d, err := time.ParseDuration(v.String()); err == nil {
				return d, nil
			}
		}
		return nil, fmt.Errorf("expected a duration in milliseconds (or like \"10s\"), got %s", got())
	}
	return v, nil
}

// maxDurationMs is the longest duration in milliseconds a time.Duration
// holds.
const maxDurationMs = math.MaxInt64 / int64(time.Millisecond)

// Has tells whether key was set in the file.
func (c *PluginConfig) Has(key string) bool { _, ok := c.set[c.declKey(key)]; return ok }

// declKey is where an undeclared key would be caught; undeclared keys read
// as unset, and the plugin's tests show its declarations are complete.
func (c *PluginConfig) declKey(key string) string { return key }

func (c *PluginConfig) get(key string) any { return c.values[c.declKey(key)] }

// String is a string option ("" when unset without default).
func (c *PluginConfig) String(key string) string {
	s, _ := c.get(key).(string)
	return s
}

// Int is an integer option (0 when unset without default).
func (c *PluginConfig) Int(key string) int64 {
	switch n := c.get(key).(type) {
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}

// Float is a number option.
func (c *PluginConfig) Float(key string) float64 {
	switch n := c.get(key).(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return 0
}

// Bool is a boolean option.
func (c *PluginConfig) Bool(key string) bool { b, _ := c.get(key).(bool); return b }

// Strings is a list-of-strings option.
func (c *PluginConfig) Strings(key string) []string { s, _ := c.get(key).([]string); return s }

// Duration is a duration option.
func (c *PluginConfig) Duration(key string) time.Duration {
	switch d := c.get(key).(type) {
	case time.Duration:
		return d
	case int64:
		return time.Duration(d) * time.Millisecond
	case int:
		return time.Duration(d) * time.Millisecond
	}
	return 0
}

// Raw is the option's value as written (nil when unset): objects and lists
// that the plugin reads itself.
func (c *PluginConfig) Raw(key string) *hocon.Value { return c.set[c.declKey(key)] }

// Lookup finds any key path in the plugin's body, declared or not (for
// option families such as "<type>.fake.mode").
func (c *PluginConfig) Lookup(path string) *hocon.Value {
	v, _ := lookupAny(c.Body, path, nil)
	return v
}

// Errorf is an Error placed at key's value (at the plugin when unset).
func (c *PluginConfig) Errorf(key, format string, args ...any) error {
	return &Error{Pos: c.keyPos(key), Where: c.Where, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// keyPos is where key's value is, the plugin's position when unset.
func (c *PluginConfig) keyPos(key string) hocon.Pos {
	if v, ok := c.set[key]; ok {
		return v.Pos
	} else if v := c.Lookup(key); v != nil {
		return v.Pos
	}
	return c.Pos
}

// Warnf records a warning placed at key's value, for a plugin's resolve
// to tell the user of an option it accepts but reads differently from
// SeaTunnel; the plan's warnings carry it (once, however often it is
// recorded).
func (c *PluginConfig) Warnf(key, format string, args ...any) {
	c.addWarning(Warning{Pos: c.keyPos(key), Msg: c.Where + ": " + key + ": " + fmt.Sprintf(format, args...)})
}

func (c *PluginConfig) addWarning(w Warning) {
	for _, o := range c.warnings {
		if o == w {
			return
		}
	}
	c.warnings = append(c.warnings, w)
}

// Warnings are the warnings Warnf recorded.
func (c *PluginConfig) Warnings() []Warning { return append([]Warning(nil), c.warnings...) }

// KeepWarnings records the warnings of part, a config the plugin
// validated from a part of its body (an entry of a list of tables, say),
// as the plugin's own: the planner reads the plugin's config only. They
// keep their place and wording (part's Where names the entry).
func (c *PluginConfig) KeepWarnings(part *PluginConfig) {
	if part == c {
		return
	}
	for _, w := range part.warnings {
		c.addWarning(w)
	}
}

// ErrorAt is an Error placed at v, about key.
func (c *PluginConfig) ErrorAt(v *hocon.Value, key, format string, args ...any) error {
	pos := c.Pos
	if v != nil {
		pos = v.Pos
	}
	return &Error{Pos: pos, Where: c.Where, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Keys are the declared keys set in the file, sorted.
func (c *PluginConfig) Keys() []string {
	out := make([]string, 0, len(c.set))
	for k := range c.set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
