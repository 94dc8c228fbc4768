package harness

import "strings"

// Table is a Markdown table, also readable as plain text on a terminal.
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// String renders the table with its columns padded to equal width.
func (t *Table) String() string {
	w := make([]int, len(t.Header))
	for j, h := range t.Header {
		w[j] = len([]rune(h))
	}
	for _, r := range t.Rows {
		for j, c := range r {
			if j < len(w) && len([]rune(c)) > w[j] {
				w[j] = len([]rune(c))
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for j := range w {
			c := ""
			if j < len(cells) {
				c = cells[j]
			}
			b.WriteString(" " + c + strings.Repeat(" ", w[j]-len([]rune(c))) + " |")
		}
		b.WriteString("\n")
	}
	line(t.Header)
	sep := make([]string, len(w))
	for j := range w {
		sep[j] = strings.Repeat("-", w[j])
	}
	line(sep)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}
