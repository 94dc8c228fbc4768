// Command kafka measures records/s through Kafka → Kafka with the stactor
// binary (AT_LEAST_ONCE and EXACTLY_ONCE) beside a bare franz-go
// consume-and-produce loop over the same records on the same broker in
// the same run: the ceiling for this broker (issue 13). The broker is
// franz-go's kfake, in this process on a loopback port; stactor runs as a
// process of its own. It writes the "kafka" section of RESULTS.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	rows := flag.Int("rows", 1000000, "records to move")
	runs := flag.Int("runs", 3, "rounds of the three pipelines, interleaved; the table has the medians")
	results := flag.String("results", "", "RESULTS.md to write the kafka section to (default: the module's benchmarks/RESULTS.md)")
	flag.Parse()
	if err := run(*rows, *runs, *results); err != nil {
		fmt.Fprintln(os.Stderr, "kafka bench:", err)
		os.Exit(1)
	}
}

func run(n, runs int, results string) error {
	machine := harness.ReadMachine()
	root, err := harness.ModuleRoot()
	if err != nil {
		return err
	}
	if results == "" {
		results = filepath.Join(root, "benchmarks", "RESULTS.md")
	}
	tmp, err := os.MkdirTemp("", "kafka-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.BuildStactor(root, tmp)
	if err != nil {
		return err
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "src"))
	if err != nil {
		return err
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	if err := fill(addr, n); err != nil {
		return err
	}

	adm, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer adm.Close()
	names := []string{"bare", "AT_LEAST_ONCE", "EXACTLY_ONCE"}
	walls := map[string][]time.Duration{}
	for round := 0; round < runs; round++ {
		for _, name := range names {
			topic := fmt.Sprintf("out-%s-%d", strings.ToLower(name), round)
			if _, err := kadm.NewClient(adm).CreateTopic(context.Background(), 3, 1, nil, topic); err != nil {
				return err
			}
			var wall time.Duration
			if name == "bare" {
				wall, err = bareLoop(addr, topic, n)
			} else {
				wall, err = runStactor(bin, tmp, addr, topic, name, n)
			}
			if err != nil {
				return err
			}
			walls[name] = append(walls[name], wall)
			fmt.Fprintf(os.Stderr, "round %d %s: %v\n", round+1, name, wall)
		}
	}
	bare := harness.MedianDuration(walls["bare"])
	table := harness.Table{Header: []string{"pipeline", "records", "wall (median)", "records/s", "of the bare loop", "walls"}}
	for _, name := range names {
		w := harness.MedianDuration(walls[name])
		label := "stactor Kafka → Kafka " + name
		if name == "bare" {
			label = "bare franz-go loop (consume → produce, bytes)"
		}
		var all []string
		for _, d := range walls[name] {
			all = append(all, fmt.Sprintf("%.2f", d.Seconds()))
		}
		table.Add(label, harness.Count(int64(n)), w.Round(time.Millisecond).String(), harness.Rate(float64(n)/w.Seconds()),
			fmt.Sprintf("%.0f %%", 100*bare.Seconds()/w.Seconds()), strings.Join(all, ", "))
	}
	body := fmt.Sprintf("Command: `go run ./benchmarks/cmd/kafka -rows %d -runs %d` (%s).\n\n%s\n%s", n, runs, time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine.Markdown(), table.String())
	fmt.Print(body)
	return harness.WriteSection(results, "kafka", body)
}

// runStactor runs the job with the stactor binary and checks its output.
func runStactor(bin, tmp, addr, topic, semantics string, n int) (time.Duration, error) {
	job := filepath.Join(tmp, topic+".conf")
	if err := os.WriteFile(job, []byte(jobFile(addr, topic, semantics)), 0o644); err != nil {
		return 0, err
	}
	res, err := harness.Run(harness.Spec{Path: bin, Args: []string{"run", "-c", job}, Env: []string{"STACTOR_HOME=" + filepath.Join(tmp, "home-"+topic)}, Timeout: 10 * time.Minute})
	if err != nil {
		return 0, err
	}
	if res.ExitCode != 0 {
		return 0, fmt.Errorf("stactor %s: %s\n%s", semantics, res.Describe(), res.LastLines(20))
	}
	got, err := count(addr, topic)
	if err != nil {
		return 0, err
	}
	if got < int64(n) || (semantics == "EXACTLY_ONCE" && got != int64(n)) {
		return 0, fmt.Errorf("stactor %s wrote %d committed records of %d", semantics, got, n)
	}
	return res.Wall, nil
}

// jobFile is a BATCH Kafka → Kafka job: JSON records {id, name} parsed into
// rows and written back as JSON.
func jobFile(addr, topic, semantics string) string {
	return fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
  checkpoint.interval = 1000
}
source {
  Kafka {
    topic = "src"
    bootstrap.servers = %q
    start_mode = earliest
    schema = { fields { id = bigint, name = string } }
  }
}
sink {
  Kafka {
    topic = %q
    bootstrap.servers = %q
    semantics = %s
  }
}
`, addr, topic, addr, semantics)
}

// fill writes n records to src.
func fill(addr string, n int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		cl.Produce(ctx, &kgo.Record{Topic: "src", Key: []byte(strconv.Itoa(i)), Value: []byte(fmt.Sprintf(`{"id":%d,"name":"name-%d"}`, i, i))}, nil)
	}
	return cl.Flush(ctx)
}

// bareLoop consumes src from its start to its end and produces every value
// to topic, with the same client settings stactor uses (read_committed, an
// idempotent producer), and waits for the last acknowledgement.
func bareLoop(addr, topic string, n int) (time.Duration, error) {
	start := time.Now()
	cons, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("src"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return 0, err
	}
	defer cons.Close()
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return 0, err
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	seen := 0
	for seen < n {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			return 0, err
		}
		fs.EachRecord(func(r *kgo.Record) {
			seen++
			prod.Produce(ctx, &kgo.Record{Topic: topic, Value: r.Value}, nil)
		})
	}
	if err := prod.Flush(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// count is the number of records a read_committed consumer sees in topic.
func count(addr, topic string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	cons, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		return 0, err
	}
	defer cons.Close()
	var got int64
	for len(left) > 0 {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := left[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				got++
			}
			if r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
	}
	return got, nil
}
