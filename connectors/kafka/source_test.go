package kafka

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

func srcBody(topic string, extra string) string {
	return fmt.Sprintf(`
topic = %q
bootstrap.servers = %q
start_mode = earliest
schema { fields { id = bigint, name = string } }
%s`, topic, broker, extra)
}

func jsonRows(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf(`{"id":%d,"name":"n%d"}`, i, i))
	}
	return out
}

func wantRows(ids ...int) []string {
	var out []string
	for _, i := range ids {
		out = append(out, fmt.Sprintf("+I %d|n%d", i, i))
	}
	return sortStrings(out)
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// A BATCH job reads every committed record of every partition once,
// skips aborted transactions, and ends at the end offsets seen when it
// was resolved: records produced later are not read.
func TestBatchReadsCommittedToResolvedEnd(t *testing.T) {
	topic := newTopic(t, 3)
	produce(t, topic, 0, jsonRows(0, 10)...)
	produceTxn(t, topic, 1, true, jsonRows(10, 20)...)
	produceTxn(t, topic, 1, false, jsonRows(100, 110)...)
	produce(t, topic, 2, jsonRows(20, 25)...)
	produceTxn(t, topic, 2, true, jsonRows(25, 30)...)
	s := newSource(t, srcBody(topic, ""), batchJob)
	produce(t, topic, 0, jsonRows(200, 205)...) // after resolve: not read
	got := readAll(t, s, 2)
	if want := wantRows(seq(0, 30)...); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows:\n got %v\nwant %v", got, want)
	}
}

// Every partition goes to exactly one reader, and in BATCH every reader
// hears there are no more splits.
func TestEnumeratorAssignsEachPartitionOnce(t *testing.T) {
	topic := newTopic(t, 5)
	s := newSource(t, srcBody(topic, ""), batchJob)
	assigned, ec := splitsOf(t, s, 2, nil)
	seen := map[string]int{}
	for _, splits := range assigned {
		for _, sp := range splits {
			seen[sp.ID]++
		}
	}
	if len(seen) != 5 {
		t.Fatalf("assigned %v", seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s assigned %d times", id, n)
		}
	}
	if ec.noMore[0] != 1 || ec.noMore[1] != 1 {
		t.Fatalf("no more splits: %v", ec.noMore)
	}
}

// A reader restored from a checkpoint continues exactly after the rows it
// had emitted; the group's offsets are committed only once the
// checkpoint completes.
func TestRestoreFromCheckpointAndCommitAfterComplete(t *testing.T) {
	topic := newTopic(t, 1)
	produce(t, topic, 0, jsonRows(0, 50)...)
	group := "g-" + topic
	job := connectors.JobContext{JobID: "job1", Mode: connectors.Streaming, Parallelism: 1}
	s := newSource(t, srcBody(topic, fmt.Sprintf("consumer.group = %q\nreader_cache_queue_size = 1", group)), job)
	assigned, _ := splitsOf(t, s, 1, nil)

	rc := &readerCtx{bounded: connectors.Unbounded}
	r, _ := s.CreateReader(rc)
	if err := r.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.AddSplits(assigned[0]); err != nil {
		t.Fatal(err)
	}
	out := &collector{}
	readUntil(t, r, out, func() bool { return len(out.rows()) >= 50 })
	state, err := r.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	produce(t, topic, 0, jsonRows(50, 60)...)
	if got := groupOffset(t, group, topic); got != -1 {
		t.Fatalf("group offset committed before the checkpoint completed: %d", got)
	}
	if err := r.NotifyCheckpointComplete(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return groupOffset(t, group, topic) == 50 }, "group offset 50")
	readUntil(t, r, out, func() bool { return len(out.rows()) >= 55 })
	r.Close()

	// Restore from checkpoint 1: rows 50.. again, none before.
	r2, _ := s.CreateReader(&readerCtx{bounded: connectors.Unbounded})
	if err := r2.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := r2.AddSplits(state); err != nil {
		t.Fatal(err)
	}
	out2 := &collector{}
	readUntil(t, r2, out2, func() bool { return len(out2.rows()) >= 10 })
	time.Sleep(200 * time.Millisecond)
	if err := r2.PollNext(out2); err != nil {
		t.Fatal(err)
	}
	if got, want := out2.rows(), wantRows(seq(50, 60)...); !reflect.DeepEqual(got, want) {
		t.Fatalf("after restore:\n got %v\nwant %v", got, want)
	}
}

