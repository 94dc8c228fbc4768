package row

import (
	"testing"
	"time"
)

// The costs of timestamps as two vectors (seconds, nanoseconds); the same
// benchmarks ran against int64 nanoseconds before (see the commit).

func tsBatch(n int, frac bool) *Batch {
	s := MustSchema("ts", Field{Name: "id", Type: BigInt}, Field{Name: "at", Type: Timestamp})
	bl := NewBuilder(s, n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := range n {
		bl.Col(0).AppendInt(int64(i))
		var nano int32
		if frac {
			nano = int32(int64(i) * 1234567 % 1e9)
		}
		bl.Col(1).AppendTimestamp(base+int64(i)*37, nano)
		bl.EndRow(Insert)
	}
	return bl.Build()
}

func BenchmarkTimestampAppend(b *testing.B) {
	c := NewColumn(Timestamp, 4096)
	b.ReportAllocs()
	for b.Loop() {
		c.Secs, c.Nanos = c.Secs[:0], c.Nanos[:0]
		for i := range 4096 {
			c.AppendTimestamp(int64(i), 0)
		}
	}
}

func benchTS(b *testing.B, frac bool) {
	batch := tsBatch(4096, frac)
	buf := AppendBatch(nil, batch)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			buf = AppendBatch(buf[:0], batch)
		}
	})
	b.Run("decode", func(b *testing.B) {
		d := NewDecoder()
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := d.Decode(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkTimestampCodecSeconds(b *testing.B)  { benchTS(b, false) }
func BenchmarkTimestampCodecFraction(b *testing.B) { benchTS(b, true) }
