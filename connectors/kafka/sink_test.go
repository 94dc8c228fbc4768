package kafka

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kadm"
)

var people = row.MustSchema("people",
	row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "name", Type: row.String}, row.Field{Name: "score", Type: row.Double, Nullable: true})

func peopleBatch(t testing.TB, kinds []row.Kind, from, to int) *row.Batch {
	t.Helper()
	b := row.NewBuilder(people, to-from)
	for i := from; i < to; i++ {
		k := row.Insert
		if kinds != nil {
			k = kinds[i-from]
		}
		var score any = float64(i) + 0.5
		if i%5 == 0 {
			score = nil
		}
		if err := b.AppendRow(k, []any{int64(i), fmt.Sprintf("n%d", i), score}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func sinkBody(topic, extra string) string {
	return fmt.Sprintf("topic = %q\nbootstrap.servers = %q\n%s", topic, broker, extra)
}

func task(subtask, attempt int) connectors.TaskInfo {
	return connectors.TaskInfo{JobID: "job1", Pipeline: 1, Attempt: attempt, SubtaskIndex: subtask, Parallelism: 2}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// AT_LEAST_ONCE: what was written before a checkpoint barrier is in the
// topic once PrepareCommit returns, in each format.
func TestAtLeastOnceFormats(t *testing.T) {
	cases := []struct {
		name, opts string
		kinds      []row.Kind
		want       []string
	}{
		{"json", "", nil, []string{`{"id":1,"name":"n1","score":1.5}`, `{"id":2,"name":"n2","score":2.5}`}},
		{"text", "format = text\nfield_delimiter = \"|\"", nil, []string{"1|n1|1.5", "2|n2|2.5"}},
		{"debezium", "format = debezium_json", []row.Kind{row.UpdateBefore, row.UpdateAfter},
			[]string{`{"before":null,"after":{"id":2,"name":"n2","score":2.5},"op":"c"}`, `{"before":{"id":1,"name":"n1","score":1.5},"after":null,"op":"d"}`}},
		{"canal", "format = canal_json", []row.Kind{row.Insert, row.Delete},
			[]string{`{"data":[{"id":1,"name":"n1","score":1.5}],"type":"INSERT"}`, `{"data":[{"id":2,"name":"n2","score":2.5}],"type":"DELETE"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := newTopic(t, 1)
			s := newSink(t, sinkBody(topic, "semantics = AT_LEAST_ONCE\n"+c.opts), people, batchJob)
			w, err := s.CreateWriter(context.Background(), task(0, 1), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Write(peopleBatch(t, c.kinds, 1, 3)); err != nil {
				t.Fatal(err)
			}
			if info, err := w.PrepareCommit(1); err != nil || info != nil {
				t.Fatalf("prepare: %v %v", info, err)
			}
			got, _ := committed(t, topic)
			if !reflect.DeepEqual(sortedCopy(got), sortedCopy(c.want)) {
				t.Fatalf("\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

// partition_key_fields makes the key a JSON object of those fields, and
// rows of one key land in one partition; partition pins every record.
func TestPartitionKeysAndFixedPartition(t *testing.T) {
	topic := newTopic(t, 3)
	s := newSink(t, sinkBody(topic, "semantics = AT_LEAST_ONCE\npartition_key_fields = [name]"), people, batchJob)
	w, _ := s.CreateWriter(context.Background(), task(0, 1), nil)
	defer w.Close()
	for i := 0; i < 3; i++ {
		if err := w.Write(peopleBatch(t, nil, 1, 10)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	_, keys := committed(t, topic)
	if len(keys) != 27 || keys[0] == "" || !strings.HasPrefix(keys[0], `{"name":"n`) {
		t.Fatalf("keys %v", keys)
	}
	cl := testClient(t)
	ends, _ := kadm.NewClient(cl).ListEndOffsets(context.Background(), topic)
	nonEmpty := 0
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			nonEmpty++
		}
	})
	if nonEmpty < 2 {
		t.Fatalf("keys all went to %d partition(s)", nonEmpty)
	}

	fixed := newTopic(t, 3)
	s2 := newSink(t, sinkBody(fixed, "semantics = AT_LEAST_ONCE\npartition = 2"), people, batchJob)
	w2, _ := s2.CreateWriter(context.Background(), task(0, 1), nil)
	defer w2.Close()
	w2.Write(peopleBatch(t, nil, 1, 10))
	if _, err := w2.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	ends, _ = kadm.NewClient(cl).ListEndOffsets(context.Background(), fixed)
	if o, _ := ends.Lookup(fixed, 2); o.Offset != 9 {
		t.Fatalf("partition 2 has %d records", o.Offset)
	}
}

// EXACTLY_ONCE: a prepared transaction is invisible to read_committed
// consumers until the committer commits it — from another committer, as
// after a crash of the writer's process between the checkpoint and the
// commit — and committing it again (a restore) is harmless.
func TestExactlyOnceCommitAfterCrash(t *testing.T) {
	topic := newTopic(t, 2)
	body := sinkBody(topic, "semantics = EXACTLY_ONCE")
	s := newSink(t, body, people, batchJob)
	w, err := s.CreateWriter(context.Background(), task(0, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(peopleBatch(t, nil, 0, 10))
	info1, err := w.PrepareCommit(1)
	if err != nil || info1 == nil {
		t.Fatalf("prepare: %v %v", info1, err)
	}
	w.Write(peopleBatch(t, nil, 10, 15))
	info2, err := w.PrepareCommit(2)
	if err != nil || info2 == nil {
		t.Fatalf("prepare 2: %v %v", info2, err)
	}
	if string(info1) == string(info2) {
		t.Fatal("two checkpoints share a transaction")
	}
	if info, err := w.PrepareCommit(3); err != nil || info != nil {
		t.Fatalf("empty checkpoint prepared %s %v", info, err)
	}
	w.Close() // the writer is gone; its prepared transactions stay open
	if got, _ := committed(t, topic); len(got) != 0 {
		t.Fatalf("visible before commit: %v", got)
	}

	// A new process: a fresh sink and committer from the same options.
	s2 := newSink(t, body, people, batchJob)
	c, _ := s2.CreateCommitter()
	ctx := context.Background()
	cc := connectors.CommitContext{JobID: "job1", Pipeline: 1, Attempt: 2, CheckpointID: 1}
	if err := c.Commit(ctx, cc, [][]byte{info1}); err != nil {
		t.Fatal(err)
	}
	got, _ := committed(t, topic)
	if len(got) != 10 {
		t.Fatalf("after commit 1: %d records (LSO held by checkpoint 2's open transaction?)", len(got))
	}
	if err := c.Commit(ctx, cc, [][]byte{info1}); err != nil {
		t.Fatalf("second commit of the same transaction: %v", err)
	}
	cc.CheckpointID = 2
	if err := c.Commit(ctx, cc, [][]byte{info2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := committed(t, topic); len(got) != 15 {
		t.Fatalf("after commit 2: %d records", len(got))
	}
	c.(*committer).Close()
}

// On restore, AbortStale aborts what earlier attempts left open and leaves
// the current attempt's transactions alone.
func TestAbortStale(t *testing.T) {
	topic := newTopic(t, 1)
	body := sinkBody(topic, "semantics = EXACTLY_ONCE")
	s := newSink(t, body, people, batchJob)
	old, _ := s.CreateWriter(context.Background(), task(0, 1), nil)
	old.Write(peopleBatch(t, nil, 0, 5))
	if _, err := old.PrepareCommit(1); err != nil { // never committed: checkpoint 1 did not complete
		t.Fatal(err)
	}
	old.Write(peopleBatch(t, nil, 5, 7)) // open when the process died
	if err := old.(*writer).cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	old.(*writer).cl.Close()
	old.(*writer).cl = nil

	cur, _ := s.CreateWriter(context.Background(), task(0, 2), nil)
	cur.Write(peopleBatch(t, nil, 100, 103))
	curInfo, err := cur.PrepareCommit(5)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.CreateCommitter()
	ctx := context.Background()
	cc := connectors.CommitContext{JobID: "job1", Pipeline: 1, Attempt: 2}
	if err := c.(connectors.StaleAborter).AbortStale(ctx, cc); err != nil {
		t.Fatal(err)
	}
	cc.CheckpointID = 5
	if err := c.Commit(ctx, cc, [][]byte{curInfo}); err != nil {
		t.Fatalf("the current attempt's transaction was touched: %v", err)
	}
	got, _ := committed(t, topic)
	want := []string{`{"id":100,"name":"n100","score":null}`, `{"id":101,"name":"n101","score":101.5}`, `{"id":102,"name":"n102","score":102.5}`}
	if !reflect.DeepEqual(sortedCopy(got), want) {
		t.Fatalf("\n got %v\nwant %v", got, want)
	}
	cur.Close()
}

// AbortPrepare aborts the transaction of a checkpoint that failed, and
// Close aborts the open one: neither ever becomes visible, and they do
// not hold back read_committed consumers.
func TestAbortPrepareAndClose(t *testing.T) {
	topic := newTopic(t, 1)
	s := newSink(t, sinkBody(topic, "semantics = EXACTLY_ONCE"), people, batchJob)
	w, _ := s.CreateWriter(context.Background(), task(0, 1), nil)
	w.Write(peopleBatch(t, nil, 0, 5))
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	if err := w.AbortPrepare(); err != nil {
		t.Fatal(err)
	}
	w.Write(peopleBatch(t, nil, 5, 8))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	produce(t, topic, 0, "after")
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := committed(t, topic)
		if reflect.DeepEqual(got, []string{"after"}) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assign_partitions: a value containing the i-th string goes to partition
// i; the others are spread over the partitions after those.
func TestAssignPartitions(t *testing.T) {
	topic := newTopic(t, 4)
	s := newSink(t, sinkBody(topic, "semantics = AT_LEAST_ONCE\nassign_partitions = [\"n1\", \"n2\"]"), people, batchJob)
	w, _ := s.CreateWriter(context.Background(), task(0, 1), nil)
	defer w.Close()
	if err := w.Write(peopleBatch(t, nil, 1, 3)); err != nil { // n1 → 0, n2 → 1
		t.Fatal(err)
	}
	if err := w.Write(peopleBatch(t, nil, 30, 60)); err != nil { // n3x..n5x → 2 or 3
		t.Fatal(err)
	}
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	ends, _ := kadm.NewClient(testClient(t)).ListEndOffsets(context.Background(), topic)
	counts := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { counts[o.Partition] = o.Offset })
	if counts[0] != 1 || counts[1] != 1 || counts[2]+counts[3] != 30 || counts[2] == 0 || counts[3] == 0 {
		t.Fatalf("records per partition %v", counts)
	}
}

// format = compatible_debezium_json: each (topic, key, value) row, as a
// CDC source with format = COMPATIBLE_DEBEZIUM_JSON emits it, is a record
// of its own topic with its key and value as they are; the topic option
// is not used. A table of other fields is refused naming the one missing.
func TestCompatibleDebeziumJSON(t *testing.T) {
	topics := []string{newTopic(t, 1), newTopic(t, 1)}
	dbz := row.MustSchema("default.default", row.Field{Name: "topic", Type: row.String}, row.Field{Name: "key", Type: row.String, Nullable: true},
		row.Field{Name: "value", Type: row.String, Nullable: true})
	s := newSink(t, sinkBody("unused", "semantics = AT_LEAST_ONCE\nformat = compatible_debezium_json"), dbz, batchJob)
	w, err := s.CreateWriter(context.Background(), task(0, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	b := row.NewBuilder(dbz, 3)
	for _, r := range [][3]string{{topics[0], `{"id":1}`, `{"before":null,"after":{"id":1},"op":"c"}`}, {topics[1], `{"id":2}`, `{"before":{"id":2},"after":null,"op":"d"}`}, {topics[0], "", `{"op":"r"}`}} {
		b.Col(0).AppendString(r[0])
		if r[1] == "" {
			b.Col(1).AppendNull()
		} else {
			b.Col(1).AppendString(r[1])
		}
		b.Col(2).AppendString(r[2])
		b.EndRow(row.Insert)
	}
	if err := w.Write(b.Build()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2][]string{
		{{`{"before":null,"after":{"id":1},"op":"c"}`, `{"op":"r"}`}, {`{"id":1}`, ""}},
		{{`{"before":{"id":2},"after":null,"op":"d"}`}, {`{"id":2}`}},
	} {
		values, keys := committed(t, topics[i])
		if !reflect.DeepEqual(values, want[0]) || !reflect.DeepEqual(keys, want[1]) {
			t.Fatalf("topic %d: values %q keys %q, want %q %q", i, values, keys, want[0], want[1])
		}
	}
	if _, err := resolveSinkErr(t, sinkBody("t", "format = compatible_debezium_json"), people, batchJob); err == nil || !strings.Contains(err.Error(), `no string field "topic"`) {
		t.Fatalf("people table: %v", err)
	}
}
