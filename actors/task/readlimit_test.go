package task

import (
	"testing"
	"time"
)

// pollLoop drives l the way the subtask does: poll, read what batchSize
// allows of rows of rowBytes bytes each, wait what read says (plus late,
// and block once at blockAt for blockFor). It returns the time and size of
// every poll that read something.
type polled struct {
	at          time.Duration
	rows, bytes int64
}

func pollLoop(l *readLimit, total, batch int, rowBytes int64, late time.Duration, blockAt int, blockFor time.Duration) []polled {
	var out []polled
	now := time.Unix(1000, 0)
	t0 := now
	left := total
	for i := 0; left > 0; i++ {
		if w := l.wait(now); w > 0 {
			now = now.Add(w)
			continue
		}
		n := min(left, l.batchSize(batch))
		left -= n
		out = append(out, polled{now.Sub(t0), int64(n), int64(n) * rowBytes})
		now = now.Add(l.read(now, int64(n), int64(n)*rowBytes) + late)
		if i == blockAt {
			now = now.Add(blockFor)
		}
	}
	return out
}

// checkWindows checks that over every window between two polls at most
// limit×w plus one batch was read, by rows or bytes.
func checkWindows(t *testing.T, ps []polled, perSec int64, size func(polled) int64) {
	t.Helper()
	var biggest int64
	for _, p := range ps {
		biggest = max(biggest, size(p))
	}
	for i := range ps {
		var sum int64
		for j := i; j < len(ps); j++ {
			sum += size(ps[j])
			w := (ps[j].at - ps[i].at).Seconds()
			if allowed := float64(perSec)*w + float64(biggest) + float64(perSec)*catchUp.Seconds() + 1; float64(sum) > allowed {
				t.Fatalf("polls %d..%d: %d in %.3fs, more than %.0f (limit %d/s, batch %d)", i, j, sum, w, allowed, perSec, biggest)
			}
		}
	}
}

func TestReadLimitBytesExactForSmallJobs(t *testing.T) {
	// The case: 1,000 rows of 19 bytes at 2,000 B/s take about
	// 9.5 s; before the fix all of them went in one batch at once.
	for _, c := range []struct {
		rows     int
		rowBytes int64
		perSec   int64
	}{{1000, 19, 2000}, {20000, 19, 40000}, {50, 4000, 1000}, {10, 1 << 20, 1 << 20}} {
		l := &readLimit{bytesPerSec: c.perSec}
		ps := pollLoop(l, c.rows, 4096, c.rowBytes, 0, -1, 0)
		last := ps[len(ps)-1]
		want := time.Duration(float64(int64(c.rows)*c.rowBytes-last.bytes) / float64(c.perSec) * float64(time.Second))
		if d := last.at - want; d < -time.Millisecond || d > time.Millisecond {
			t.Fatalf("%+v: last poll at %s, want %s", c, last.at, want)
		}
		if last.bytes > max(c.perSec/10, c.rowBytes) {
			t.Fatalf("%+v: a batch of %d bytes, more than a tenth of a second's worth", c, last.bytes)
		}
		checkWindows(t, ps, c.perSec, func(p polled) int64 { return p.bytes })
	}
}

func TestReadLimitRowsOverAnyWindow(t *testing.T) {
	l := &readLimit{rowsPerSec: 1000}
	ps := pollLoop(l, 5000, 4096, 8, 0, -1, 0)
	if last := ps[len(ps)-1]; last.at < 4900*time.Millisecond {
		t.Fatalf("5,000 rows at 1,000/s: last poll at %s", last.at)
	}
	checkWindows(t, ps, 1000, func(p polled) int64 { return p.rows })
}

// A subtask held back (no credit) for a while does not burst afterwards
// to make up for it.
func TestReadLimitNoBurstAfterBlock(t *testing.T) {
	l := &readLimit{rowsPerSec: 1000, bytesPerSec: 5000}
	ps := pollLoop(l, 5000, 4096, 8, 0, 10, 3*time.Second)
	checkWindows(t, ps, 1000, func(p polled) int64 { return p.rows })
	checkWindows(t, ps, 5000, func(p polled) int64 { return p.bytes })
}

// Late timers are made up within catchUp, so the rate does not drift.
func TestReadLimitCatchesUpLateTimers(t *testing.T) {
	l := &readLimit{rowsPerSec: 1000}
	ps := pollLoop(l, 10000, 4096, 8, 3*time.Millisecond, -1, 0)
	if last := ps[len(ps)-1]; last.at > 10*time.Second {
		t.Fatalf("10,000 rows at 1,000/s with 3 ms late timers: last poll at %s (drifted)", last.at)
	}
	checkWindows(t, ps, 1000, func(p polled) int64 { return p.rows })
}

func TestReadLimitOffReadsFullBatches(t *testing.T) {
	l := &readLimit{}
	if n := l.batchSize(4096); n != 4096 {
		t.Fatalf("batch %d", n)
	}
	if d := l.read(time.Now(), 4096, 1<<20); d != 0 {
		t.Fatalf("wait %s", d)
	}
}

// read_limit.adaptive's rate caps the job's own limit, never raises it,
// and lifted gives the job's limit back.
func TestReadLimitSetRate(t *testing.T) {
	for _, c := range []struct {
		job      int64
		adaptive float64
		want     int64
	}{
		{0, 0, 0}, {0, 500, 500}, {1000, 500, 500}, {1000, 5000, 1000}, {1000, 0, 1000}, {0, 0.2, 1},
	} {
		l := readLimit{rowsPerSec: c.job, jobRowsPerSec: c.job}
		l.setRate(c.adaptive)
		if l.rowsPerSec != c.want {
			t.Errorf("job %d, adaptive %g: %d rows/s, want %d", c.job, c.adaptive, l.rowsPerSec, c.want)
		}
	}
	// Under the adaptive rate the subtask reads at it (within a batch).
	l := readLimit{}
	l.setRate(200)
	ps := pollLoop(&l, 1000, 4096, 10, 0, -1, 0)
	checkWindows(t, ps, 200, func(p polled) int64 { return p.rows })
	if last := ps[len(ps)-1].at; last < 4*time.Second {
		t.Fatalf("1000 rows at 200 rows/s done in %s", last)
	}
	// Lifted, it reads without waiting, even a poll that was due later.
	l.setRate(0)
	if w := l.wait(time.Unix(1000, 0)); w != 0 || l.active() {
		t.Fatalf("lifted: waits %s, active %v", w, l.active())
	}
}
