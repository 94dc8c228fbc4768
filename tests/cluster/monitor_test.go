package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// `stactor tap` and `stactor top`, run beside the cluster against its
// NATS server, watch a job the cluster runs: the first tapped rows of a
// vertex whose subtasks run on other nodes arrive within a second, top
// shows the job, and the job's output is still exact (DESIGN §9).
func TestTapAndTop(t *testing.T) {
	c := newCluster(t)
	c.start(2)
	j := newJob(t, t.TempDir(), 40000)
	c.submitAsync(j, "watched")
	c.waitWritten("watched", 500)

	tap := exec.Command(binary, "tap", "watched", "Filter", "--rows", "10", "--format", "json", "--nats", c.natsURL(), "--cluster", c.name)
	var tapErr bytes.Buffer
	tap.Stderr = &tapErr
	out, err := tap.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := tap.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var first time.Duration
	n := 0
	for sc.Scan() {
		if n == 0 {
			first = time.Since(began)
		}
		n++
		var r struct {
			Vertex, Kind string
			Row          map[string]any
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Vertex != "Transform[0]-Filter" || r.Kind != "INSERT" || r.Row["name"] == nil {
			t.Fatalf("tapped %q (%v)", sc.Text(), err)
		}
	}
	if err := tap.Wait(); err != nil || n != 10 {
		t.Fatalf("tap: %v, %d rows\n%s", err, n, tapErr.String())
	}
	t.Logf("first tapped row %s after the tap started", first)
	if first > time.Second {
		t.Fatalf("the first tapped row came %s after the tap started, want within 1 s\n%s", first, tapErr.String())
	}
	frame, err := exec.Command(binary, "top", "--once", "--job", "watched", "--nats", c.natsURL(), "--cluster", c.name).CombinedOutput()
	if err != nil || !strings.Contains(string(frame), "JOB watched") || !strings.Contains(string(frame), "Transform[0]-Filter") {
		t.Fatalf("top --once: %v\n%s", err, frame)
	}
	c.waitState("watched", "FINISHED", 3*time.Minute)
	j.checkExactlyOnce(t)
}
