// Package kafka runs the stactor binary on Kafka → Sql → Kafka jobs with
// a broker of its own (tests/internal/kafkabroker, franz-go's kfake in a
// separate process, so the binary can be SIGKILLed while the broker
// lives), kills and restores the job again and again, and checks what a
// read_committed consumer sees: every id exactly once (issue 13).
//
// STACTOR_KAFKA_KILLS sets how many kills a test makes (default 3),
// STACTOR_KAFKA_ROWS the number of records of the BATCH test (default
// 100000; the scale is STACTOR_KAFKA_ROWS=1000000
// STACTOR_KAFKA_KILLS=10, about 3 minutes), STACTOR_KAFKA_STREAM_ROWS
// those of the STREAMING one (default 30000). Debian's kcat, where it is
// installed, reads the output too.
package kafka

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/tests/internal/stactorbin"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var binary, brokerBin string

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(func() int {
		root, err := stactorbin.RepoRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		dir, err := os.MkdirTemp("", "kafkabroker-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		brokerBin = filepath.Join(dir, "kafkabroker")
		build := exec.Command("go", "build", "-o", brokerBin, "./tests/internal/kafkabroker")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build kafkabroker: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}, &binary))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// broker is a kafkabroker process.
type broker struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	addr  string
	lines chan string // what it prints after ADDR
}

// startBroker starts a broker on port (0: any) with its log in dir.
func startBroker(t *testing.T, dir string, port int, topics ...string) *broker {
	t.Helper()
	return startBrokerWith(t, dir, port, nil, topics...)
}

// startBrokerWith starts a broker with more flags (-hold-commit).
func startBrokerWith(t *testing.T, dir string, port int, flags []string, topics ...string) *broker {
	t.Helper()
	args := append([]string{"-data-dir", dir, "-port", strconv.Itoa(port)}, flags...)
	for _, tp := range topics {
		args = append(args, "-topic", tp)
	}
	cmd := exec.Command(brokerBin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(out)
	line, err := rd.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("kafkabroker did not start: %q %v", line, err)
	}
	b := &broker{cmd: cmd, stdin: stdin, addr: addr, lines: make(chan string, 16)}
	go func() {
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case b.lines <- strings.TrimSpace(line):
			default:
			}
		}
	}()
	t.Cleanup(b.stop)
	return b
}

