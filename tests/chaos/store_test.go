package chaos

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// storeAbortWait bounds how long the checkpoint store stays full waiting
// for a checkpoint to fail: nats-server does not answer a write it could
// not store (it logs the error), and the checkpoint coordinator makes its
// store calls off its actor with the checkpoint's deadline, so a running
// pipeline's next checkpoint fails at its checkpoint.timeout (20 s) after
// the fill, whichever store call it is in (its id, its write, retention
// of the last one or its commit times).
const storeAbortWait = 60 * time.Second

// fillStore fills the disk under the cluster's checkpoint storage — the
// nats-server's JetStream store, a tmpfs of its own — for f.hold and until
// a node logged a checkpoint aborted or a pipeline failed since (at most
// storeAbortWait), then frees it and restarts the server. nats-server's
// file store keeps the first write error it met: space coming back is not
// enough until the server restarts, as an operator would. What failed
// meanwhile, and why, is in the target. A fill during which a job was
// RUNNING but nothing failed is an error: that job's checkpoints went on
// through a full store, or its coordinator hung in a store call.
func (h *harness) fillStore(f fault) (string, error) {
	var running []string
	for _, j := range h.running() {
		if st, err := h.c.status(j.id); err == nil && st.state == "RUNNING" {
			running = append(running, j.id)
		}
	}
	marks := h.c.logMarks()
	if err := h.store.fill(); err != nil {
		return "", err
	}
	filled := time.Now()
	time.Sleep(f.hold)
	var aborts []string
	for {
		// a checkpoint aborted, or a pipeline failed on its storage (one
		// being restored reads and writes it too)
		aborts = append(h.c.loggedSince(marks, "checkpoint aborted"), h.c.loggedSince(marks, "pipeline failed")...)
		if len(aborts) > 0 || time.Since(filled) > storeAbortWait {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	held := time.Since(filled)
	if err := h.store.free(); err != nil {
		return h.store.dir, err
	}
	disabled := strings.Contains(readFile(h.nats.log), "JetStream out of space, will be DISABLED")
	h.nats.kill()
	if err := h.nats.start(); err != nil {
		return "nats-server", fmt.Errorf("restarting nats-server after its store was full: %w", err)
	}
	what := fmt.Sprintf("JetStream store full for %s, nats-server restarted", held.Round(100*time.Millisecond))
	if disabled {
		what += " (it had disabled JetStream)"
	}
	switch {
	case len(aborts) == 0 && len(running) > 0:
		// Fault 126 of seed 839759923's 12-kind run, before the
		// coordinator's store calls left its actor: it sat in Retain and
		// then in the commit times' Complete, 30 s each, and no checkpoint
		// failed in the 60 s.
		return what, fmt.Errorf("no checkpoint or pipeline failed in %s of a full checkpoint store, though %s ran", held.Round(100*time.Millisecond), strings.Join(running, ", "))
	case len(aborts) == 0:
		return what + "; no job was running, and no checkpoint or pipeline failed meanwhile", nil
	}
	return fmt.Sprintf("%s; %d checkpoints aborted or pipelines failed, the first as: %s", what, len(aborts), aborts[0]), nil
}

// logMarks are the sizes of the nodes' logs now, for loggedSince.
func (c *cluster) logMarks() map[string]int64 {
	marks := map[string]int64{}
	for id, n := range c.nodes {
		if fi, err := os.Stat(n.log); err == nil {
			marks[id] = fi.Size()
		}
	}
	return marks
}

// loggedSince are the causes of the nodes' log lines (JSON) with message
// msg written after marks; a line with no cause counts as its error.
func (c *cluster) loggedSince(marks map[string]int64, msg string) []string {
	var causes []string
	for _, id := range c.ids() {
		log := readFile(c.nodes[id].log)
		if int64(len(log)) < marks[id] {
			continue
		}
		for _, line := range strings.Split(log[marks[id]:], "\n") {
			var rec struct {
				Message, Cause, Error string
			}
			if json.Unmarshal([]byte(line), &rec) != nil || rec.Message != msg {
				continue
			}
			if rec.Cause == "" {
				rec.Cause = rec.Error
			}
			causes = append(causes, rec.Cause)
		}
	}
	return causes
}
