package sqlengine

import (
	"math"
	"strconv"
	"testing"
)

// The constants are fdlibm's bit patterns.
func TestFdlibmConstants(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		bits uint64
	}{
		{fdlibmTwo54, 0x4350000000000000}, {fdlibmLn2Hi, 0x3fe62e42fee00000}, {fdlibmLn2Lo, 0x3dea39ef35793c76},
		{fdlibmLg1, 0x3FE5555555555593}, {fdlibmLg2, 0x3FD999999997FA04}, {fdlibmLg3, 0x3FD2492494229359},
		{fdlibmLg4, 0x3FCC71C51D8E78AF}, {fdlibmLg5, 0x3FC7466496CB03DE}, {fdlibmLg6, 0x3FC39A09D078C69F},
		{fdlibmLg7, 0x3FC2F112DF3E5244}, {fdlibmIvln10, 0x3FDBCB7B1526E50E}, {fdlibmLog2Hi, 0x3FD34413509F6000},
		{fdlibmLog2Lo, 0x3D59FEF311F12B36},
	} {
		if got := math.Float64bits(tc.v); got != tc.bits {
			t.Errorf("%v: bits %#x, want %#x", tc.v, got, tc.bits)
		}
	}
}

func TestJavaLog10(t *testing.T) {
	// Java's Math.log10 of 10^n is n (its documented guarantee).
	for n := -307; n <= 308; n++ {
		x, _ := strconv.ParseFloat("1e"+strconv.Itoa(n), 64)
		if got := javaLog10(x); got != float64(n) {
			t.Errorf("log10(1e%d) = %v", n, got)
		}
	}
	// Values as Java prints Math.log10 of them.
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{2, "0.3010299956639812"}, {3, "0.47712125471966244"}, {5, "0.6989700043360189"},
		{7, "0.8450980400142568"}, {0.5, "-0.3010299956639812"}, {1, "0"},
		{math.Inf(1), "+Inf"}, {0, "-Inf"}, {-1, "NaN"}, {math.NaN(), "NaN"},
		{5e-324, "-323.3062153431158"}, {math.MaxFloat64, "308.25471555991675"},
	} {
		if got := strconv.FormatFloat(javaLog10(tc.x), 'g', -1, 64); got != tc.want {
			t.Errorf("log10(%v) = %s, want %s", tc.x, got, tc.want)
		}
	}
	// fdlibm's log agrees with Go's (both are e_log.c) on ordinary values.
	for _, x := range []float64{0.1, 2, 3, 12.34, 1e-300, 1e300, 123456789, 1 + 1e-9} {
		if a, b := javaLog(x), math.Log(x); a != b {
			t.Errorf("log(%v): fdlibm %v, Go %v", x, a, b)
		}
	}
}
