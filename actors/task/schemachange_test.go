package task

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/copy"
	_ "github.com/stactor/stactor/connectors/filterrowkind"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// probe is a sink that follows schema changes and records what it saw.
var probe struct {
	sync.Mutex // guards the fields
	changes    []*row.SchemaChange
	written    []*row.Schema // each written batch's schema
}

func init() {
	connectors.RegisterSink(connectors.SinkFactory{Name: "SchemaProbe",
		Create: func(*config.PluginConfig, []*row.Schema, []byte, connectors.JobContext) (connectors.Sink, error) {
			return probeSink{}, nil
		}})
}

type probeSink struct{}

func (probeSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return probeWriter{}, nil
}

type probeWriter struct{}

var _ connectors.SchemaChangeWriter = probeWriter{}

func (probeWriter) Write(b *row.Batch) error {
	probe.Lock()
	defer probe.Unlock()
	probe.written = append(probe.written, b.Schema)
	return nil
}
func (probeWriter) ApplySchemaChange(c *row.SchemaChange) error {
	probe.Lock()
	defer probe.Unlock()
	probe.changes = append(probe.changes, c)
	return nil
}
func (probeWriter) PrepareCommit(int64) ([]byte, error)   { return nil, nil }
func (probeWriter) SnapshotState(int64) ([][]byte, error) { return nil, nil }
func (probeWriter) AbortPrepare() error                   { return nil }
func (probeWriter) Close() error                          { return nil }
func resetProbe()                                         { probe.Lock(); probe.changes, probe.written = nil, nil; probe.Unlock() }
func probed() ([]*row.SchemaChange, []*row.Schema) {
	probe.Lock()
	defer probe.Unlock()
	return probe.changes, probe.written
}
func schemaJob(transform, sink string) string {
	return `env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 10, schema = { fields { id = bigint, name = string } } } }
transform { ` + transform + ` }
sink { ` + sink + ` }`
}

// wider is s with a nullable column extra bigint added.
func wider(s *row.Schema) *row.Schema {
	fields := append(append([]row.Field{}, s.Fields...), row.Field{Name: "extra", Type: row.BigInt, Nullable: true})
	w := row.MustSchema(s.TableID, fields...)
	w.PrimaryKey = s.PrimaryKey
	return w
}

// addExtra is the change, of version v, that adds extra to s.
func addExtra(s *row.Schema, v int64) *row.Batch {
	return row.NewSchemaChange(&row.SchemaChange{Version: v, After: wider(s), Columns: []row.ColumnChange{{Op: row.AddColumn, Field: row.Field{Name: "extra", Type: row.BigInt, Nullable: true}}}})
}

// rowsOf is a batch of one row of s, its fields zero.
func rowsOf(s *row.Schema) *row.Batch {
	b := row.NewBuilder(s, 1)
	for j, f := range s.Fields {
		if f.Type.ID == row.TypeString {
			b.Col(j).AppendString("x")
		} else {
			b.Col(j).AppendInt(1)
		}
	}
	b.EndRow(row.Insert)
	return b.Build()
}

