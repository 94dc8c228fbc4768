package sqlengine

import (
	"strconv"
	"strings"
)

// render writes an expression the way JSqlParser's toString does. SeaTunnel
// names an unaliased select item by that rendering (`age+1` becomes the
// column "age + 1"), so stactor renders the same to give the same schema.
func render(n node) string {
	var b strings.Builder
	renderTo(&b, n)
	return b.String()
}

func renderList(b *strings.Builder, ns []node) {
	for i, x := range ns {
		if i > 0 {
			b.WriteString(", ")
		}
		renderTo(b, x)
	}
}

func renderTo(b *strings.Builder, n node) {
	switch x := n.(type) {
	case *identNode:
		for i, p := range x.parts {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p.raw)
		}
	case *numberNode:
		b.WriteString(x.raw)
	case *stringNode:
		b.WriteString(x.raw)
	case *boolNode:
		b.WriteString(x.raw)
	case *nullNode:
		b.WriteString("NULL")
	case *typedLitNode:
		b.WriteString(x.kw + " " + x.lit.raw)
	case *unaryNode:
		if x.op == "NOT" {
			b.WriteString("NOT ")
		} else {
			b.WriteString(x.op)
		}
		renderTo(b, x.x)
	case *binaryNode:
		renderTo(b, x.l)
		switch x.op {
		case "AND", "OR":
			b.WriteString(" " + x.op + " ")
		default:
			b.WriteString(" " + x.opRaw + " ")
		}
		renderTo(b, x.r)
	case *isNullNode:
		renderTo(b, x.x)
		if x.not {
			b.WriteString(" IS NOT NULL")
		} else {
			b.WriteString(" IS NULL")
		}
	case *inNode:
		renderTo(b, x.x)
		if x.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		renderList(b, x.list)
		b.WriteString(")")
	case *betweenNode:
		renderTo(b, x.x)
		if x.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		renderTo(b, x.lo)
		b.WriteString(" AND ")
		renderTo(b, x.hi)
	case *likeNode:
		renderTo(b, x.x)
		if x.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" LIKE ")
		renderTo(b, x.pattern)
		if x.escape != nil {
			b.WriteString(" ESCAPE ")
			renderTo(b, x.escape)
		}
	case *caseNode:
		b.WriteString("CASE ")
		if x.operand != nil {
			renderTo(b, x.operand)
			b.WriteByte(' ')
		}
		for i, w := range x.whens {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("WHEN ")
			renderTo(b, w.cond)
			b.WriteString(" THEN ")
			renderTo(b, w.result)
		}
		b.WriteByte(' ')
		if x.els != nil {
			b.WriteString("ELSE ")
			renderTo(b, x.els)
			b.WriteByte(' ')
		}
		b.WriteString("END")
	case *castNode:
		b.WriteString(strings.ToUpper(x.kw) + "(")
		renderTo(b, x.x)
		b.WriteString(" AS " + x.typ.name)
		if len(x.typ.args) > 0 {
			b.WriteString(" (")
			for i, a := range x.typ.args {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Itoa(a))
			}
			b.WriteString(")")
		}
		b.WriteString(")")
	case *callNode:
		b.WriteString(x.name)
		if !x.noParens {
			b.WriteByte('(')
			renderList(b, x.args)
			b.WriteByte(')')
		}
	case *extractNode:
		b.WriteString("EXTRACT(" + x.field + " FROM ")
		renderTo(b, x.x)
		b.WriteByte(')')
	case *trimNode:
		b.WriteString("TRIM(")
		if x.where != "" {
			b.WriteString(x.where + " ")
		}
		if x.chars != nil {
			renderTo(b, x.chars)
			b.WriteByte(' ')
		}
		if x.where != "" || x.chars != nil {
			b.WriteString("FROM ")
		}
		renderTo(b, x.x)
		b.WriteByte(')')
	case *indexNode:
		renderTo(b, x.x)
		b.WriteByte('[')
		renderTo(b, x.index)
		b.WriteByte(']')
	case *parenNode:
		b.WriteByte('(')
		renderTo(b, x.x)
		b.WriteByte(')')
	}
}
