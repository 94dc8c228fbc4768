// Package replace is SeaTunnel's Replace transform: in each string field of
// replace_fields (or the single replace_field; setting both is an error, as
// in SeaTunnel's ReplaceTransform) it replaces every occurrence of pattern
// by replacement —
// literally (Java's String.replace), or as a regular expression when
// is_regex is set (String.replaceAll, or replaceFirst with replace_first).
// The field keeps its place, name and type; a null stays null.
//
// Regular expressions are Go's RE2 syntax, which covers what SeaTunnel jobs
// use in practice; a pattern RE2 cannot compile (look-around,
// back-references) is a plan-time error at the pattern. The replacement
// follows java.util.regex.Matcher: $n and ${name} insert groups and a
// backslash escapes the next character; a bad reference is a plan-time
// error at the replacement (Java would only fail on the first match).
//
// Only the replaced columns are rebuilt; the others are shared with the
// input batch, and so are the null vectors of the replaced ones.
package replace

import (
	"regexp"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() { connectors.RegisterTransform(Factory) }

// Factory makes Replace transforms.
var Factory = connectors.TransformFactory{
	Name: "Replace",
	Options: []config.Option{
		{Key: "replace_fields", Type: config.TypeStrings, Fallbacks: []string{"replace_field"}, Required: true,
			Doc: "the string fields to change (replace_field: one field)"},
		{Key: "pattern", Type: config.TypeString, Required: true, Doc: "the text (or regular expression) to replace"},
		{Key: "replacement", Type: config.TypeString, Required: true, Template: true, Doc: "what replaces each match (${name}: a named group)"},
		{Key: "is_regex", Type: config.TypeBool, Default: false, Doc: "pattern is a regular expression"},
		{Key: "replace_first", Type: config.TypeBool, Default: false, Doc: "with is_regex, replace only the first match"},
	},
	Create: create,
}

type replacer struct {
	schema *row.Schema
	fields []int // the replaced columns
	// replace is the per-value function: literal, regex all or regex first.
	replace func(string) string
}

var _ connectors.Transform = (*replacer)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	key := "replace_fields"
	if cfg.Lookup(key) == nil {
		key = "replace_field"
	} else if cfg.Lookup("replace_field") != nil {
		return nil, cfg.Errorf("replace_field", "set either replace_field or replace_fields, not both")
	}
	names := cfg.Strings("replace_fields")
	if len(names) == 0 {
		return nil, cfg.Errorf(key, "must name at least one field")
	}
	r := &replacer{schema: input}
	for _, name := range names {
		j := input.Index(name)
		if j < 0 {
			return nil, cfg.Errorf(key, "field %q is not in table %s (fields: %s)", name, input.TableID, strings.Join(input.Names(), ", "))
		}
		if t := input.Fields[j].Type; t.ID != row.TypeString {
			return nil, cfg.Errorf(key, "field %q is %s; Replace works on string fields only", name, t)
		}
		r.fields = append(r.fields, j)
	}
	pattern, replacement := cfg.String("pattern"), cfg.String("replacement")
	if !cfg.Bool("is_regex") {
		r.replace = func(s string) string { return strings.ReplaceAll(s, pattern, replacement) }
		return r, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, cfg.Errorf("pattern", "not a regular expression Go can compile: %v", err)
	}
	tmpl, err := parseReplacement(replacement, re)
	if err != nil {
		return nil, cfg.Errorf("replacement", "%v", err)
	}
	n := -1
	if cfg.Bool("replace_first") {
		n = 1
	}
	r.replace = func(s string) string { return tmpl.replace(re, s, n) }
	return r, nil
}

func (r *replacer) OutputSchema() *row.Schema { return r.schema }

func (r *replacer) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	cols := make([]*row.Column, len(b.Cols))
	copy(cols, b.Cols)
	for _, j := range r.fields {
		in := cols[j] // a field listed twice is replaced twice, as in SeaTunnel
		out := &row.Column{Type: in.Type, Nulls: in.Nulls, Strs: make([]string, in.Len())}
		for i := range out.Strs {
			if !in.IsNull(i) {
				out.Strs[i] = r.replace(in.Str(i))
			}
		}
		cols[j] = out
	}
	return b.WithColumns(r.schema, cols), nil
}
