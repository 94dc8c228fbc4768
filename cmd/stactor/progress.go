package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/messages"
)

// progress shows a running job: a live line on a terminal, SeaTunnel's
// periodic Job Progress Information block elsewhere.
type progress struct {
	w         io.Writer
	terminal  bool
	interval  time.Duration
	jobID     string
	shown     bool
	last      time.Time
	lastRead  int64
	lastWrite int64
	started   time.Time
}

func newProgress(w io.Writer, terminal bool, interval time.Duration, jobID string) *progress {
	if interval <= 0 {
		interval = time.Minute
	}
	return &progress{w: w, terminal: terminal, interval: interval, jobID: jobID, started: time.Now(), last: time.Now()}
}

func (p *progress) every() time.Duration {
	if p.terminal {
		return 250 * time.Millisecond
	}
	return p.interval
}

func (p *progress) show(st *messages.JobStatus) {
	now := time.Now()
	if p.terminal {
		el := now.Sub(p.started).Seconds()
		rate := 0.0
		if el > 0 {
			rate = float64(st.ReadRows) / el
		}
		line := fmt.Sprintf("%s %s  read %s  write %s  %s rows/s  %s", st.Name, st.State,
			group(st.ReadRows), group(st.WriteRows), group(int64(rate)), now.Sub(p.started).Truncate(time.Second))
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
		return
	}
	secs := now.Sub(p.last).Seconds()
	avgRead, avgWrite := "0", "0"
	if secs > 0 {
		avgRead = strconv.FormatInt(int64(float64(st.ReadRows-p.lastRead)/secs), 10) + "/s"
		avgWrite = strconv.FormatInt(int64(float64(st.WriteRows-p.lastWrite)/secs), 10) + "/s"
	}
	fmt.Fprint(p.w, formatTable("Job Progress Information",
		"Job Id", p.jobID,
		"Read Count So Far", strconv.FormatInt(st.ReadRows, 10),
		"Write Count So Far", strconv.FormatInt(st.WriteRows, 10),
		"Average Read Count", avgRead,
		"Average Write Count", avgWrite,
		"Last Statistic Time", p.last.Format(time.DateTime),
		"Current Statistic Time", now.Format(time.DateTime)))
	p.last, p.lastRead, p.lastWrite = now, st.ReadRows, st.WriteRows
}

// clear removes the live line before other output.
func (p *progress) clear() {
	if p.terminal && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
