package task

import "time"

// readLimit paces a source subtask to read_limit.rows_per_second and
// read_limit.bytes_per_second, exact to within one batch over any window:
//
//   - a batch is at most a tenth of a second's worth, by rows and by bytes
//     (at the average row size read so far; the first poll asks for one row
//     to learn it), so one batch never overshoots by much;
//   - after a poll that read n rows of b bytes the next poll waits until
//     the later of n/rows_per_second and b/bytes_per_second has passed since
//     the previous poll was due. A poll that ran late (a timer fires a
//     little after its time, the mailbox was busy) keeps at most catchUp of
//     its lateness as credit, so a subtask that was blocked for a while
//     does not burst to make up for it.
//
// Over any window of length w the subtask so reads at most w×limit plus one
// batch, and, while nothing holds it back, at least w×limit minus one batch
// (less the lateness it could not catch up).
type readLimit struct {
	rowsPerSec, bytesPerSec int64
	// jobRowsPerSec is the job's read_limit.rows_per_second; rowsPerSec is
	// the lower of it and the rate read_limit.adaptive chose (setRate).
	jobRowsPerSec int64
	next          time.Time // no poll before it; zero: the first poll
	rows, bytes   int64     // read so far, for the average row size
}

// catchUp is how much lateness a poll may make up by polling sooner.
const catchUp = 20 * time.Millisecond

// setRate applies the rate the JobMaster chose under read_limit.adaptive
// (rows/s; 0: none, the job's own limit again). The pacing starts afresh,
// so neither a lower rate's first wait nor a lifted limit's last one
// carries over.
func (l *readLimit) setRate(rowsPerSec float64) {
	r := l.jobRowsPerSec
	if rowsPerSec > 0 {
		a := max(1, int64(rowsPerSec+0.5))
		if r == 0 || a < r {
			r = a
		}
	}
	if r != l.rowsPerSec {
		l.rowsPerSec = r
		l.next = time.Time{}
	}
}

func (l *readLimit) active() bool { return l.rowsPerSec > 0 || l.bytesPerSec > 0 }

// batchSize caps the rows the reader is asked for.
func (l *readLimit) batchSize(n int) int {
	if l.rowsPerSec > 0 {
		n = min(n, int(max(1, min(l.rowsPerSec/10, int64(n)))))
	}
	if l.bytesPerSec > 0 {
		if l.rows == 0 || l.bytes == 0 {
			return 1
		}
		avg := max(1, l.bytes/l.rows)
		n = min(n, int(max(1, min(l.bytesPerSec/10/avg, int64(n)))))
	}
	return n
}

// wait is how long until the next poll may read.
func (l *readLimit) wait(now time.Time) time.Duration {
	if l.next.IsZero() {
		return 0
	}
	return max(0, l.next.Sub(now))
}

// read accounts a poll at now that read rows and bytes, and returns how
// long to wait before the next.
func (l *readLimit) read(now time.Time, rows, bytes int64) time.Duration {
	if !l.active() {
		return 0
	}
	l.rows += rows
	l.bytes += bytes
	start := now
	if !l.next.IsZero() {
		start = l.next
		if late := now.Sub(l.next); late > catchUp {
			start = now.Add(-catchUp)
		}
	}
	var d time.Duration
	if l.rowsPerSec > 0 {
		d = max(d, time.Duration(float64(rows)/float64(l.rowsPerSec)*float64(time.Second)))
	}
	if l.bytesPerSec > 0 {
		d = max(d, time.Duration(float64(bytes)/float64(l.bytesPerSec)*float64(time.Second)))
	}
	l.next = start.Add(d)
	return max(0, l.next.Sub(now))
}
