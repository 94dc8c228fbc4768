package hocon

import (
	"strings"
)

// Resolution turns the node tree into Values. A substitution ${path}
// looks up path in the document (from the root, seeing the final,
// merged values), then asks Options.Resolve, then uses a SeaTunnel
// default (${name:default}); ${?path} may stay undefined, which drops
// the field or array element it is the whole value of. Values are
// memoized per node, and a node met again while it is being resolved is
// a cycle.
//
// Objects kept by Options.KeepDuplicates may repeat a key: a lookup
// takes its last field, and an object merged over an earlier value keeps
// each of its object fields as a field of its own (see combine).

const (
	maxResolveDepth = 10000   // nested resolutions (chains of substitutions)
	maxValues       = 1 << 20 // values created while resolving
	maxBytes        = 1 << 26 // bytes of strings built by concatenation
	maxValueDepth   = 10000   // nesting of the result
)

type resolver struct {
	opts   *Options
	root   *node
	memo   map[*node]*Value
	undef  map[*node]bool
	active map[*node]bool
	kept   map[*Value]bool // objects of kept nodes (node.keep), and merges over them
	depth  int
	values int
	bytes  int
}

func newResolver(opts *Options, root *node) *resolver {
	return &resolver{
		opts:   opts,
		root:   root,
		memo:   map[*node]*Value{},
		undef:  map[*node]bool{},
		active: map[*node]bool{},
		kept:   map[*Value]bool{},
	}
}

func (r *resolver) spend(pos Pos, values, bytes int) *Error {
	r.values += values
	r.bytes += bytes
	if r.values > maxValues || r.bytes > maxBytes {
		return errorf(pos, "document is too large after substitution (more than %d values or %d bytes)", maxValues, maxBytes)
	}
	return nil
}

// resolve returns the value of n, or nil if n is undefined (an optional
// substitution that found nothing).
func (r *resolver) resolve(n *node) (*Value, *Error) {
	switch n.kind {
	case nScalar:
		return n.val, nil
	case nSpace:
		return &Value{Kind: String, Pos: n.pos, Text: n.text}, nil
	}
	if v, ok := r.memo[n]; ok {
		return v, nil
	}
	if r.undef[n] {
		return nil, nil
	}
	if r.active[n] {
		return nil, errorf(n.pos, "value depends on itself (cycle)")
	}
	if r.depth >= maxResolveDepth {
		return nil, errorf(n.pos, "substitutions are nested too deeply (more than %d)", maxResolveDepth)
	}
	r.depth++
	r.active[n] = true
	var v *Value
	var err *Error
	switch n.kind {
	case nObject:
		v, err = r.object(n)
	case nArray:
		v, err = r.array(n)
	case nSubst:
		v, err = r.subst(n)
	case nConcat:
		v, err = r.concat(n)
	case nMerge:
		v, err = r.merge(n)
	case nQuoted:
		v, err = r.quoted(n)
	}
	delete(r.active, n)
	r.depth--
	if err != nil {
		return nil, err
	}
	if v == nil {
		r.undef[n] = true
	} else {
		r.memo[n] = v
	}
	return v, nil
}

func (r *resolver) object(n *node) (*Value, *Error) {
	v := &Value{Kind: Object, Pos: n.pos, Fields: make([]*Field, 0, len(n.fields))}
	if err := r.spend(n.pos, 1+len(n.fields), 0); err != nil {
		return nil, err
	}
	if n.keep {
		r.kept[v] = true
	}
	for _, f := range n.fields {
		fv, err := r.resolve(f.node)
		if err != nil {
			return nil, err
		}
		if fv != nil {
			v.Fields = append(v.Fields, &Field{Key: f.key, KeyPos: f.keyPos, Value: fv})
		}
	}
	return v, nil
}

func (r *resolver) array(n *node) (*Value, *Error) {
	v := &Value{Kind: Array, Pos: n.pos, Items: make([]*Value, 0, len(n.items))}
	if err := r.spend(n.pos, 1+len(n.items), 0); err != nil {
		return nil, err
	}
	for _, it := range n.items {
		iv, err := r.resolve(it)
		if err != nil {
			return nil, err
		}
		if iv != nil {
			v.Items = append(v.Items, iv)
		}
	}
	return v, nil
}

