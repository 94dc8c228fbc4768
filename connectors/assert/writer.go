package assert

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// counts is a writer's commit info and state: the rows it has written per
// table since the job started (restored writers start from their state),
// as of checkpoint Checkpoint. Infos are cumulative rather than per
// checkpoint so the committer needs no state of its own: the latest
// combined info is the job's total, and a repeated one counts nothing twice.
type counts struct {
	Checkpoint int64            `json:"checkpoint,omitempty"`
	Rows       map[string]int64 `json:"rows"`
}

func (c counts) encode() []byte {
	b, _ := json.Marshal(c) // a map of strings to numbers always marshals
	return b
}

func decodeCounts(b []byte) (counts, error) {
	var c counts
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("bad Assert row counts %q: %w", b, err)
	}
	if c.Rows == nil {
		c.Rows = map[string]int64{}
	}
	return c, nil
}

// writer checks field rules row by row and counts rows per table.
type writer struct {
	sink    *sink
	task    connectors.TaskInfo
	total   map[string]int64 // rows per table, restored state included
	written map[string]int64 // rows per table written by this instance: row positions in messages
	// bindings are the field rules resolved per batch schema (normally the
	// planned input's, bound again in case a batch carries another layout).
	bindings map[*row.Schema]*binding
}

type binding struct {
	fields  []boundField
	rowType *row.Type // the schema as a row type, to print a failing row
	maxRows []valueRule
}

var _ connectors.Writer = (*writer)(nil)

func (w *writer) bind(s *row.Schema) (*binding, error) {
	if b, ok := w.bindings[s]; ok {
		return b, nil
	}
	if w.bindings == nil {
		w.bindings = map[*row.Schema]*binding{}
	}
	b := &binding{rowType: row.RowOf(s.Fields...)}
	rs := w.sink.rulesFor(s.TableID)
	if rs == nil {
		// a table the plan did not have, and no rules reach it
		w.bindings[s] = b
		return b, nil
	}
	if fr := rs.fieldsFor(s.TableID); fr != nil {
		b.fields = (&parser{cfg: w.sink.cfg}).bind(fr, s)
	}
	if tr := rs.forTable(s.TableID); tr != nil {
		for _, r := range tr.rows {
			if r.typ == ruleMaxRow {
				b.maxRows = append(b.maxRows, r)
			}
		}
	}
	w.bindings[s] = b
	return b, nil
}

// Write checks each row against the field rules of its table and fails at
// the first broken one, naming the rule, the field, the row's position in
// this writer's input and its values.
func (w *writer) Write(b *row.Batch) error {
	table := b.Schema.TableID
	bd, err := w.bind(b.Schema)
	if err != nil {
		return err
	}
	n := b.Len()
	base := w.written[table]
	w.written[table] += int64(n)
	w.total[table] += int64(n)
	for i := 0; i < n; i++ {
		for k := range bd.fields {
			f := &bd.fields[k]
			var v any
			if f.index >= 0 {
				v = b.Cols[f.index].Value(i)
			}
			rule, err := f.check(v)
			if err != nil {
				return &Failure{Msg: fmt.Sprintf("assert rule failed at row %d%s (subtask %d): %v",
					base+int64(i)+1, w.inTable(table), w.task.SubtaskIndex, err)}
			}
			if rule != "" {
				return &Failure{Msg: fmt.Sprintf("assert rule field %q %s failed at row %d%s (subtask %d): value %s; row: %s",
					f.rule.name, rule, base+int64(i)+1, w.inTable(table), w.task.SubtaskIndex,
					row.Text(f.colType, v), row.Text(bd.rowType, b.Row(i)))}
			}
		}
	}
	// This writer alone past MAX_ROW: the total is too, no need to wait
	// for the committer.
	for _, r := range bd.maxRows {
		if float64(w.total[table]) > r.value {
			return &Failure{Msg: fmt.Sprintf("assert rule MAX_ROW %s failed%s: subtask %d alone wrote %d rows",
				strconv.FormatFloat(r.value, 'f', -1, 64), w.inTable(table), w.task.SubtaskIndex, w.total[table])}
		}
	}
	return nil
}

func (w *writer) inTable(table string) string {
	if rs := w.sink.rulesFor(table); w.sink.multi || rs == nil || rs.all == nil {
		return " of table " + table
	}
	return ""
}

// PrepareCommit reports the rows written so far, per table. Nothing is
// prepared outside, so there is nothing to abort.
func (w *writer) PrepareCommit(checkpointID int64) ([]byte, error) {
	return counts{Checkpoint: checkpointID, Rows: clone(w.total)}.encode(), nil
}

// SnapshotState keeps the counts, so a restored writer goes on from them.
func (w *writer) SnapshotState(checkpointID int64) ([][]byte, error) {
	return [][]byte{counts{Rows: clone(w.total)}.encode()}, nil
}

// AbortPrepare has nothing to undo: the next PrepareCommit reports the
// cumulative counts again.
func (w *writer) AbortPrepare() error { return nil }

func (w *writer) Close() error { return nil }

func clone(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