func (b *broker) stop() {
	if b.cmd.ProcessState != nil {
		return
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	_ = b.cmd.Wait()
}

func client(t *testing.T, addr string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceIDs writes records {"id":i,"name":"n-i"} for ids [from, to),
// spread over the partitions.
func produceIDs(t *testing.T, addr, topic string, from, to int) {
	t.Helper()
	cl := client(t, addr, kgo.ProducerLinger(5*time.Millisecond))
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := from; i < to; i++ {
		wg.Add(1)
		r := &kgo.Record{Topic: topic, Key: []byte(strconv.Itoa(i)), Value: []byte(fmt.Sprintf(`{"id":%d,"name":"n-%d"}`, i, i))}
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// committedIDs reads topic up to its last stable offsets as a
// read_committed consumer and returns the ids.
func committedIDs(t *testing.T, addr, topic string) []int {
	t.Helper()
	ends, err := kadm.NewClient(client(t, addr)).ListCommittedOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	cons := client(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ids []int
	for len(left) > 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: timed out, %v left", topic, left)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := left[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				var v struct {
					ID int `json:"id"`
				}
				if err := json.Unmarshal(r.Value, &v); err != nil {
					t.Errorf("bad record %q", r.Value)
				}
				ids = append(ids, v.ID)
			}
			if r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
	}
	return ids
}

func checkExactlyOnce(t *testing.T, ids []int, n int) {
	t.Helper()
	seen := make([]int, n)
	var lost, dup []int
	for _, id := range ids {
		if id < 0 || id >= n {
			t.Fatalf("unexpected id %d", id)
		}
		seen[id]++
	}
	for id, c := range seen {
		if c == 0 {
			lost = append(lost, id)
		} else if c > 1 {
			dup = append(dup, id)
		}
	}
	if len(lost) > 0 || len(dup) > 0 {
		t.Fatalf("%d records for %d ids: %d lost (first %v), %d repeated (first %v)", len(ids), n, len(lost), head(lost), len(dup), head(dup))
	}
}

func head(xs []int) []int { return xs[:min(len(xs), 10)] }

func tail(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// writeJob writes a Kafka → Sql → Kafka EXACTLY_ONCE job; rate bounds the
// source's rows per second (read_limit), so a kill lands mid-job.
func writeJob(t *testing.T, path, addr, mode, in, out, group string, rate int) {
	t.Helper()
	job := fmt.Sprintf(`
env {
  job.mode = %q
  parallelism = 2
  checkpoint.interval = 500
  read_limit.rows_per_second = %d
}
source {
  Kafka {
    topic = %q
    bootstrap.servers = %q
    consumer.group = %q
    start_mode = earliest
    partition-discovery.interval-millis = 1000
    schema = { fields { id = bigint, name = string } }
    plugin_output = "src"
  }
}
transform {
  Sql {
    plugin_input = "src"
    plugin_output = "mid"
    query = "select id, name from src where id >= 0"
  }
}
sink {
  Kafka {
    plugin_input = "mid"
    topic = %q
    bootstrap.servers = %q
    semantics = EXACTLY_ONCE
    transaction_prefix = "e2e"
  }
}
`, mode, rate, in, addr, group, out, addr)
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
}

// job runs stactor on one job file, started fresh or restored.
type job struct {
	t      *testing.T
	home   string
	file   string
	id     string
	stderr strings.Builder
	mu     sync.Mutex
}

func (j *job) start(restore bool) *exec.Cmd {
	args := []string{"run", "--log-level", "info", "-c", j.file}
	if restore {
		args = append(args, "--restore", j.id)
	} else {
		args = append(args, "--job-id", j.id)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+j.home, "STACTOR_BATCH_SIZE=500")
	cmd.Stderr = &lockedWriter{&j.mu, &j.stderr}
	if err := cmd.Start(); err != nil {
		j.t.Fatal(err)
	}
	return cmd
}

func (j *job) log() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return tail(j.stderr.String())
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// A BATCH Kafka (3 partitions) → Sql → Kafka EXACTLY_ONCE job, SIGKILLed
// at random moments and restored each time, then run to its end: a
// read_committed consumer of the output sees every id exactly once.
func TestExactlyOnceUnderKills(t *testing.T) {
	n := envInt("STACTOR_KAFKA_ROWS", 100000)
	kills := envInt("STACTOR_KAFKA_KILLS", 3)
	dir := t.TempDir()
	b := startBroker(t, filepath.Join(dir, "kafka"), 0, "in:3", "out:3")
	produceIDs(t, b.addr, "in", 0, n)
	j := &job{t: t, home: filepath.Join(dir, "home"), file: filepath.Join(dir, "job.conf"), id: "kafka-eos"}
	writeJob(t, j.file, b.addr, "BATCH", "in", "out", "e2e-batch", 5000)

	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	killed := 0
	for i := 0; ; i++ {
		cmd := j.start(i > 0)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if i < kills {
			// after the first checkpoint of a run (about a second in)
			delay := time.Duration(1000+rng.Intn(1500)) * time.Millisecond
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run %d failed: %v\n%s", i, err, j.log())
				}
				t.Logf("run %d finished before its kill", i)
				i = kills
			case <-time.After(delay):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				killed++
				continue
			}
		} else {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("final run failed: %v\n%s", err, j.log())
				}
			case <-time.After(4 * time.Minute):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				t.Fatalf("final run did not finish\n%s", j.log())
			}
		}
		break
	}
	restores := strings.Count(j.stderr.String(), "restoring pipeline from checkpoint")
	t.Logf("%d kills, %d restores from a checkpoint", killed, restores)
	checkExactlyOnce(t, committedIDs(t, b.addr, "out"), n)
	checkWithKcat(t, b.addr, "out", n)
}

