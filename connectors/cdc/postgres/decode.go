package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pglogrepl"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

// maxEventRows cuts a long run of one table's changes into events.
const maxEventRows = 1024

// capTable is a captured table with what decoding its changes needs.
type capTable struct {
	t      *cdc.Table
	jt     *jdbc.Table
	decs   []jdbc.Decoder
	oids   []uint32
	schema string
	name   string
}

// decoder turns pgoutput messages (protocol version 1) into cdc events.
// A transaction's offset (Event.Tx) is the LSN of its commit record
// (Begin's FinalLSN): a slot started at an LSN sends the transactions
// whose commit is at or after it.
type decoder struct {
	tables []*capTable
	rels   map[uint32]int // relation id: table index, -1 for tables not captured
	inTx   bool
	tx     pglogrepl.LSN
	seq    int64
	cur    int // table of the builder, -1 none
	b      *row.Builder
	first  int64 // seq of the builder's first row
	vals   []byte
	// follow describes table ti anew when a Relation message shows its
	// columns changed (schema-changes.enabled); nil: a change is an
	// error.
	follow func(ti int, m *pglogrepl.RelationMessage) (*capTable, error)
}

func newDecoder(tables []*capTable) *decoder {
	return &decoder{tables: tables, rels: map[uint32]int{}, cur: -1}
}

// feed decodes one message.
func (d *decoder) feed(data []byte, emit func(cdc.Event) error) error {
	m, err := pglogrepl.Parse(data)
	if err != nil {
		return fmt.Errorf("pgoutput message: %w", err)
	}
	switch m := m.(type) {
	case *pglogrepl.RelationMessage:
		return d.relation(m, emit)
	case *pglogrepl.BeginMessage:
		d.inTx, d.tx, d.seq, d.cur = true, m.FinalLSN, 0, -1
	case *pglogrepl.CommitMessage:
		if err := d.flush(emit, false); err != nil {
			return err
		}
		// The end of the transaction, possibly without rows.
		t := 0
		if d.cur >= 0 {
			t = d.cur
		}
		err := emit(cdc.Event{Table: t, Rows: row.NewBatch(d.tables[t].t.Schema, nil, nil), Tx: cdc.Offset(d.tx.String()), Seq: d.seq, End: true})
		d.inTx, d.cur = false, -1
		return err
	case *pglogrepl.InsertMessage:
		return d.change(m.RelationID, emit, func(ti int) error { return d.row(ti, row.Insert, m.Tuple, nil) })
	case *pglogrepl.UpdateMessage:
		return d.change(m.RelationID, emit, func(ti int) error {
			if m.OldTuple == nil || m.OldTupleType != 'O' {
				return fmt.Errorf("table %s: an UPDATE without its old row (set REPLICA IDENTITY FULL: ALTER TABLE %s REPLICA IDENTITY FULL)", d.tables[ti].t.ID, d.tables[ti].jt.Quoted(false))
			}
			if err := d.row(ti, row.UpdateBefore, m.OldTuple, nil); err != nil {
				return err
			}
			return d.row(ti, row.UpdateAfter, m.NewTuple, m.OldTuple)
		})
	case *pglogrepl.DeleteMessage:
		return d.change(m.RelationID, emit, func(ti int) error {
			if m.OldTuple == nil || m.OldTupleType != 'O' {
				return fmt.Errorf("table %s: a DELETE without its old row (set REPLICA IDENTITY FULL: ALTER TABLE %s REPLICA IDENTITY FULL)", d.tables[ti].t.ID, d.tables[ti].jt.Quoted(false))
			}
			return d.row(ti, row.Delete, m.OldTuple, nil)
		})
	case *pglogrepl.TruncateMessage:
		for _, id := range m.RelationIDs {
			if ti, ok := d.rels[id]; ok && ti >= 0 {
				return fmt.Errorf("table %s was truncated at %s; a TRUNCATE has no row changes to carry (restart the job to snapshot it again)", d.tables[ti].t.ID, d.tx)
			}
		}
	}
	return nil
}

