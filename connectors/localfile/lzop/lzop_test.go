package lzop

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// samples are inputs that reach every instruction the compressor emits:
// short and long literal runs, M3 and M4 matches (repeats within 16 KiB
// and 16..48 KiB back), long matches, and several blocks.
func samples() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	far := random(20000)
	far = append(far, far[:5000]...) // an M4 match
	var text bytes.Buffer
	for i := range 20000 {
		text.WriteString("row ")
		text.WriteString(strings.Repeat("x", i%7))
		text.WriteString(",value\n")
	}
	mixed := make([]byte, 0, 3*BlockSize)
	for len(mixed) < 3*BlockSize+17 {
		if r.IntN(2) == 0 {
			mixed = append(mixed, random(1+r.IntN(40))...)
		} else if len(mixed) > 100 {
			from := r.IntN(len(mixed) - 50)
			mixed = append(mixed, mixed[from:from+3+r.IntN(45)]...)
		}
	}
	return map[string][]byte{
		"empty": nil, "one": {'a'}, "three": []byte("abc"), "short": []byte("abcdabcdabcd"),
		"zeros": make([]byte, 100000), "random": random(70000), "far": far,
		"text": text.Bytes(), "mixed": mixed, "lit-then-match": append(random(2), bytes.Repeat([]byte("xy"), 50)...),
	}
}

func TestBlockRoundTrip(t *testing.T) {
	for name, in := range samples() {
		for off := 0; off < len(in); off += BlockSize {
			block := in[off:min(off+BlockSize, len(in))]
			c := Compress(nil, block)
			out, err := Decompress(c, len(block))
			if err != nil || !bytes.Equal(out, block) {
				t.Fatalf("%s at %d: %v (%d bytes back of %d)", name, off, err, len(out), len(block))
			}
		}
	}
}

func TestStreamRoundTrip(t *testing.T) {
	for name, in := range samples() {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		// odd write sizes cross block boundaries
		for rest := in; len(rest) > 0; {
			n := min(len(rest), 1+len(rest)%9999)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("%s: %v (%d bytes of %d)", name, err, len(out), len(in))
		}
	}
}

// TestAgainstLzop checks both directions against the lzop tool (lzop's
// C implementation of LZO1X), when it is installed.
func TestAgainstLzop(t *testing.T) {
	bin, err := exec.LookPath("lzop")
	if err != nil {
		t.Skip("lzop is not installed (apt-get install lzop): the cross-check needs it")
	}
	dir := t.TempDir()
	for name, in := range samples() {
		// lzop compresses, we decompress (lzop -1 and -9 use LZO1X-1 and -999)
		for _, level := range []string{"-1", "-9"} {
			raw := filepath.Join(dir, name)
			if err := os.WriteFile(raw, in, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, level, "-f", "-o", raw+".lzo", raw).CombinedOutput(); err != nil {
				t.Fatalf("lzop: %v: %s", err, out)
			}
			f, err := os.Open(raw + ".lzo")
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(f)
			if err != nil {
				t.Fatalf("%s %s: %v", name, level, err)
			}
			got, err := io.ReadAll(r)
			f.Close()
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s %s: reading lzop's file: %v (%d bytes of %d)", name, level, err, len(got), len(in))
			}
		}
		// we compress, lzop decompresses and tests
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Write(in)
		w.Close()
		path := filepath.Join(dir, name+".ours.lzo")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "-d", "-c", path).Output()
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("%s: lzop -d of our file: %v (%d bytes of %d)", name, err, len(out), len(in))
		}
	}
}

// TestCorrupt: damaged blocks and streams are errors, never panics or
// wrong data.
func TestCorrupt(t *testing.T) {
	in := samples()["mixed"][:BlockSize]
	c := Compress(nil, in)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		bad := append([]byte(nil), c...)
		switch i % 3 {
		case 0:
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		case 1:
			bad = bad[:r.IntN(len(bad))]
		default:
			for k := 0; k < 5; k++ {
				bad[r.IntN(len(bad))] = byte(r.IntN(256))
			}
		}
		out, err := Decompress(bad, len(in))
		if err == nil && !bytes.Equal(out, in) && len(out) != len(in) {
			t.Fatalf("mutant %d decoded to %d bytes without an error", i, len(out))
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write(in)
	w.Close()
	stream := buf.Bytes()
	for i := range 500 {
		bad := append([]byte(nil), stream...)
		bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		z, err := NewReader(bytes.NewReader(bad))
		if err != nil {
			continue
		}
		if out, err := io.ReadAll(z); err == nil && !bytes.Equal(out, in) {
			t.Fatalf("stream mutant %d read wrong data without an error", i)
		}
	}
	if _, err := NewReader(strings.NewReader("not lzop")); err == nil {
		t.Fatal("a text file read as lzop")
	}
}

func FuzzDecompress(f *testing.F) {
	f.Add(Compress(nil, []byte("hello hello hello hello")), 23)
	f.Add([]byte{0x11, 0, 0}, 0)
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		Decompress(src, n)
	})
}

// BenchmarkCompress and BenchmarkDecompress measure the codec on csv-like
// text, one lzop block at a time (go test -bench . ./connectors/localfile/lzop).
func BenchmarkCompress(b *testing.B) {
	in := samples()["text"][:BlockSize]
	b.SetBytes(int64(len(in)))
	var out []byte
	for b.Loop() {
		out = Compress(out[:0], in)
	}
	b.ReportMetric(float64(len(out))/float64(len(in)), "ratio")
}

func BenchmarkDecompress(b *testing.B) {
	in := samples()["text"][:BlockSize]
	c := Compress(nil, in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Decompress(c, len(in)); err != nil {
			b.Fatal(err)
		}
	}
}