func groupOffset(t testing.TB, group, topic string) int64 {
	t.Helper()
	offs, err := kadm.NewClient(testClient(t)).FetchOffsets(context.Background(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup(topic, 0); ok && o.Err == nil {
		return o.At
	}
	return -1
}

func waitFor(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartModes(t *testing.T) {
	topic := newTopic(t, 2)
	produce(t, topic, 0, jsonRows(0, 5)...)
	produce(t, topic, 1, jsonRows(5, 10)...)
	mid := time.Now().UnixMilli()
	time.Sleep(5 * time.Millisecond)
	produce(t, topic, 0, jsonRows(10, 12)...)
	group := "g-" + topic
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 3, LeaderEpoch: -1})
	if _, err := kadm.NewClient(testClient(t)).CommitOffsets(context.Background(), group, offs); err != nil {
		t.Fatal(err)
	}
	body := func(mode string) string {
		return strings.Replace(srcBody(topic, mode), "start_mode = earliest", "", 1)
	}
	cases := []struct {
		name, opts string
		want       []int
	}{
		{"earliest", "start_mode = earliest", seq(0, 12)},
		{"latest", "start_mode = latest", nil},
		{"specific", fmt.Sprintf("start_mode = specific_offsets\n\"start_mode.offsets\" { %q = 4 }", topic+"-1"), seq(9, 10)},
		{"timestamp", fmt.Sprintf("start_mode = timestamp\n\"start_mode.timestamp\" = %d", mid), seq(10, 12)},
		// group_offsets: partition 0 from the committed 3, partition 1
		// (no committed offset) from the earliest
		{"group", fmt.Sprintf("consumer.group = %q", group), append(seq(3, 5), append(seq(5, 10), seq(10, 12)...)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(t, newSource(t, body(c.opts), batchJob), 1)
			if want := wantRows(c.want...); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	cases := []struct {
		name, opts string
		values     []string
		want       []string
	}{
		{"text", `format = text
field_delimiter = "#"`, []string{"1#a", "2#b"}, []string{"+I 1|a", "+I 2|b"}},
		{"canal", `format = canal_json`, []string{
			`{"data":[{"id":1,"name":"a"}],"type":"INSERT"}`,
			`{"data":[{"id":1,"name":"b"}],"old":[{"name":"a"}],"type":"UPDATE"}`,
			`{"data":[{"id":1,"name":"b"}],"type":"DELETE"}`,
		}, []string{"+I 1|a", "+U 1|b", "-D 1|b", "-U 1|a"}},
		{"debezium", `format = debezium_json`, []string{
			`{"before":null,"after":{"id":2,"name":"x"},"op":"c"}`,
			`{"schema":{},"payload":{"before":{"id":2,"name":"x"},"after":{"id":2,"name":"y"},"op":"u"}}`,
			`{"before":{"id":2,"name":"y"},"after":null,"op":"d"}`,
		}, []string{"+I 2|x", "+U 2|y", "-D 2|y", "-U 2|x"}},
		{"skip", `format_error_handle_way = skip`, []string{`{"id":1,"name":"a"}`, `not json`, `{"id":"x"}`, `{"id":3,"name":"c"}`}, []string{"+I 1|a", "+I 3|c"}},
		{"no schema", "", []string{"hello", "world"}, []string{"+I hello", "+I world"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := newTopic(t, 1)
			produce(t, topic, 0, c.values...)
			body := srcBody(topic, c.opts)
			if c.name == "no schema" {
				body = fmt.Sprintf("topic = %q\nbootstrap.servers = %q\nstart_mode = earliest", topic, broker)
			}
			got := readAll(t, newSource(t, body, batchJob), 1)
			if want := sortStrings(c.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("\n got %v\nwant %v", got, want)
			}
		})
	}
}

// A record that does not parse fails the job by default, naming where it is.
func TestFormatErrorFails(t *testing.T) {
	topic := newTopic(t, 1)
	produce(t, topic, 0, `{"id":1,"name":"a"}`, `{"id":`)
	_, err := readAllErr(t, newSource(t, srcBody(topic, ""), batchJob), 1)
	if err == nil || !strings.Contains(err.Error(), topic+"-0@1 does not parse") {
		t.Fatalf("err = %v", err)
	}
}

// In STREAMING, partitions added later are found and read from their start.
func TestPartitionDiscovery(t *testing.T) {
	topic := newTopic(t, 1)
	produce(t, topic, 0, jsonRows(0, 3)...)
	job := connectors.JobContext{JobID: "job1", Mode: connectors.Streaming, Parallelism: 1}
	s := newSource(t, srcBody(topic, "partition-discovery.interval-millis = 100"), job)
	ec := newEnumCtx(1)
	en, _ := s.CreateEnumerator(ec, nil)
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	en.Run()
	rc := &readerCtx{bounded: connectors.Unbounded}
	r, _ := s.CreateReader(rc)
	r.Open(context.Background())
	defer r.Close()
	r.AddSplits(ec.assigned[0])
	ec.assigned[0] = nil
	out := &collector{}
	readUntil(t, r, out, func() bool { return len(out.rows()) >= 3 })

	if _, err := kadm.NewClient(testClient(t)).CreatePartitions(context.Background(), 2, topic); err != nil {
		t.Fatal(err)
	}
	produce(t, topic, 1, jsonRows(3, 5)...)
	readUntil(t, r, out, func() bool {
		if rc.requests > 0 {
			rc.requests = 0
			en.HandleSplitRequest(0)
			if len(ec.assigned[0]) > 0 {
				if err := r.AddSplits(ec.assigned[0]); err != nil {
					t.Fatal(err)
				}
				ec.assigned[0] = nil
			}
		}
		return len(out.rows()) >= 5
	})
	if got, want := out.rows(), wantRows(seq(0, 5)...); !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %v\nwant %v", got, want)
	}
}

// table_list reads several tables, each with its own topic, format and
// schema.
func TestTableList(t *testing.T) {
	a, b := newTopic(t, 2), newTopic(t, 1)
	produce(t, a, 0, jsonRows(0, 3)...)
	produce(t, b, 0, "x#1", "y#2")
	body := fmt.Sprintf(`bootstrap.servers = %q
table_list = [
  { topic = %q, start_mode = earliest, schema = { table = "ta", fields { id = bigint, name = string } } },
  { topic = %q, start_mode = earliest, format = text, field_delimiter = "#", schema = { table = "tb", fields { name = string, n = int } } }
]`, broker, a, b)
	s := newSource(t, body, batchJob)
	if len(s.Tables()) != 2 || s.Tables()[0].TableID != "ta" || s.Tables()[1].TableID != "tb" {
		t.Fatalf("tables %v", s.Tables())
	}
	got := readAll(t, s, 2)
	want := sortStrings(append(wantRows(0, 1, 2), "+I x|1", "+I y|2"))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %v\nwant %v", got, want)
	}
}
