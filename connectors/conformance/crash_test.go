package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeBinary is a stand-in for stactor that writes ids 0..n-1 slowly
// and starts over on every run: appending lines (repeats after a kill)
// or creating one file per id (idempotent, so exactly-once however often
// it is killed). It checks RunCrash's kill-and-restore loop and that
// Verify's verdict is reported.
func fakeBinary(t *testing.T, n int, idempotent bool) string {
	write := `echo $i >> "$dir/out.txt"`
	if idempotent {
		write = `mkdir -p "$dir/out" && : > "$dir/out/$i"`
	}
	script := fmt.Sprintf(`#!/bin/sh
# args: run -c <job> --job-id|--restore <id>
dir=$(dirname "$3")
echo "$4" >> "$dir/runs.txt"
i=0
while [ $i -lt %d ]; do
  %s
  i=$((i+1))
  sleep 0.01
done
`, n, write)
	path := filepath.Join(t.TempDir(), "stactor")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func crashCase(n int, runs *string) Crash {
	return Crash{
		Kills:    2,
		MinDelay: 200 * time.Millisecond,
		MaxDelay: 400 * time.Millisecond,
		Job:      func(string) (string, error) { return "env {}\n", nil },
		Verify: func(dir string) error {
			b, _ := os.ReadFile(filepath.Join(dir, "runs.txt"))
			*runs = string(b)
			var ids []int64
			if data, err := os.ReadFile(filepath.Join(dir, "out.txt")); err == nil {
				for _, l := range strings.Fields(string(data)) {
					id, _ := strconv.ParseInt(l, 10, 64)
					ids = append(ids, id)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "out"))
			for _, e := range entries {
				id, _ := strconv.ParseInt(e.Name(), 10, 64)
				ids = append(ids, id)
			}
			return ExactlyOnce(ids, n)
		},
	}
}

func TestCrashLoopReportsRepeats(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	const n = 100
	var runs string
	r := newRecorder("Crash")
	r.run(func(tt tb) { runCrash(tt, fakeBinary(t, n, false), crashCase(n, &runs)) })
	if rep := r.report(); !strings.Contains(rep, "repeated") {
		t.Fatalf("a sink that repeats rows after a restore was not reported: %q", rep)
	}
	// the first run starts the job, the two after the kills restore it
	if got := strings.Fields(runs); len(got) != 3 || got[0] != "--job-id" || got[1] != "--restore" || got[2] != "--restore" {
		t.Fatalf("runs: %q", runs)
	}

	r = newRecorder("Crash")
	r.run(func(tt tb) { runCrash(tt, fakeBinary(t, n, true), crashCase(n, &runs)) })
	if rep := r.report(); rep != "" {
		t.Fatalf("an idempotent sink was reported: %s", rep)
	}
}

func TestExactlyOnce(t *testing.T) {
	if err := ExactlyOnce([]int64{2, 0, 1}, 3); err != nil {
		t.Fatal(err)
	}
	err := ExactlyOnce([]int64{0, 0, 2, 7}, 3)
	if err == nil || err.Error() != "4 rows committed for ids 0..2: 1 lost (first [1]), 1 repeated (first [0]), 1 unknown ids ([7])" {
		t.Fatalf("%v", err)
	}
}