// A kill between a checkpoint's completion and its commit: the broker
// holds the fifth committing EndTxn (a transaction of the third
// checkpoint; two writers each commit one per checkpoint), the binary is
// SIGKILLed while it waits, and the broker then drops the request without
// ending the transaction. The restored job must commit that checkpoint's
// transactions (resuming them by producer id and epoch from the
// checkpoint's commit infos): aborting them as stale would lose their
// rows, which the restored sources do not read again. A read_committed
// consumer then sees every id exactly once.
func TestKilledBetweenCheckpointAndCommit(t *testing.T) {
	const n = 30000
	dir := t.TempDir()
	b := startBrokerWith(t, filepath.Join(dir, "kafka"), 0, []string{"-hold-commit", "5"}, "hin:3", "hout:3")
	produceIDs(t, b.addr, "hin", 0, n)
	j := &job{t: t, home: filepath.Join(dir, "home"), file: filepath.Join(dir, "job.conf"), id: "kafka-held"}
	writeJob(t, j.file, b.addr, "BATCH", "hin", "hout", "e2e-held", 3000)

	cmd := j.start(false)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case line := <-b.lines:
		if !strings.HasPrefix(line, "HELD ") {
			t.Fatalf("broker said %q", line)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Logf("killed while the broker held the commit of %s", strings.TrimPrefix(line, "HELD "))
	case err := <-done:
		t.Fatalf("the job ended before its fifth commit (%v)\n%s", err, j.log())
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Fatalf("no commit was held in 2 minutes\n%s", j.log())
	}
	if err := b.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}

	cmd = j.start(true)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("restored run failed: %v\n%s", err, j.log())
		}
	case <-time.After(4 * time.Minute):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Fatalf("restored run did not finish\n%s", j.log())
	}
	if !strings.Contains(j.stderr.String(), "restoring pipeline from checkpoint") {
		t.Fatalf("the second run did not restore from a checkpoint\n%s", j.log())
	}
	checkExactlyOnce(t, committedIDs(t, b.addr, "hout"), n)
	checkWithKcat(t, b.addr, "hout", n)
}

// checkWithKcat reads topic with Debian's kcat (librdkafka, a client
// independent of franz-go) as a read_committed consumer and checks every
// id is there exactly once.
func checkWithKcat(t *testing.T, addr, topic string, n int) {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		t.Log("kcat is not installed (Debian package kcat): skipping the cross-check with an independent client")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-b", addr, "-C", "-t", topic, "-o", "beginning", "-e", "-q",
		"-X", "isolation.level=read_committed", "-f", "%s\n").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	var ids []int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var v struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("kcat read %q: %v", line, err)
		}
		ids = append(ids, v.ID)
	}
	checkExactlyOnce(t, ids, n)
	t.Logf("kcat read %d records, every id once", len(ids))
}

// The broker stops mid-job and comes back on the same port with its log:
// the job fails over, restores from its last checkpoint and ends with
// every id exactly once.
func TestBrokerRestart(t *testing.T) {
	n := 60000
	dir := t.TempDir()
	data := filepath.Join(dir, "kafka")
	b := startBroker(t, data, 0, "rin:3", "rout:3")
	produceIDs(t, b.addr, "rin", 0, n)
	_, port, _ := strings.Cut(b.addr, ":")
	p, _ := strconv.Atoi(port)
	j := &job{t: t, home: filepath.Join(dir, "home"), file: filepath.Join(dir, "job.conf"), id: "kafka-restart"}
	writeJob(t, j.file, b.addr, "BATCH", "rin", "rout", "e2e-restart", 3000)
	cmd := j.start(false)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(2 * time.Second)
	select {
	case err := <-done:
		t.Fatalf("the job ended (%v) before the broker stopped: raise n", err)
	default:
	}
	b.stop()
	time.Sleep(time.Second)
	b = startBroker(t, data, p)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("job failed: %v\n%s", err, j.log())
		}
	case <-time.After(4 * time.Minute):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Fatalf("job did not finish\n%s", j.log())
	}
	// franz-go's clients ride out a short outage (they retry), so the job
	// may not even fail over; either way the output must be exact.
	t.Logf("%d restores from a checkpoint", strings.Count(j.stderr.String(), "restoring pipeline from checkpoint"))
	checkExactlyOnce(t, committedIDs(t, b.addr, "rout"), n)
}
