package top

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/metrics"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt from the current rendering")

// recorded is a snapshot a running job published (testdata/running.json,
// taken from `stactor run` of a FakeSource → Sql → Console job with
// parallelism 2 and a Console of parallelism 1, checkpointing every
// second).
func recorded(t *testing.T) *messages.JobMetrics {
	t.Helper()
	data, err := os.ReadFile("testdata/running.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Fatalf("frame differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// A frame shows each job's totals and rates, its pipelines' last
// checkpoints, its vertices and (asked for) its subtasks; running jobs
// come before ended ones.
func TestRenderRecorded(t *testing.T) {
	run := recorded(t)
	ended := proto.Clone(run).(*messages.JobMetrics)
	ended.JobId, ended.Name, ended.State = "1733100000000000", "yesterday", "FINISHED"
	md := &Model{}
	now := time.UnixMilli(run.UnixMs).Add(1500 * time.Millisecond)
	md.Update(ended, now)
	md.Update(run, now)
	var b bytes.Buffer
	if err := Render(&b, md.Jobs(now), now.UTC(), View{Source: "nats://127.0.0.1:4222 stactor.stactor", Subtasks: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "frame.txt", b.String())
	for _, want := range []string{`JOB 1733100000000001 "nightly" RUNNING`, "Source[0]-FakeSource", "Sink[0]-Console", "BACKPRESSURED", "QUEUED IN", "#"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("frame lacks %q", want)
		}
	}
	if strings.Index(b.String(), "RUNNING") > strings.Index(b.String(), "FINISHED") {
		t.Error("an ended job is shown before a running one")
	}
}

// A frame fits the terminal: lines cut to its width, the frame to its
// height; without subtasks their table is left out.
func TestRenderFits(t *testing.T) {
	run := recorded(t)
	now := time.UnixMilli(run.UnixMs)
	var b bytes.Buffer
	if err := Render(&b, []*messages.JobMetrics{run}, now, View{Source: "x", Width: 40, Height: 6, Keys: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines for a height of 6:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if len(l) > 40 {
			t.Fatalf("line of %d columns for a width of 40: %q", len(l), l)
		}
	}
	b.Reset()
	if err := Render(&b, []*messages.JobMetrics{run}, now, View{Source: "x"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "QUEUED IN") {
		t.Fatal("subtasks shown without being asked for")
	}
	b.Reset()
	if err := Render(&b, nil, now, View{Source: "x"}); err != nil || !strings.Contains(b.String(), "no job has published metrics") {
		t.Fatalf("empty frame: %v\n%s", err, b.String())
	}
}

// The model keeps each job's newest snapshot and forgets jobs silent for
// longer than Forget.
func TestModel(t *testing.T) {
	run := recorded(t)
	older := proto.Clone(run).(*messages.JobMetrics)
	older.UnixMs -= 2000
	older.ReadRows = 1
	md := &Model{}
	t0 := time.Now()
	md.Update(run, t0)
	md.Update(older, t0) // arrived late
	if js := md.Jobs(t0); len(js) != 1 || js[0].ReadRows != run.ReadRows {
		t.Fatalf("jobs = %v", js)
	}
	if js := md.Jobs(t0.Add(Forget + time.Second)); len(js) != 0 {
		t.Fatalf("a silent job is still shown: %v", js)
	}
}