// relation maps a relation id to its table and checks its columns are
// the ones the table is decoded with. pgoutput sends a table's Relation
// message before the first change of it in a session and after its
// columns changed; with follow, a change describes the table anew and is
// announced (cdc.Event.Changed) before the rows of the new columns.
func (d *decoder) relation(m *pglogrepl.RelationMessage, emit func(cdc.Event) error) error {
	ti := -1
	for i, t := range d.tables {
		if t.schema == m.Namespace && t.name == m.RelationName {
			ti = i
		}
	}
	d.rels[m.RelationID] = ti
	if ti < 0 {
		return nil
	}
	t := d.tables[ti]
	same := len(m.Columns) == len(t.oids)
	var now []string
	for j, c := range m.Columns {
		now = append(now, c.Name)
		if same && (c.Name != t.t.Schema.Fields[j].Name || c.DataType != t.oids[j]) {
			same = false
		}
	}
	if same {
		return nil
	}
	if d.follow == nil {
		return fmt.Errorf("%w: table %s now has columns (%s), the job was planned with (%s): an ALTER TABLE during the stream is carried into a running job's output schema only with schema-changes.enabled = true (added columns); else start the job anew (not from its checkpoint) to capture the new columns",
			cdc.ErrSchemaChanged, t.t.ID, strings.Join(now, ", "), strings.Join(t.t.Schema.Names(), ", "))
	}
	if d.cur == ti { // rows of the old columns first
		if err := d.flush(emit, false); err != nil {
			return err
		}
		d.cur, d.b = -1, nil
	}
	nt, err := d.follow(ti, m)
	if err != nil {
		return err
	}
	d.tables[ti] = nt
	return emit(cdc.Event{Table: ti, Changed: nt.t, Tx: cdc.Offset(d.tx.String()), Seq: d.seq})
}

// change runs add for a change of a captured table, cutting events by
// table.
func (d *decoder) change(rel uint32, emit func(cdc.Event) error, add func(ti int) error) error {
	ti, ok := d.rels[rel]
	if !ok {
		return fmt.Errorf("pgoutput: a change of relation %d before its Relation message", rel)
	}
	if ti < 0 {
		return nil
	}
	if !d.inTx {
		return fmt.Errorf("pgoutput: a change outside a transaction")
	}
	if d.cur != ti || (d.b != nil && d.b.Len() >= maxEventRows) {
		if err := d.flush(emit, false); err != nil {
			return err
		}
		d.cur, d.b, d.first = ti, row.NewBuilder(d.tables[ti].t.Schema, 64), d.seq
	}
	return add(ti)
}

// row appends a tuple; an unchanged TOAST value comes from old.
func (d *decoder) row(ti int, k row.Kind, tup, old *pglogrepl.TupleData) error {
	t := d.tables[ti]
	if tup == nil || len(tup.Columns) != len(t.decs) {
		return fmt.Errorf("table %s: a row of %d columns, the table has %d", t.t.ID, len(tup.Columns), len(t.decs))
	}
	for j, c := range tup.Columns {
		col := d.b.Col(j)
		data, kind := c.Data, c.DataType
		if kind == 'u' {
			if old == nil || old.Columns[j].DataType == 'u' {
				return fmt.Errorf("table %s column %q: an unchanged TOAST value without its old row (set REPLICA IDENTITY FULL)", t.t.ID, t.t.Schema.Fields[j].Name)
			}
			data, kind = old.Columns[j].Data, old.Columns[j].DataType
		}
		switch kind {
		case 'n':
			col.AppendNull()
		case 't':
			if err := t.decs[j](col, data); err != nil {
				return fmt.Errorf("table %s column %q at %s: %w", t.t.ID, t.t.Schema.Fields[j].Name, d.tx, err)
			}
		default:
			return fmt.Errorf("table %s column %q: value format %q", t.t.ID, t.t.Schema.Fields[j].Name, kind)
		}
	}
	d.b.EndRow(k)
	d.seq++
	return nil
}

// flush emits the builder's rows.
func (d *decoder) flush(emit func(cdc.Event) error, end bool) error {
	if d.b == nil || d.b.Len() == 0 {
		return nil
	}
	b := d.b.Build()
	return emit(cdc.Event{Table: d.cur, Rows: b, Tx: cdc.Offset(d.tx.String()), Seq: d.first, End: end})
}
