package orc

import (
	"bytes"
	"math/rand"
	"testing"
)

// readEverything opens data and reads all of its columns, as a reader of
// an untrusted file does; it returns the first error.
func readEverything(data []byte) error {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	cols := make([]int, len(f.Schema().Children))
	for i := range cols {
		cols[i] = i
	}
	rows, err := f.Rows(cols)
	if err != nil {
		return err
	}
	for read := 0; read < 1_000_000; {
		_, n, err := rows.Next(1024)
		if err != nil || n == 0 {
			return err
		}
		read += n
	}
	return nil
}

func sampleFiles(t testing.TB) map[string][]byte {
	schema := allTypes()
	rows := genRows(3, schema, 40, true)
	out := map[string][]byte{}
	for _, c := range []Compression{None, Zlib, Snappy, LZ4, Zstd} {
		out[c.String()] = writeFile(t, schema, rows, WriterOptions{Compression: c, StripeBytes: 2 << 10, BlockSize: 512}, 16)
	}
	return out
}

// TestDamagedFiles: every truncation of a file, and random byte changes,
// give an error or rows, never a panic.
func TestDamagedFiles(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for name, data := range sampleFiles(t) {
		if err := readEverything(data); err != nil {
			t.Fatalf("%s: the intact file: %v", name, err)
		}
		for n := 0; n < len(data); n++ {
			if err := readEverything(data[:n]); err == nil && n < len(data)-1 {
				// a shorter file that still parses is possible only
				// by chance; most must fail
				t.Logf("%s: %d of %d bytes read without error", name, n, len(data))
			}
		}
		for k := 0; k < 3000; k++ {
			d := append([]byte(nil), data...)
			for j := rng.Intn(3); j >= 0; j-- {
				d[rng.Intn(len(d))] ^= byte(1 + rng.Intn(255))
			}
			_ = readEverything(d)
		}
	}
	for _, bad := range [][]byte{nil, []byte("ORC"), []byte("not an orc file at all"), {0x4f, 0x52, 0x43, 0xff}} {
		if err := readEverything(bad); err == nil {
			t.Fatalf("%q reads", bad)
		}
	}
}

// FuzzRead: a reader of any bytes returns an error or rows, never panics
// or allocates without bound.
func FuzzRead(f *testing.F) {
	for _, d := range sampleFiles(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = readEverything(data)
	})
}
