package kafka

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// A STREAMING job keeps up with a producer while it is SIGKILLed and
// restored: the offsets its checkpoints commit to the consumer group
// (after each completed checkpoint) never go backwards, and once the
// producer stops the output holds every id exactly once.
func TestStreamingOffsetsNeverGoBack(t *testing.T) {
	n := envInt("STACTOR_KAFKA_STREAM_ROWS", 30000)
	kills := envInt("STACTOR_KAFKA_KILLS", 3)
	dir := t.TempDir()
	b := startBroker(t, filepath.Join(dir, "kafka"), 0, "sin:3", "sout:3")
	j := &job{t: t, home: filepath.Join(dir, "home"), file: filepath.Join(dir, "job.conf"), id: "kafka-stream"}
	const group = "e2e-stream"
	writeJob(t, j.file, b.addr, "STREAMING", "sin", "sout", group, 100000)

	// The producer: n ids in steps, over a few seconds.
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		const step = 500
		for from := 0; from < n; from += step {
			produceIDs(t, b.addr, "sin", from, min(from+step, n))
			time.Sleep(40 * time.Millisecond)
		}
	}()

	// The watcher: the group's offsets, per partition, must never fall.
	adm := kadm.NewClient(client(t, b.addr))
	var mu sync.Mutex
	last := map[int32]int64{}
	var backwards []string
	read := func() map[int32]int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		offs, err := adm.FetchOffsets(ctx, group)
		out := map[int32]int64{}
		if err != nil {
			if !errors.Is(err, kerr.GroupIDNotFound) && ctx.Err() == nil {
				t.Errorf("fetching group offsets: %v", err)
			}
			return out
		}
		offs.Each(func(o kadm.OffsetResponse) {
			if o.Topic == "sin" && o.Err == nil {
				out[o.Partition] = o.At
			}
		})
		return out
	}
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(50 * time.Millisecond):
			}
			cur := read()
			mu.Lock()
			for p, o := range cur {
				if o < last[p] {
					backwards = append(backwards, fmt.Sprintf("partition %d: %d after %d", p, o, last[p]))
				}
				last[p] = max(last[p], o)
			}
			mu.Unlock()
		}
	}()

	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var cmd = j.start(false)
	for i := 0; i < kills; i++ {
		time.Sleep(time.Duration(700+rng.Intn(1200)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		cmd = j.start(true)
	}
	<-produced
	// The last run catches up: every produced id committed.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if ids := committedIDs(t, b.addr, "sout"); len(ids) >= n {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			t.Fatalf("the job did not catch up\n%s", j.log())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // a few more checkpoints: nothing may be added
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	close(stopWatch)
	<-watched

	mu.Lock()
	defer mu.Unlock()
	if len(backwards) > 0 {
		t.Fatalf("checkpointed offsets went backwards: %v", backwards)
	}
	var total int64
	for _, o := range last {
		total += o
	}
	if total != int64(n) {
		t.Fatalf("the group's offsets sum to %d, %d records were produced (%v)", total, n, last)
	}
	restores := strings.Count(j.stderr.String(), "restoring pipeline from checkpoint")
	t.Logf("%d kills, %d restores from a checkpoint, offsets %v", kills, restores, last)
	checkExactlyOnce(t, committedIDs(t, b.addr, "sout"), n)
}
