package tap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Printer writes tapped rows as stactor tap shows them: "table", aligned
// columns under a header repeated whenever the vertex or the table's
// fields change, or "json", one object per row:
//
//	{"vertex":"Source[0]-FakeSource","subtask":0,"table":"fake","kind":"INSERT","row":{"id":1,"name":"a"}}
type Printer struct {
	w      io.Writer
	json   bool
	header string // of the rows printed last (table)
}

// NewPrinter writes to w in format "table" or "json".
func NewPrinter(w io.Writer, format string) (*Printer, error) {
	switch format {
	case "table", "":
		return &Printer{w: w}, nil
	case "json":
		return &Printer{w: w, json: true}, nil
	}
	return nil, fmt.Errorf("--format %q: want table or json", format)
}

// Print writes up to limit rows of m (limit < 0: all) and says how many
// it wrote.
func (p *Printer) Print(m *Message, limit int) (int, error) {
	rows := m.Rows
	if limit >= 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	if len(rows) == 0 {
		return 0, nil
	}
	var buf bytes.Buffer
	if p.json {
		for _, r := range rows {
			buf.WriteString(`{"vertex":`)
			writeJSON(&buf, m.Name)
			buf.WriteString(`,"subtask":` + strconv.Itoa(int(m.Subtask)) + `,"table":`)
			writeJSON(&buf, m.Table)
			buf.WriteString(`,"kind":`)
			writeJSON(&buf, r.Kind)
			buf.WriteString(`,"row":{`)
			for j, v := range r.Values {
				if j > 0 {
					buf.WriteByte(',')
				}
				name := strconv.Itoa(j)
				if j < len(m.Fields) {
					name = m.Fields[j]
				}
				writeJSON(&buf, name)
				buf.WriteByte(':')
				writeJSON(&buf, v)
			}
			buf.WriteString("}}\n")
		}
		_, err := p.w.Write(buf.Bytes())
		return len(rows), err
	}
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	header := "VERTEX\tSUBTASK\tTABLE\tKIND\t" + strings.Join(m.Fields, "\t")
	if header != p.header {
		if p.header != "" {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, header)
		p.header = header
	}
	for _, r := range rows {
		cells := make([]string, len(r.Values))
		for j, v := range r.Values {
			cells[j] = cell(v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", m.Name, m.Subtask, m.Table, r.Kind, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	_, err := p.w.Write(buf.Bytes())
	return len(rows), err
}

func writeJSON(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	buf.Write(b)
}

// cell is a value in the table format: null as null, tabs and newlines
// escaped so a row stays one line.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
