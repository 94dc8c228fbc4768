package sqlengine

import (
	"strings"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// x [NOT] LIKE pattern [ESCAPE c]: % matches any run of characters, _ one
// character, case-sensitively. SeaTunnel turns a pattern into a Java regex
// and only rewrites % and _ at its ends; stactor implements LIKE as SQL
// defines it, which agrees with SeaTunnel on such patterns. A NULL operand
// gives NULL (for NOT LIKE too), which a WHERE treats as false, as
// SeaTunnel does.

type likeKind uint8

const (
	likeLit  likeKind = iota // a literal run
	likeOne                  // _
	likeMany                 // %
)

type likeTok struct {
	kind likeKind
	s    string
}

// likePattern is a compiled pattern with a fast path for the usual shapes.
type likePattern struct {
	toks   []likeTok
	shape  uint8 // 0 general, 1 exact, 2 prefix%, 3 %suffix, 4 %infix%
	lit    string
	hasOne bool // has a _
}

func compileLike(p string, esc rune) *likePattern {
	var toks []likeTok
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeTok{kind: likeLit, s: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch {
		case esc != 0 && r == esc && i < len(p):
			r2, s2 := utf8.DecodeRuneInString(p[i:])
			i += s2
			lit.WriteRune(r2)
		case r == '%':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != likeMany {
				toks = append(toks, likeTok{kind: likeMany})
			}
		case r == '_':
			flush()
			toks = append(toks, likeTok{kind: likeOne})
		default:
			lit.WriteRune(r)
		}
	}
	flush()
	lp := &likePattern{toks: toks}
	for _, t := range toks {
		if t.kind == likeOne {
			lp.hasOne = true
		}
	}
	switch {
	case len(toks) == 0:
		lp.shape, lp.lit = 1, ""
	case len(toks) == 1 && toks[0].kind == likeLit:
		lp.shape, lp.lit = 1, toks[0].s
	case len(toks) == 2 && toks[0].kind == likeLit && toks[1].kind == likeMany:
		lp.shape, lp.lit = 2, toks[0].s
	case len(toks) == 2 && toks[0].kind == likeMany && toks[1].kind == likeLit:
		lp.shape, lp.lit = 3, toks[1].s
	case len(toks) == 3 && toks[0].kind == likeMany && toks[1].kind == likeLit && toks[2].kind == likeMany:
		lp.shape, lp.lit = 4, toks[1].s
	}
	return lp
}

func (p *likePattern) match(s string) bool {
	switch p.shape {
	case 1:
		return s == p.lit
	case 2:
		return strings.HasPrefix(s, p.lit)
	case 3:
		return strings.HasSuffix(s, p.lit)
	case 4:
		return strings.Contains(s, p.lit)
	}
	if !p.hasOne {
		return p.matchSegments(s)
	}
	// Greedy matching with backtracking to the last %.
	toks := p.toks
	si, pi := 0, 0
	starPi, starSi := -1, 0
	for si < len(s) {
		if pi < len(toks) {
			switch t := toks[pi]; t.kind {
			case likeLit:
				if strings.HasPrefix(s[si:], t.s) {
					si += len(t.s)
					pi++
					continue
				}
			case likeOne:
				_, size := utf8.DecodeRuneInString(s[si:])
				si += size
				pi++
				continue
			case likeMany:
				starPi, starSi = pi, si
				pi++
				continue
			}
		}
		if starPi < 0 {
			return false
		}
		_, size := utf8.DecodeRuneInString(s[starSi:])
		starSi += size
		si = starSi
		pi = starPi + 1
	}
	for pi < len(toks) && toks[pi].kind == likeMany {
		pi++
	}
	return pi == len(toks)
}

// matchSegments matches a pattern of literals and % only: the literals
// must appear in order, the first at the start unless the pattern starts
// with %, the last at the end unless it ends with %. Taking each literal
// at its leftmost place is optimal, so this is linear in practice.
func (p *likePattern) matchSegments(s string) bool {
	toks := p.toks
	if len(toks) == 0 {
		return s == ""
	}
	if toks[0].kind == likeLit {
		if !strings.HasPrefix(s, toks[0].s) {
			return false
		}
		s = s[len(toks[0].s):]
		toks = toks[1:]
		if len(toks) == 0 {
			return s == ""
		}
	}
	last := toks[len(toks)-1]
	if last.kind == likeLit {
		if !strings.HasSuffix(s, last.s) {
			return false
		}
		s = s[:len(s)-len(last.s)]
		toks = toks[:len(toks)-1]
	}
	// What is left starts with % and ends with % (or is empty).
	for _, t := range toks {
		if t.kind != likeLit {
			continue
		}
		i := strings.Index(s, t.s)
		if i < 0 {
			return false
		}
		s = s[i+len(t.s):]
	}
	return true
}

type likeEval struct {
	exprBase
	x, pat evaluator
	esc    rune
	not    bool
	fixed  *likePattern // when the pattern is a constant
	last   string       // the last non-constant pattern, compiled in lastP
	lastP  *likePattern
}

func (c *compiler) like(n *likeNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	pat, err := c.expr(n.pattern)
	if err != nil {
		return nil, err
	}
	for _, side := range []struct {
		e evaluator
		n node
	}{{x, n.x}, {pat, n.pattern}} {
		if t := typeOf(side.e); t.ID != row.TypeString && t.ID != row.TypeNull {
			return nil, errAt(side.n.pos(), "type mismatch: LIKE needs strings, got %s %s", t, render(side.n))
		}
	}
	e := &likeEval{x: x, pat: pat, not: n.not}
	if n.escape != nil {
		esc, err := c.expr(n.escape)
		if err != nil {
			return nil, err
		}
		k, ok := asConst(esc)
		if !ok || typeOf(esc).ID != row.TypeString || utf8.RuneCountInString(k.v.s) != 1 {
			return nil, errAt(n.escape.pos(), "ESCAPE must be a string of one character")
		}
		e.esc, _ = utf8.DecodeRuneInString(k.v.s)
	}
	if k, ok := asConst(pat); ok && !k.v.null {
		e.fixed = compileLike(k.v.s, e.esc)
	}
	e.t, e.src = row.Boolean, n
	e.derive(x, pat)
	return c.add(e), nil
}

func (e *likeEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, n)
	o := out.Bools[:n]
	if e.fixed != nil && x.Type.ID == row.TypeString {
		p := e.fixed
		for i, s := range x.Strs[:n] {
			o[i] = p.match(s) != e.not
		}
		if x.Nulls != nil {
			nb := e.out.nullsOf(out, n)
			copy(nb, x.Nulls[:n])
			for i, isN := range nb {
				if isN {
					o[i] = false
				}
			}
		}
		return out, nil
	}
	pat, err := e.pat.eval(c)
	if err != nil {
		return nil, err
	}
	for i := range o {
		if isNull(x, i) || isNull(pat, i) {
			o[i] = false
			e.out.nullsOf(out, n)[i] = true
			continue
		}
		ps := pat.Strs[i]
		if e.lastP == nil || ps != e.last {
			e.last, e.lastP = ps, compileLike(ps, e.esc)
		}
		o[i] = e.lastP.match(x.Strs[i]) != e.not
	}
	return out, nil
}
