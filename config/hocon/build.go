package hocon

import "strings"

// Building turns the syntax tree into one tree of nodes, applying the
// assignments in source order: objects for the same key merge, other
// values replace, `a.b = 1` means `a { b = 1 }`, `+=` appends, and a
// substitution of the field being defined (`path = ${path}":/x"`) is
// bound to the value the field had before. Other substitutions stay in
// the tree and are resolved afterwards (substitute.go), when the whole
// document is known.
//
// In an object that Options.KeepDuplicates keeps (node.keep), a
// `Key { ... }` or `Key = { ... }` adds a new field instead of merging;
// the index then points at the newest field of that key, so everything
// else that names the key (paths, +=, other values, substitutions)
// applies to that last one.

type nodeKind int

const (
	nScalar nodeKind = iota // a literal; val holds it
	nSpace                  // whitespace between the parts of a concatenation
	nQuoted                 // a quoted string with ${...} to replace (Options.SubstituteInQuoted)
	nObject
	nArray
	nSubst  // ${...}
	nConcat // a value concatenation; items are its parts
	nMerge  // earlier and later values of one key whose merge waits for resolution
)

type node struct {
	kind   nodeKind
	pos    Pos
	val    *Value // nScalar
	text   string // nSpace, nQuoted
	fields []*nfield
	index  map[string]*nfield // nObject: the last field of each key
	keep   bool               // nObject: Options.KeepDuplicates holds for its path
	items  []*node            // nArray elements, nConcat parts, nMerge values (earliest first)
	sub    *substExpr
	base   *node // nSubst of the field's own earlier value: look up sub.path[skip:] in base
	skip   int
	noDoc  bool // nSubst of the field itself with no earlier value: skip the document
}

type nfield struct {
	key    string
	keyPos Pos
	node   *node
}

func newObjectNode(pos Pos) *node {
	return &node{kind: nObject, pos: pos, index: map[string]*nfield{}}
}

// set gives the (last) field of key the value v, adding the field if
// there is none.
func (n *node) set(key string, keyPos Pos, v *node) {
	if f := n.index[key]; f != nil {
		f.node, f.keyPos = v, keyPos
		return
	}
	n.add(key, keyPos, v)
}

// add appends a field even if the key is already there; it becomes the
// field that set, descend and lookups find.
func (n *node) add(key string, keyPos Pos, v *node) {
	f := &nfield{key: key, keyPos: keyPos, node: v}
	n.fields = append(n.fields, f)
	n.index[key] = f
}

// unresolved reports whether the node's kind is only known after
// substitutions are resolved.
func (n *node) unresolved() bool {
	return n.kind == nSubst || n.kind == nConcat || n.kind == nMerge
}

// objectTarget returns the object node that later fields for the same
// key can be merged into directly, or nil.
func objectTarget(n *node) *node {
	switch n.kind {
	case nObject:
		return n
	case nMerge:
		if last := n.items[len(n.items)-1]; last.kind == nObject {
			return last
		}
	}
	return nil
}

// mergeNodes records that later is merged over earlier once resolved.
func mergeNodes(earlier, later *node) *node {
	items := []*node{earlier, later}
	if earlier.kind == nMerge {
		items = append(append(make([]*node, 0, len(earlier.items)+1), earlier.items...), later)
	}
	return &node{kind: nMerge, pos: earlier.pos, items: items}
}

type builder struct {
	opts *Options
}

// newObject makes the object node for path (the whole path from the
// root; only meaningful when track is set, so objects inside arrays are
// never kept).
func (b *builder) newObject(pos Pos, path []string, track bool) *node {
	n := newObjectNode(pos)
	if track && b.opts.KeepDuplicates != nil {
		// Capped, so a callback that keeps and appends to it cannot
		// overwrite the builder's later path elements.
		n.keep = b.opts.KeepDuplicates(path[:len(path):len(path)])
	}
	return n
}

// object applies the entries of o to target. path is target's path from
// the root; track is false inside arrays, where self-references make no
// sense.
func (b *builder) object(o *astObject, target *node, path []string, track bool) {
	for _, e := range o.entries {
		if e.include != nil {
			b.object(e.include, target, path, track)
			continue
		}
		var full []string
		if track {
			full = make([]string, 0, len(path)+len(e.key))
			full = append(full, path...)
		}
		cur := target
		for _, seg := range e.key[:len(e.key)-1] {
			if track {
				full = append(full, seg.name)
			}
			cur = b.descend(cur, seg, full, track)
		}
		last := e.key[len(e.key)-1]
		if track {
			full = append(full, last.name)
		}
		b.assign(cur, last, e, full, track)
	}
}