// A schema change goes through a transform that follows them to the sink,
// which applies it once; rows of the new schema and of the old one are
// both written by their own schema; an announcement of a schema the
// operators have (or an older one) changes nothing; a checkpoint's channel
// context announces the new schema to operators made anew from the plan.
func TestSchemaChangeThroughChain(t *testing.T) {
	resetProbe()
	tk := fusedTask(t, schemaJob(`FilterRowKind { plugin_input = "fake", plugin_output = "f", include_kinds = ["INSERT"] }`, `SchemaProbe { plugin_input = "f" }`))
	head := tk.ops.ops[tk.chain.Head.ID]
	base := tk.chain.Head.OutTables[0]
	w := wider(base)
	for _, b := range []*row.Batch{addExtra(base, 1), rowsOf(w), rowsOf(base), row.NewSchemaChange(&row.SchemaChange{After: base}), addExtra(base, 1)} {
		if err := tk.ops.push(head, b); err != nil {
			t.Fatal(err)
		}
	}
	changes, written := probed()
	if len(changes) != 1 || len(changes[0].Added()) != 1 || changes[0].Added()[0].Name != "extra" || !row.SameColumns(changes[0].After, w) || changes[0].Version != 1 {
		t.Fatalf("changes applied: %v", changes)
	}
	if len(written) != 2 || written[0].Len() != 3 || written[1].Len() != 2 {
		t.Fatalf("written schemas: %v", written)
	}

	// The channel context of the sink's input and of the source's output.
	sink := tk.ops.list[len(tk.ops.list)-1]
	for name, ctx := range map[string][][]byte{"input": channelContext(sink, false), "output": channelContext(head, true)} {
		if len(ctx) != 1 {
			t.Fatalf("%s context: %d batches", name, len(ctx))
		}
		b, _, err := row.NewDecoder().Decode(ctx[0])
		if err != nil || !b.IsSchemaChange() || !row.SameColumns(b.Schema, w) || b.SchemaChange().Version != 1 || len(b.SchemaChange().Columns) != 0 {
			t.Fatalf("%s context: %v %v", name, b, err)
		}
	}
	resetProbe()
	fresh := fusedTask(t, schemaJob(`FilterRowKind { plugin_input = "fake", plugin_output = "f", include_kinds = ["INSERT"] }`, `SchemaProbe { plugin_input = "f" }`))
	ctx, _, _ := row.NewDecoder().Decode(channelContext(sink, false)[0])
	fsink := fresh.ops.list[len(fresh.ops.list)-1]
	if err := fresh.ops.push(fsink, ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.ops.push(fsink, rowsOf(w)); err != nil {
		t.Fatal(err)
	}
	if changes, written := probed(); len(changes) != 1 || len(changes[0].Columns) != 0 || len(written) != 1 || written[0].Len() != 3 {
		t.Fatalf("restored sink: changes %v, written %v", changes, written)
	}
}

// Operators that do not follow schema changes fail naming the table (named
// after the FakeSource's plugin_output, as SeaTunnel names it), the
// change and the plugin; a change that drops a column fails naming it.
func TestSchemaChangeRefused(t *testing.T) {
	for _, tc := range []struct{ name, transform, sink, want string }{
		{"transform", `Copy { plugin_input = "fake", plugin_output = "f", fields { n2 = name } }`, `SchemaProbe { plugin_input = "f" }`,
			"cannot pass the schema change of table fake (fake ADD COLUMN extra bigint (version 1)): transform Copy does not follow schema changes"},
		{"sink", `FilterRowKind { plugin_input = "fake", plugin_output = "f", include_kinds = ["INSERT"] }`, `Console { plugin_input = "f" }`,
			"cannot take the schema change of table fake (fake ADD COLUMN extra bigint (version 1)): sink Console does not follow schema changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk := fusedTask(t, schemaJob(tc.transform, tc.sink))
			head := tk.ops.ops[tk.chain.Head.ID]
			err := tk.ops.push(head, addExtra(tk.chain.Head.OutTables[0], 1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
	// A plan resolved afresh on a restore has the tables as they are now;
	// the source's checkpoint announces them as they were, version 0:
	// the operators take that schema, without DDL.
	resetProbe()
	tk := fusedTask(t, schemaJob(`FilterRowKind { plugin_input = "fake", plugin_output = "f", include_kinds = ["INSERT"] }`, `SchemaProbe { plugin_input = "f" }`))
	base := tk.chain.Head.OutTables[0]
	retyped := row.MustSchema(base.TableID, row.Field{Name: "id", Type: row.String}, base.Fields[1], row.Field{Name: "extra", Type: row.BigInt})
	if err := tk.ops.push(tk.ops.ops[tk.chain.Head.ID], row.NewSchemaChange(&row.SchemaChange{After: retyped})); err != nil {
		t.Fatal(err)
	}
	if changes, _ := probed(); len(changes) != 1 || len(changes[0].Columns) != 0 || !row.SameColumns(changes[0].After, retyped) {
		t.Fatalf("announcement of version 0: %v", changes)
	}
}

// On an edge of several channels a schema change goes to every channel,
// in order with the batches around it, once every channel has credit.
func TestSchemaChangeBroadcast(t *testing.T) {
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	var mu sync.Mutex // guards got
	got := map[string][]*messages.Batch{}
	var pids []*actor.PID
	for range 2 {
		pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			if m, ok := c.Message().(*messages.Batch); ok {
				mu.Lock()
				got[c.Self().Id] = append(got[c.Self().Id], m)
				mu.Unlock()
			}
		}))
		pids = append(pids, pid)
	}
	tk := &Task{system: sys}
	o := &outEdge{t: tk, edge: &plan.Edge{ID: 3}}
	for i, pid := range pids {
		o.chans = append(o.chans, &outChannel{to: int32(i), pid: pid, credit: 10})
	}
	o.chans[1].credit = 0 // no credit yet: the change waits
	s := row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})
	b1, b2 := rowsOf(s), rowsOf(wider(s))
	o.send(b1)
	o.send(addExtra(s, 1))
	o.send(b2)
	if len(o.queue) != 2 {
		t.Fatalf("%d batches queued, want the change and the batch after it", len(o.queue))
	}
	o.chans[1].credit = 10
	o.drain()
	want := map[string][]string{pids[0].Id: {"rows", "change"}, pids[1].Id: {"change", "rows"}}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		ok := true
		for id, kinds := range want {
			var have []string
			for k, m := range got[id] {
				kind := "rows"
				if m.Rows.IsSchemaChange() {
					kind = "change"
				}
				have = append(have, kind)
				if m.Seq != int64(k+1) {
					ok = false
				}
			}
			ok = ok && strings.Join(have, ",") == strings.Join(kinds, ",")
		}
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivered %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Changes that drop, rename and retype columns pass a transform that
// follows them with their clauses, in version order; a replay of a
// version the operators passed changes nothing, and rows of each schema
// are written by it.
func TestSchemaChangeVersionsThroughChain(t *testing.T) {
	resetProbe()
	tk := fusedTask(t, schemaJob(`FilterRowKind { plugin_input = "fake", plugin_output = "f", include_kinds = ["INSERT"] }`, `SchemaProbe { plugin_input = "f" }`))
	head := tk.ops.ops[tk.chain.Head.ID]
	base := tk.chain.Head.OutTables[0]
	change := func(s *row.Schema, v int64, cols ...row.ColumnChange) (*row.Schema, *row.Batch) {
		t.Helper()
		next, err := row.Apply(s, cols)
		if err != nil {
			t.Fatal(err)
		}
		return next, row.NewSchemaChange(&row.SchemaChange{Version: v, After: next, Columns: cols})
	}
	v1, c1 := change(base, 1, row.ColumnChange{Op: row.AddColumn, Field: row.Field{Name: "extra", Type: row.BigInt, Nullable: true}, First: true})
	v2, c2 := change(v1, 2, row.ColumnChange{Op: row.ChangeColumn, Name: "name", Field: row.Field{Name: "label", Type: row.String, Nullable: true}, Default: "'x'"})
	v3, c3 := change(v2, 3, row.ColumnChange{Op: row.DropColumn, Name: "extra"}, row.ColumnChange{Op: row.RenameColumn, Name: "label", Field: row.Field{Name: "label2"}})
	for _, b := range []*row.Batch{c1, rowsOf(v1), c2, rowsOf(v2), c1, c2, c3, rowsOf(v3), c2} {
		if err := tk.ops.push(head, b); err != nil {
			t.Fatal(err)
		}
	}
	changes, written := probed()
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		"fake ADD COLUMN extra bigint FIRST (version 1)",
		"fake CHANGE COLUMN name label string DEFAULT 'x' (version 2)",
		"fake DROP COLUMN extra, RENAME COLUMN label TO label2 (version 3)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes applied:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(written) != 3 || !row.SameColumns(written[0], v1) || !row.SameColumns(written[1], v2) || !row.SameColumns(written[2], v3) {
		t.Fatalf("written schemas: %v", written)
	}
}
