package kafka

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// broker is the package's in-process Kafka (franz-go's kfake), one
// broker on a loopback port with its log in a temporary folder.
var broker string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kfake")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DataDir(dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
	broker = c.ListenAddrs()[0]
	code := m.Run()
	c.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

var topicSeq struct {
	sync.Mutex
	n int
}

// newTopic creates a fresh topic with n partitions.
func newTopic(t testing.TB, n int) string {
	t.Helper()
	topicSeq.Lock()
	topicSeq.n++
	name := fmt.Sprintf("t%d-%s", topicSeq.n, strings.ReplaceAll(strings.ToLower(t.Name()), "/", "_"))
	topicSeq.Unlock()
	cl := testClient(t)
	resp, err := kadm.NewClient(cl).CreateTopic(context.Background(), int32(n), 1, nil, name)
	if err != nil || resp.Err != nil {
		t.Fatalf("create topic %s: %v %v", name, err, resp.Err)
	}
	return name
}

func testClient(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(broker)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce writes values to partition p of topic (p < 0: by the default
// partitioner), and waits for them.
func produce(t testing.TB, topic string, p int32, values ...string) {
	t.Helper()
	opts := []kgo.Opt{}
	if p >= 0 {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	cl := testClient(t, opts...)
	var rs []*kgo.Record
	for _, v := range values {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
	}
	if err := cl.ProduceSync(context.Background(), rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// produceTxn writes values in one transaction to partition p, committed
// or aborted.
func produceTxn(t testing.TB, topic string, p int32, commit bool, values ...string) {
	t.Helper()
	cl := testClient(t, kgo.TransactionalID(fmt.Sprintf("test-%s-%d", topic, time.Now().UnixNano())), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

// committed reads every committed value of topic up to its last stable
// offsets now, as a read_committed consumer, with the keys.
func committed(t testing.TB, topic string) (values []string, keys []string) {
	t.Helper()
	cl := testClient(t)
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	if len(left) == 0 {
		return nil, nil
	}
	cons := testClient(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for len(left) > 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: timed out with %v left", topic, left)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := left[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				values = append(values, string(r.Value))
				keys = append(keys, string(r.Key))
			}
			if r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
	}
	return values, keys
}

// pluginCfg parses a plugin block body and validates it as the planner does.
func pluginCfg(t testing.TB, where string, opts []config.Option, body string) (*config.PluginConfig, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("job.conf", where, "Kafka", root.Pos, root, opts, config.CommonPluginOptions)
	return cfg, err
}

var batchJob = connectors.JobContext{JobID: "job1", Mode: connectors.Batch, Parallelism: 2}

// resolveSourceErr resolves and creates a source from a block body.
func resolveSourceErr(t testing.TB, body string, job connectors.JobContext) (*source, error) {
	t.Helper()
	cfg, err := pluginCfg(t, "source Kafka", SourceFactory.Options, body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resolved, err := SourceFactory.Resolve(ctx, cfg, job)
	if err != nil {
		return nil, err
	}
	s, err := SourceFactory.Create(cfg, resolved, job)
	if err != nil {
		return nil, err
	}
	return s.(*source), nil
}

func newSource(t testing.TB, body string, job connectors.JobContext) *source {
	t.Helper()
	s, err := resolveSourceErr(t, body, job)
	if err != nil {
		t.Fatalf("source: %v", err)
	}
	return s
}

func resolveSinkErr(t testing.TB, body string, schema *row.Schema, job connectors.JobContext) (*sink, error) {
	t.Helper()
	cfg, err := pluginCfg(t, "sink Kafka", SinkFactory.Options, body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resolved, err := SinkFactory.Resolve(ctx, cfg, []*row.Schema{schema}, job)
	if err != nil {
		return nil, err
	}
	s, err := SinkFactory.Create(cfg, []*row.Schema{schema}, resolved, job)
	if err != nil {
		return nil, err
	}
	return s.(*sink), nil
}

func newSink(t testing.TB, body string, schema *row.Schema, job connectors.JobContext) *sink {
	t.Helper()
	s, err := resolveSinkErr(t, body, schema, job)
	if err != nil {
		t.Fatalf("sink: %v", err)
	}
	return s
}

// enumCtx records what an enumerator tells its readers.
type enumCtx struct {
	parallelism int
	registered  []int
	assigned    map[int][]connectors.Split
	noMore      map[int]int
}

func newEnumCtx(p int) *enumCtx {
	c := &enumCtx{parallelism: p, assigned: map[int][]connectors.Split{}, noMore: map[int]int{}}
	for i := 0; i < p; i++ {
		c.registered = append(c.registered, i)
	}
	return c
}

func (c *enumCtx) Parallelism() int               { return c.parallelism }
func (c *enumCtx) RegisteredReaders() []int       { return append([]int(nil), c.registered...) }
func (c *enumCtx) SignalNoMoreSplits(subtask int) { c.noMore[subtask]++ }
func (c *enumCtx) AssignSplits(subtask int, splits ...connectors.Split) {
	c.assigned[subtask] = append(c.assigned[subtask], splits...)
}

type readerCtx struct {
	bounded  connectors.Boundedness
	ended    int
	requests int
}

func (c *readerCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{JobID: "job1"} }
func (c *readerCtx) Boundedness() connectors.Boundedness { return c.bounded }
func (c *readerCtx) SendSplitRequest()                   { c.requests++ }
func (c *readerCtx) SignalNoMoreElement()                { c.ended++ }

type collector struct{ batches []*row.Batch }

func (c *collector) Emit(b *row.Batch) { c.batches = append(c.batches, b) }
func (c *collector) BatchSize() int    { return 1024 }

// rows renders the collected rows as "kind a|b|c", sorted.
func (c *collector) rows() []string {
	var out []string
	for _, b := range c.batches {
		for i := 0; i < b.Len(); i++ {
			var parts []string
			for j, v := range b.Row(i) {
				parts = append(parts, row.Text(b.Schema.Fields[j].Type, v))
			}
			out = append(out, b.Kind(i).Short()+" "+strings.Join(parts, "|"))
		}
	}
	sort.Strings(out)
	return out
}

// splitsOf runs the enumerator with p registered readers.
func splitsOf(t testing.TB, s *source, p int, state []byte) (map[int][]connectors.Split, *enumCtx) {
	t.Helper()
	ec := newEnumCtx(p)
	en, err := s.CreateEnumerator(ec, state)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	if err := en.Run(); err != nil {
		t.Fatal(err)
	}
	return ec.assigned, ec
}

// readUntil polls a reader until done says so or the deadline passes.
func readUntil(t testing.TB, r connectors.Reader, out *collector, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("reader did not finish in time; got %d batches", len(out.batches))
		}
		start := time.Now()
		if err := r.PollNext(out); err != nil {
			t.Fatalf("PollNext: %v", err)
		}
		if d := time.Since(start); d > 150*time.Millisecond {
			t.Fatalf("PollNext took %v", d)
		}
	}
}

// readAll reads a BATCH source with p readers to its end.
func readAll(t testing.TB, s *source, p int) []string {
	t.Helper()
	rows, err := readAllErr(t, s, p)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readAllErr(t testing.TB, s *source, p int) ([]string, error) {
	t.Helper()
	assigned, _ := splitsOf(t, s, p, nil)
	out := &collector{}
	for i := 0; i < p; i++ {
		rc := &readerCtx{bounded: connectors.Bounded}
		r, err := s.CreateReader(rc)
		if err != nil {
			return nil, err
		}
		if err := r.Open(context.Background()); err != nil {
			return nil, err
		}
		if err := r.AddSplits(assigned[i]); err != nil {
			return nil, err
		}
		if err := r.HandleNoMoreSplits(); err != nil {
			return nil, err
		}
		deadline := time.Now().Add(20 * time.Second)
		for rc.ended == 0 {
			if time.Now().After(deadline) {
				r.Close()
				return nil, fmt.Errorf("reader %d did not end", i)
			}
			if err := r.PollNext(out); err != nil {
				r.Close()
				return nil, err
			}
		}
		if err := r.Close(); err != nil {
			return nil, err
		}
	}
	return out.rows(), nil
}