// descend returns the object under key seg of cur to assign into,
// creating it (a.b = 1 creates a) or replacing a non-object. path ends
// with seg. Of repeated keys kept by Options.KeepDuplicates it takes the
// last.
func (b *builder) descend(cur *node, seg keySeg, path []string, track bool) *node {
	f := cur.index[seg.name]
	if f == nil {
		obj := b.newObject(seg.pos, path, track)
		cur.set(seg.name, seg.pos, obj)
		return obj
	}
	if t := objectTarget(f.node); t != nil {
		return t
	}
	obj := b.newObject(seg.pos, path, track)
	if f.node.unresolved() {
		f.node = mergeNodes(f.node, obj)
	} else {
		f.node, f.keyPos = obj, seg.pos
	}
	return obj
}

func (b *builder) assign(cur *node, seg keySeg, e *astEntry, path []string, track bool) {
	var old *node
	if f := cur.index[seg.name]; f != nil {
		old = f.node
	}
	if e.append {
		item, _ := b.value(e.value, nil, false, nil)
		arr := &node{kind: nArray, pos: e.value.pos, items: []*node{item}}
		if old == nil {
			cur.set(seg.name, seg.pos, arr)
		} else {
			cur.set(seg.name, seg.pos, &node{kind: nConcat, pos: old.pos, items: []*node{old, arr}})
		}
		return
	}
	if obj := e.value.singleObject(); obj != nil {
		if cur.keep {
			// Key { ... } in a kept object: a field of its own.
			n := b.newObject(e.value.pos, path, track)
			cur.add(seg.name, seg.pos, n)
			b.object(obj, n, path, track)
			return
		}
		if old != nil {
			if t := objectTarget(old); t != nil {
				b.object(obj, t, path, track)
				return
			}
		}
		n := b.newObject(e.value.pos, path, track)
		if old != nil && old.unresolved() {
			cur.set(seg.name, seg.pos, mergeNodes(old, n))
		} else {
			cur.set(seg.name, seg.pos, n)
		}
		b.object(obj, n, path, track)
		return
	}
	n, usedOld := b.value(e.value, path, track, old)
	if old != nil && !usedOld && n.unresolved() {
		// a = 10 then a = ${?A}: if A is undefined a stays 10; if the
		// substitution turns out to be an object it merges with old.
		n = mergeNodes(old, n)
	}
	cur.set(seg.name, seg.pos, n)
}

// value converts a value concatenation to a node. path and old are the
// field being assigned and its earlier value, for self-references; the
// second result reports whether old was used.
func (b *builder) value(v *astValue, path []string, track bool, old *node) (*node, bool) {
	used := false
	if len(v.pieces) == 1 {
		return b.piece(&v.pieces[0], path, track, old, &used), used
	}
	parts := make([]*node, len(v.pieces))
	for i := range v.pieces {
		parts[i] = b.piece(&v.pieces[i], path, track, old, &used)
	}
	return &node{kind: nConcat, pos: v.pos, items: parts}, used
}

func (b *builder) piece(pc *piece, path []string, track bool, old *node, used *bool) *node {
	switch pc.kind {
	case pSpace:
		return &node{kind: nSpace, pos: pc.pos, text: pc.text}
	case pUnquoted:
		return &node{kind: nScalar, pos: pc.pos, val: classify(pc.text, pc.pos)}
	case pQuoted:
		if b.opts.SubstituteInQuoted && strings.Contains(pc.text, "${") {
			return &node{kind: nQuoted, pos: pc.pos, text: pc.text}
		}
		return &node{kind: nScalar, pos: pc.pos, val: &Value{Kind: String, Pos: pc.pos, Text: pc.text, Quoted: true}}
	case pSubst:
		s := pc.sub
		if track && hasPrefix(s.path, path) {
			if old == nil {
				// Nothing earlier to refer to: only a variable can fill it.
				return &node{kind: nSubst, pos: pc.pos, sub: s, noDoc: true}
			}
			*used = true
			if len(s.path) == len(path) {
				return old
			}
			return &node{kind: nSubst, pos: pc.pos, sub: s, base: old, skip: len(path)}
		}
		return &node{kind: nSubst, pos: pc.pos, sub: s}
	case pObject:
		n := b.newObject(pc.pos, path, track)
		b.object(pc.obj, n, path, track)
		return n
	default: // pArray
		n := &node{kind: nArray, pos: pc.pos, items: make([]*node, 0, len(pc.arr.items))}
		for _, it := range pc.arr.items {
			x, _ := b.value(it, nil, false, nil)
			n.items = append(n.items, x)
		}
		return n
	}
}

func hasPrefix(p, prefix []string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}
