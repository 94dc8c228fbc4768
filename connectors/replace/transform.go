// Package replace is SeaTunnel's Replace transform: in the string field
// replace_field it replaces every occurrence of pattern by replacement —
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
// Only the replaced column is rebuilt; the others are shared with the input
// batch, and so is the null vector of the replaced one.
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
		{Key: "replace_field", Type: config.TypeString, Required: true, Doc: "the string field to change"},
		{Key: "pattern", Type: config.TypeString, Required: true, Doc: "the text (or regular expression) to replace"},
		{Key: "replacement", Type: config.TypeString, Required: true, Doc: "what replaces each match"},
		{Key: "is_regex", Type: config.TypeBool, Default: false, Doc: "pattern is a regular expression"},
		{Key: "replace_first", Type: config.TypeBool, Default: false, Doc: "with is_regex, replace only the first match"},
	},
	Create: create,
}

type replacer struct {
	schema *row.Schema
	field  int
	// replace is the per-value function: literal, regex all or regex first.
	replace func(string) string
}

var _ connectors.Transform = (*replacer)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	name := cfg.String("replace_field")
	j := input.Index(name)
	if j < 0 {
		return nil, cfg.Errorf("replace_field", "field %q is not in table %s (fields: %s)", name, input.TableID, strings.Join(input.Names(), ", "))
	}
	if t := input.Fields[j].Type; t.ID != row.TypeString {
		return nil, cfg.Errorf("replace_field", "field %q is %s; Replace works on string fields only", name, t)
	}
	pattern, replacement := cfg.String("pattern"), cfg.String("replacement")
	r := &replacer{schema: input, field: j}
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
	in := b.Cols[r.field]
	out := &row.Column{Type: in.Type, Nulls: in.Nulls, Strs: make([]string, len(in.Strs))}
	for i, s := range in.Strs {
		if !in.IsNull(i) {
			out.Strs[i] = r.replace(s)
		}
	}
	cols := make([]*row.Column, len(b.Cols))
	copy(cols, b.Cols)
	cols[r.field] = out
	return b.WithColumns(r.schema, cols), nil
}
