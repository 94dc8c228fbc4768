package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Median is the median of xs (the mean of the middle two for an even
// count); 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MedianDuration is Median for durations.
func MedianDuration(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(Median(xs))
}

// Rate formats rows per second: "12.3 M/s", "456 k/s".
func Rate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1f k/s", r/1e3)
	}
	return fmt.Sprintf("%.1f /s", r)
}

// MB formats bytes as MiB.
func MB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// Count formats a row count: 40 M, 500 k, 32.
func Count(n int64) string {
	switch {
	case n >= 1e6 && n%1e5 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + " M"
	case n >= 1e3 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + " k"
	}
	return strconv.FormatInt(n, 10)
}

var statLine = regexp.MustCompile(`(?m)^(Total Read Count|Total Write Count|Total Failed Count)\s*:\s*(\d+)\s*$`)

// Statistics reads the counts of stactor run's Job Statistic Information
// block: "Total Read Count" and so on; nil when there is none.
func Statistics(output []byte) map[string]int64 {
	var m map[string]int64
	for _, sub := range statLine.FindAllStringSubmatch(string(output), -1) {
		if m == nil {
			m = map[string]int64{}
		}
		n, _ := strconv.ParseInt(sub[2], 10, 64)
		m[strings.TrimPrefix(sub[1], "Total ")] = n
	}
	return m
}

var progressLine = regexp.MustCompile(`(?m)^(Read|Write) Count So Far\s*:\s*(\d+)\s*$`)

// Progress reads the last Job Progress Information block stactor run
// printed (every progress-interval, off a terminal): rows read and
// written so far; ok is false when there was none.
func Progress(output []byte) (read, written int64, ok bool) {
	for _, sub := range progressLine.FindAllStringSubmatch(string(output), -1) {
		n, _ := strconv.ParseInt(sub[2], 10, 64)
		if sub[1] == "Read" {
			read = n
		} else {
			written = n
		}
		ok = true
	}
	return read, written, ok
}
