package row

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestJavaDecimal(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  string
	}{
		{"99999.99999999", 8, "99999.99999999"},
		{"10.5", 2, "10.50"},
		{"-3", 2, "-3.00"},
		{"-12.5", 2, "-12.50"},
		{"0.00000001", 8, "1E-8"},
		{"0.0000001", 7, "1E-7"},
		{"-0.00000012", 9, "-1.20E-7"},
		{"0", 8, "0E-8"},
		{"0", 0, "0"},
		{"0.000001", 6, "0.000001"},
		{"0.0012", 4, "0.0012"},
		{"1.23", 10, "1.2300000000"},
		{"123", 0, "123"},
		{"1.005", 2, "1.01"},
		{"-1.005", 2, "-1.01"},
		{"12345678901234567890.123456789", 9, "12345678901234567890.123456789"},
		{"-12345678901234567890.123456789", 3, "-12345678901234567890.123"},
		{"0.000000000000000000000000000001", 30, "1E-30"},
		{"1000", -3, "1E+3"},
		{"1234", -2, "1.2E+3"},
		{"0", -2, "0E+2"},
		{"999999999999999999", 0, "999999999999999999"},
		{"9999999999999999999", 0, "9999999999999999999"},
	} {
		d := decimal.RequireFromString(tc.in)
		if got := JavaDecimal(d, tc.scale); got != tc.want {
			t.Errorf("JavaDecimal(%s, %d) = %s, want %s", tc.in, tc.scale, got, tc.want)
		}
		if got := string(AppendJavaDecimal([]byte("x"), d, tc.scale)); got != "x"+tc.want {
			t.Errorf("AppendJavaDecimal(%s, %d) = %s, want x%s", tc.in, tc.scale, got, tc.want)
		}
	}
	if got := JavaDecimal(decimal.Decimal{}, 2); got != "0.00" {
		t.Errorf("zero Decimal: %s", got)
	}
}

func TestAppendJavaDecimalAllocates(t *testing.T) {
	d := decimal.RequireFromString("-1234.5678")
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendJavaDecimal(buf[:0], d, 6) }); n != 0 {
		t.Errorf("%v allocations per value", n)
	}
	if string(buf) != "-1234.567800" {
		t.Errorf("got %s", buf)
	}
}

func TestAppendJSONString(t *testing.T) {
	for in, want := range map[string]string{
		"":                 `""`,
		"plain":            `"plain"`,
		`a"b\c`:            `"a\"b\\c"`,
		"\b\t\n\f\r":       `"\b\t\n\f\r"`,
		"\x00\x01\x1f\x7f": `"\u0000\u0001\u001F` + "\x7f" + `"`,
		"straße ✓ 😀":       `"straße ✓ 😀"`,
		"bad\xffbyte\xc3":  "\"bad\uFFFDbyte\uFFFD\"",
		"</script>\u2028":  "\"</script>\u2028\"",
	} {
		if got := string(AppendJSONString([]byte("x"), in)); got != "x"+want {
			t.Errorf("AppendJSONString(%q) = %s, want x%s", in, got, want)
		}
	}
}
