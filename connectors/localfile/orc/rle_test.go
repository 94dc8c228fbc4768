package orc

import (
	"math/big"
	"math/rand"
	"testing"
)

func decodeInts(t *testing.T, r intReader, n int) []int64 {
	t.Helper()
	out := make([]int64, n)
	for i := range out {
		v, err := r.next()
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		out[i] = v
	}
	if _, err := r.next(); err == nil {
		t.Fatalf("more than %d values", n)
	}
	return out
}

func equalInts(t *testing.T, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("value %d: got %d, want %d (got %v)", i, got[i], want[i], got)
		}
	}
}

// The examples of the specification's Run Length Encoding section.
func TestRLEv2SpecExamples(t *testing.T) {
	primes := []int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}
	patched := []int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190}
	cases := []struct {
		name string
		in   []byte
		want []int64
	}{
		{"short repeat", []byte{0x0a, 0x27, 0x10}, []int64{10000, 10000, 10000, 10000, 10000}},
		{"direct", []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}, []int64{23713, 43806, 57005, 48879}},
		{"patched base", []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}, patched},
		{"delta", []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}, primes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			equalInts(t, decodeInts(t, &rleV2{b: c.in}, len(c.want)), c.want)
		})
	}
}

func TestRLEv1SpecExamples(t *testing.T) {
	seven := make([]int64, 100)
	down := make([]int64, 100)
	for i := range seven {
		seven[i], down[i] = 7, int64(100-i)
	}
	equalInts(t, decodeInts(t, &rleV1{b: []byte{0x61, 0x00, 0x07}}, 100), seven)
	equalInts(t, decodeInts(t, &rleV1{b: []byte{0x61, 0xff, 0x64}}, 100), down)
	equalInts(t, decodeInts(t, &rleV1{b: []byte{0xfb, 0x02, 0x03, 0x06, 0x07, 0xb}}, 5), []int64{2, 3, 6, 7, 11})
}

func TestByteAndBoolRLESpecExamples(t *testing.T) {
	r := &byteReader{b: []byte{0x61, 0x00}}
	for i := 0; i < 100; i++ {
		if v, err := r.next(); err != nil || v != 0 {
			t.Fatalf("value %d: %d %v", i, v, err)
		}
	}
	r = &byteReader{b: []byte{0xfe, 0x44, 0x45}}
	for _, want := range []byte{0x44, 0x45} {
		if v, err := r.next(); err != nil || v != want {
			t.Fatalf("got %x %v, want %x", v, err, want)
		}
	}
	// [0xff, 0x80] is one true then seven false (as byte RLE literals)
	br := &boolReader{bytes: byteReader{b: []byte{0xfe, 0xff, 0x80}}}
	for i := 0; i < 16; i++ {
		v, err := br.next()
		if err != nil || v != (i < 8 || i == 8) {
			t.Fatalf("bit %d: %v %v", i, v, err)
		}
	}
}

// TestRLERoundTrip: what the encoders write, the decoders read back, for
// runs, literals, extremes and random values, signed and unsigned.
func TestRLERoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var seqs [][]int64
	seqs = append(seqs, []int64{}, []int64{0}, []int64{-1, 1}, []int64{1 << 62, -1 << 63, 1<<63 - 1})
	for _, n := range []int{3, 10, 11, 511, 512, 513, 2000} {
		s := make([]int64, n)
		for i := range s {
			s[i] = -42
		}
		seqs = append(seqs, s)
	}
	for k := 0; k < 50; k++ {
		s := make([]int64, rng.Intn(1500))
		bitsN := rng.Intn(64)
		for i := range s {
			s[i] = rng.Int63() >> bitsN
			if rng.Intn(2) == 0 {
				s[i] = -s[i]
			}
			if rng.Intn(5) == 0 && i > 0 {
				s[i] = s[i-1]
			}
		}
		seqs = append(seqs, s)
	}
	for _, s := range seqs {
		for _, signed := range []bool{true, false} {
			vals := s
			if !signed {
				vals = make([]int64, len(s))
				for i, v := range s {
					vals[i] = v & (1<<63 - 1)
				}
			}
			enc := appendRLEv2(nil, vals, signed)
			equalInts(t, decodeInts(t, &rleV2{b: enc, signed: signed}, len(vals)), vals)
		}
		bs := make([]byte, len(s))
		bools := make([]bool, len(s))
		for i, v := range s {
			bs[i], bools[i] = byte(v), v&1 == 1
		}
		r := &byteReader{b: appendByteRLE(nil, bs)}
		for i, want := range bs {
			if v, err := r.next(); err != nil || v != want {
				t.Fatalf("byte %d: %d %v, want %d", i, v, err, want)
			}
		}
		br := &boolReader{bytes: byteReader{b: appendBoolRLE(nil, bools)}}
		for i, want := range bools {
			if v, err := br.next(); err != nil || v != want {
				t.Fatalf("bool %d: %v %v, want %v", i, v, err, want)
			}
		}
	}
}

func TestDecimalVarint(t *testing.T) {
	max38, _ := new(big.Int).SetString("99999999999999999999999999999999999999", 10)
	for _, s := range []string{"0", "1", "-1", "63", "-64", "9223372036854775807", "-9223372036854775808", "18446744073709551616"} {
		x, _ := new(big.Int).SetString(s, 10)
		for _, v := range []*big.Int{x, max38, new(big.Int).Neg(max38)} {
			b := appendDecimal(nil, v)
			var got big.Int
			n, err := readDecimal(b, &got)
			if err != nil || n != len(b) || got.Cmp(v) != 0 {
				t.Fatalf("%s: got %s (%d of %d bytes) %v", v, &got, n, len(b), err)
			}
		}
	}
	if _, err := readDecimal([]byte{0x80, 0x80}, new(big.Int)); err == nil {
		t.Fatal("a truncated varint reads")
	}
	long := make([]byte, 20)
	for i := range long {
		long[i] = 0xff
	}
	if _, err := readDecimal(long, new(big.Int)); err == nil {
		t.Fatal("a varint of 140 bits reads")
	}
}

func TestFormatNanos(t *testing.T) {
	// the specification: 1000 ns is 0x0a and 100000 ns 0x0c
	if formatNanos(1000) != 0x0a || formatNanos(100000) != 0x0c {
		t.Fatalf("1000 -> %#x, 100000 -> %#x", formatNanos(1000), formatNanos(100000))
	}
	for _, ns := range []int64{0, 1, 100, 999_999_999, 123_000_000, 500_000_000, 10} {
		f := formatNanos(ns)
		got := f >> 3
		if z := f & 7; z != 0 {
			for k := int64(0); k <= z; k++ {
				got *= 10
			}
		}
		if got != ns {
			t.Fatalf("%d -> %#x -> %d", ns, f, got)
		}
	}
}