// subst resolves ${...}: the document, then Options.Resolve, then the
// default; an optional one may be undefined.
func (r *resolver) subst(n *node) (*Value, *Error) {
	s := n.sub
	var v *Value
	var err *Error
	switch {
	case n.base != nil:
		v, err = r.lookup(n.base, s.path[n.skip:], n)
	case !n.noDoc:
		v, err = r.lookup(r.root, s.path, n)
	}
	if err != nil {
		return nil, err
	}
	if v != nil {
		c := *v // the value as it is used here starts at the substitution
		c.Pos = n.pos
		return &c, nil
	}
	if r.opts.Resolve != nil {
		if text, ok := r.opts.Resolve(s.name); ok {
			return classify(text, n.pos), nil
		}
	}
	if s.hasDef {
		if s.defQuoted {
			return &Value{Kind: String, Pos: n.pos, Text: s.def, Quoted: true}, nil
		}
		return classify(s.def, n.pos), nil
	}
	if s.optional {
		return nil, nil
	}
	where := "no such path in the document"
	if n.noDoc {
		where = "it refers to the field being defined, which has no earlier value"
	}
	if r.opts.Resolve != nil {
		where += " and no variable of that name"
	}
	return nil, errorf(n.pos, "unresolved substitution %s: %s", s.text, where)
}

// lookup finds path below base, resolving what it passes through as
// needed. It returns nil if the path does not exist or is undefined.
func (r *resolver) lookup(base *node, path []string, from *node) (*Value, *Error) {
	cur := base
	i := 0
	for ; i < len(path) && cur.kind == nObject; i++ {
		f := cur.index[path[i]]
		if f == nil {
			return nil, nil
		}
		cur = f.node
	}
	if r.active[cur] {
		return nil, errorf(from.pos, "substitution %s is part of a cycle: the value it refers to depends on it", from.sub.text)
	}
	v, err := r.resolve(cur)
	if err != nil {
		return nil, err
	}
	for ; i < len(path) && v != nil; i++ {
		v = lastField(v, path[i])
	}
	return v, nil
}

// lastField is Value.Get, but takes the last of repeated keys, as
// lookups through nodes do.
func lastField(v *Value, key string) *Value {
	if v.Kind != Object {
		return nil
	}
	for i := len(v.Fields) - 1; i >= 0; i-- {
		if f := v.Fields[i]; f.Key == key {
			return f.Value
		}
	}
	return nil
}

