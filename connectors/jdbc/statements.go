package jdbc

import (
	"strconv"
	"strings"
)

// insertSQL inserts n rows into t, upserting by t.Key when upsert is set
// (PostgreSQL's ON CONFLICT, MySQL's ON DUPLICATE KEY UPDATE).
func insertSQL(d dialectSQL, t *sinkTable, n int, upsert bool) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(d.table(t.Target))
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(c))
	}
	b.WriteString(") VALUES ")
	p := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for i := range t.Columns {
			if i > 0 {
				b.WriteByte(',')
			}
			p++
			b.WriteString(d.placeholder(p))
		}
		b.WriteByte(')')
	}
	if !upsert || len(t.Key) == 0 {
		return b.String()
	}
	isKey := map[string]bool{}
	for _, k := range t.Key {
		isKey[k] = true
	}
	var sets []string
	for _, c := range t.Columns {
		if isKey[c] {
			continue
		}
		if d.name == dialectMySQL {
			sets = append(sets, d.quote(c)+" = VALUES("+d.quote(c)+")")
		} else {
			sets = append(sets, d.quote(c)+" = EXCLUDED."+d.quote(c))
		}
	}
	if d.name == dialectMySQL {
		if len(sets) == 0 {
			sets = []string{d.quote(t.Key[0]) + " = " + d.quote(t.Key[0])}
		}
		b.WriteString(" ON DUPLICATE KEY UPDATE ")
		b.WriteString(strings.Join(sets, ", "))
		return b.String()
	}
	var ks []string
	for _, k := range t.Key {
		ks = append(ks, d.quote(k))
	}
	b.WriteString(" ON CONFLICT (" + strings.Join(ks, ", ") + ")")
	if len(sets) == 0 {
		b.WriteString(" DO NOTHING")
	} else {
		b.WriteString(" DO UPDATE SET " + strings.Join(sets, ", "))
	}
	return b.String()
}

// deleteSQL deletes n rows of t by key.
func deleteSQL(d dialectSQL, t *sinkTable, n int) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(d.table(t.Target))
	b.WriteString(" WHERE ")
	multi := len(t.Key) > 1
	if multi {
		b.WriteByte('(')
	}
	for i, k := range t.Key {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(k))
	}
	if multi {
		b.WriteByte(')')
	}
	b.WriteString(" IN (")
	p := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		if multi {
			b.WriteByte('(')
		}
		for i := range t.Key {
			if i > 0 {
				b.WriteByte(',')
			}
			p++
			b.WriteString(d.placeholder(p))
		}
		if multi {
			b.WriteByte(')')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// numberPlaceholders turns a custom statement's ? into $1, $2, ... for
// PostgreSQL, leaving quoted text alone.
func numberPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
