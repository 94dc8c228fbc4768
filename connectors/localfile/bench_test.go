package localfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

const benchRows = 200_000

// cpuTime is the process's user and system time: on a shared machine
// rows per CPU second is steadier than rows per wall second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds rows/s (wall) and rows/cpu-s.
func report(b *testing.B, rows int, start time.Time, cpu0 time.Duration) {
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/time.Since(start).Seconds(), "rows/s")
	b.ReportMetric(total/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}

// BenchmarkCSVRead reads a csv file of (bigint, string, double, timestamp,
// quoted string) rows with one reader.
func BenchmarkCSVRead(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 0; i < benchRows; i++ {
		fmt.Fprintf(&sb, "%d,name-%d,%d.25,2024-01-%02d 12:%02d:%02d,\"note, %d\"\n", i, i%1000, i%997, i%28+1, i%60, i%60, i)
	}
	path := filepath.Join(dir, "bench.csv")
	writeFile(b, path, sb.String())
	src := newTestSource(b, "path = "+q(dir)+"\nfile_format_type = csv\nschema { fields { id = bigint, name = string, score = double, ts = timestamp, note = string } }")
	splits := splitsFor(b, src, 1)[0]
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		r, rc := testReader(b, src)
		r.AddSplits(splits)
		r.HandleNoMoreSplits()
		out := &countCollector{size: 4096}
		for rc.ended == 0 {
			if err := r.PollNext(out); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
		if out.n != benchRows {
			b.Fatalf("read %d rows", out.n)
		}
	}
	report(b, benchRows, start, cpu0)
}

type countCollector struct{ size, n int }

func (c *countCollector) Emit(b *row.Batch) { c.n += b.Len() }
func (c *countCollector) BatchSize() int    { return c.size }

// BenchmarkJSONWrite writes (bigint, string, double, decimal, timestamp,
// boolean) rows as json lines with one writer.
func BenchmarkJSONWrite(b *testing.B) {
	s := row.MustSchema("b",
		row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "name", Type: row.String},
		row.Field{Name: "score", Type: row.Double}, row.Field{Name: "price", Type: row.DecimalOf(10, 2)},
		row.Field{Name: "ts", Type: row.Timestamp}, row.Field{Name: "ok", Type: row.Boolean})
	const batch = 4096
	bld := row.NewBuilder(s, batch)
	base := time.Date(2024, 1, 31, 12, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < batch; i++ {
		bld.Col(0).AppendInt(int64(i))
		bld.Col(1).AppendString(fmt.Sprintf("name \"%d\"", i))
		bld.Col(2).AppendFloat(float64(i) / 8)
		bld.Col(3).AppendDecimal(decimal.New(int64(i*7), -2))
		bld.Col(4).AppendTimestamp(base+int64(i), 0)
		bld.Col(5).AppendBool(i%2 == 0)
		bld.EndRow(row.Insert)
	}
	data := bld.Build()
	dir := b.TempDir()
	k := newTestSink(b, "path = "+q(dir)+"\nfile_format_type = json", s)
	perIter := benchRows / batch * batch
	var written int64
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	var paused time.Duration
	for i := 0; i < b.N; i++ {
		w, err := k.CreateWriter(context.Background(), task(0, i), nil)
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; n < perIter; n += batch {
			if err := w.Write(data); err != nil {
				b.Fatal(err)
			}
		}
		// Closing the file (flush, fsync) is the checkpoint's cost, not
		// the writing's: keep it out of the figures.
		b.StopTimer()
		p0 := time.Now()
		info, err := w.PrepareCommit(int64(i + 1))
		if err != nil {
			b.Fatal(err)
		}
		ci, _ := decodeCommitInfo(info)
		st, _ := os.Stat(ci.Files[0].From)
		written = st.Size()
		w.Close()
		os.RemoveAll(filepath.Join(dir, stagingDir))
		paused += time.Since(p0)
		b.StartTimer()
	}
	b.SetBytes(written)
	total := float64(perIter) * float64(b.N)
	b.ReportMetric(total/(time.Since(start)-paused).Seconds(), "rows/s")
	b.ReportMetric(total/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}