// concat joins the parts of a value concatenation: strings (with the
// whitespace between them), or arrays, or objects; not a mix.
func (r *resolver) concat(n *node) (*Value, *Error) {
	type part struct {
		v     *Value
		space string
		pos   Pos
	}
	parts := make([]part, 0, len(n.items))
	for _, it := range n.items {
		if it.kind == nSpace {
			parts = append(parts, part{space: it.text, pos: it.pos})
			continue
		}
		v, err := r.resolve(it)
		if err != nil {
			return nil, err
		}
		if v != nil {
			parts = append(parts, part{v: v, pos: it.pos})
		}
	}
	first, last := -1, -1
	for i, p := range parts {
		if p.v != nil {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, nil // every part was an undefined ${?...}
	}
	if first == last {
		return parts[first].v, nil
	}
	group := func(k Kind) Kind {
		if k == Object || k == Array {
			return k
		}
		return String
	}
	want := group(parts[first].v.Kind)
	for _, p := range parts[first+1 : last+1] {
		if p.v != nil && group(p.v.Kind) != want {
			return nil, errorf(p.pos, "cannot concatenate %s with %s (quote the whole string, or use a comma or newline between values)", article(parts[first].v.Kind), article(p.v.Kind))
		}
	}
	switch want {
	case Object:
		var acc *Value
		for _, p := range parts[first : last+1] {
			if p.v != nil {
				m, err := r.combine(acc, p.v)
				if err != nil {
					return nil, err
				}
				acc = m
			}
		}
		return acc, nil
	case Array:
		v := &Value{Kind: Array, Pos: n.pos}
		for _, p := range parts[first : last+1] {
			if p.v != nil {
				if err := r.spend(p.pos, len(p.v.Items), 0); err != nil {
					return nil, err
				}
				v.Items = append(v.Items, p.v.Items...)
			}
		}
		return v, nil
	}
	var sb strings.Builder
	quoted := false
	for _, p := range parts[first : last+1] {
		if p.v == nil {
			sb.WriteString(p.space)
			continue
		}
		quoted = quoted || p.v.Quoted
		text := p.v.Text
		if p.v.Kind == Null {
			text = "null"
		}
		if err := r.spend(p.pos, 0, len(text)); err != nil {
			return nil, err
		}
		sb.WriteString(text)
	}
	return &Value{Kind: String, Pos: n.pos, Text: sb.String(), Quoted: quoted}, nil
}

func article(k Kind) string {
	switch k {
	case Object:
		return "an object"
	case Array:
		return "an array"
	}
	return "a " + k.String()
}

// merge resolves earlier and later values of one key: objects merge
// (later fields win), anything else replaces, undefined ones are skipped.
func (r *resolver) merge(n *node) (*Value, *Error) {
	var acc *Value
	for _, it := range n.items {
		v, err := r.resolve(it)
		if err != nil {
			return nil, err
		}
		if acc, err = r.combine(acc, v); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// combine merges later over earlier without changing either. A later
// field merges into, or replaces, the last earlier field of its key. If
// later is a kept object (Options.KeepDuplicates), its object fields are
// added as fields of their own instead, as its `Key { ... }` fields
// would have been had it been written out in place.
func (r *resolver) combine(earlier, later *Value) (*Value, *Error) {
	if earlier == nil {
		return later, nil
	}
	if later == nil {
		return earlier, nil
	}
	if earlier.Kind != Object || later.Kind != Object {
		return later, nil
	}
	if err := r.spend(later.Pos, 1+len(earlier.Fields)+len(later.Fields), 0); err != nil {
		return nil, err
	}
	m := &Value{Kind: Object, Pos: earlier.Pos, Fields: make([]*Field, 0, len(earlier.Fields)+len(later.Fields))}
	keep := r.kept[later]
	if keep {
		r.kept[m] = true
	}
	index := make(map[string]*Field, cap(m.Fields))
	for _, f := range earlier.Fields {
		c := *f
		m.Fields = append(m.Fields, &c)
		index[f.Key] = &c
	}
	for _, f := range later.Fields {
		e := index[f.Key]
		if e == nil || keep && f.Value.Kind == Object {
			c := *f
			m.Fields = append(m.Fields, &c)
			index[f.Key] = &c
			continue
		}
		if e.Value.Kind == Object && f.Value.Kind == Object {
			v, err := r.combine(e.Value, f.Value)
			if err != nil {
				return nil, err
			}
			e.Value = v
			continue
		}
		e.Value, e.KeyPos = f.Value, f.KeyPos
	}
	return m, nil
}

// quoted replaces ${name} and ${name:default} inside a quoted string
// (Options.SubstituteInQuoted), the way SeaTunnel substitutes variables:
// from the document, then Options.Resolve, then the default. Anything
// it cannot resolve stays as written.
func (r *resolver) quoted(n *node) (*Value, *Error) {
	s := n.text
	var sb strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			sb.WriteString(s[i:])
			break
		}
		sb.WriteString(s[i : i+j])
		i += j
		end := strings.IndexByte(s[i+2:], '}')
		if end >= 0 {
			if text, ok := r.quotedVar(s[i+2 : i+2+end]); ok {
				if err := r.spend(n.pos, 0, len(text)); err != nil {
					return nil, err
				}
				sb.WriteString(text)
				i += 2 + end + 1
				continue
			}
		}
		sb.WriteString("${")
		i += 2
	}
	return &Value{Kind: String, Pos: n.pos, Text: sb.String(), Quoted: true}, nil
}

func (r *resolver) quotedVar(inner string) (string, bool) {
	name, def, hasDef := strings.Cut(inner, ":")
	name = strings.TrimFunc(name, isSpace)
	if name == "" || strings.ContainsAny(name, "{$\"") {
		return "", false
	}
	if path, msg := parsePath(name); msg == "" {
		if v, err := r.lookup(r.root, path, &node{pos: Pos{}, sub: &substExpr{text: "${" + inner + "}"}}); err == nil && v != nil {
			return v.String(), true
		}
	}
	if r.opts.Resolve != nil {
		if text, ok := r.opts.Resolve(name); ok {
			return text, true
		}
	}
	if hasDef {
		def = strings.TrimFunc(def, isSpace)
		if len(def) >= 2 && def[0] == '"' && def[len(def)-1] == '"' {
			def = def[1 : len(def)-1]
		}
		return def, true
	}
	return "", false
}

// finish copies the resolved tree so that no Value, Field or slice is
// shared between two places of the result.
func (r *resolver) finish(v *Value, depth int) (*Value, *Error) {
	if depth > maxValueDepth {
		return nil, errorf(v.Pos, "value is nested too deeply (more than %d levels)", maxValueDepth)
	}
	if err := r.spend(v.Pos, 1, 0); err != nil {
		return nil, err
	}
	c := &Value{Kind: v.Kind, Pos: v.Pos, Text: v.Text, Quoted: v.Quoted}
	switch v.Kind {
	case Object:
		c.Fields = make([]*Field, len(v.Fields))
		for i, f := range v.Fields {
			fv, err := r.finish(f.Value, depth+1)
			if err != nil {
				return nil, err
			}
			c.Fields[i] = &Field{Key: f.Key, KeyPos: f.KeyPos, Value: fv}
		}
	case Array:
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			iv, err := r.finish(it, depth+1)
			if err != nil {
				return nil, err
			}
			c.Items[i] = iv
		}
	}
	return c, nil
}
