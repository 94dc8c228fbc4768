package natschan

import (
	"testing"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// A schema-change batch crosses nodes in order with the rows around it,
// and the rows after it decode with the new schema.
func TestSchemaChangeInOrder(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	newReceiver(t, connect(t, s), scope, 1, &c)
	snd := newSender(t, connect(t, s), scope, 4, 1)

	old := scoreBatch(1, 3, 5)
	fields := append(append([]row.Field{}, old.Schema.Fields...), row.Field{Name: "added", Type: &row.Type{ID: row.TypeBigInt}, Nullable: true})
	wider := row.MustSchema(old.Schema.TableID, fields...)
	bl := row.NewBuilder(wider, 1)
	for j, v := range old.Row(0) {
		bl.Col(j).AppendValue(v)
	}
	bl.Col(len(fields) - 1).AppendInt(7)
	bl.EndRow(row.Insert)
	change := &row.SchemaChange{Version: 2, After: wider, Columns: []row.ColumnChange{{Op: row.AddColumn, Field: fields[len(fields)-1], Default: "7", First: true}}}
	sent := []*row.Batch{old, row.NewSchemaChange(change), bl.Build()}
	for i, b := range sent {
		if err := snd.SendBatch(0, int64(i+1), 0, b); err != nil {
			t.Fatal(err)
		}
	}
	got := c.waitMsgs(t, len(sent))
	for i, b := range sent {
		m, ok := got[i].(*messages.Batch)
		if !ok || m.Seq != int64(i+1) {
			t.Fatalf("message %d: %s", i, describe(got[i]))
		}
		if m.Rows.IsSchemaChange() != b.IsSchemaChange() || !row.SameColumns(m.Rows.Schema, b.Schema) {
			t.Fatalf("batch %d: schema change %v of %s, sent %v of %s", i, m.Rows.IsSchemaChange(), m.Rows.Schema, b.IsSchemaChange(), b.Schema)
		}
		if c := m.Rows.SchemaChange(); c != nil && (c.Version != 2 || len(c.Columns) != 1 || c.Columns[0].String() != change.Columns[0].String()) {
			t.Fatalf("batch %d: change %s, sent %s", i, c, change)
		}
		if !b.IsSchemaChange() {
			if err := sameRows(b, m.Rows); err != nil {
				t.Errorf("batch %d: %v", i+1, err)
			}
		}
	}
}
