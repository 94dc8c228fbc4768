package literal

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

func value(t testing.TB, src string) *hocon.Value {
	t.Helper()
	root, err := hocon.Parse([]byte("v = "+src), hocon.Options{File: "x.conf"})
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return root.Get("v")
}

func TestConvert(t *testing.T) {
	cases := []struct {
		typ  string
		src  string
		want any
	}{
		{"string", `"a b"`, "a b"},
		{"string", `12`, "12"},
		{"string", `{ a = 1 }`, `{"a":1}`},
		{"boolean", `true`, true},
		{"boolean", `"false"`, false},
		{"tinyint", `-128`, int64(-128)},
		{"bigint", `"42"`, int64(42)},
		{"float", `3.1`, float64(float32(3.1))},
		{"double", `"1e10"`, 1e10},
		{"decimal(30, 8)", `99999.99999999`, decimal.RequireFromString("99999.99999999")},
		{"decimal(5, 2)", `"1.005"`, decimal.RequireFromString("1.01")},
		{"date", `"2012-12-21"`, time.Date(2012, 12, 21, 0, 0, 0, 0, time.UTC)},
		{"time", `"12:34:56"`, 12*time.Hour + 34*time.Minute + 56*time.Second},
		{"timestamp", `"2012-12-21T12:34:56"`, time.Date(2012, 12, 21, 12, 34, 56, 0, time.UTC)},
		{"timestamp", `"2012-12-21 12:34:56.5"`, time.Date(2012, 12, 21, 12, 34, 56, 5e8, time.UTC)},
		{"bytes", `"bWlJWmo="`, []byte("miIZj")},
		{"bytes", `"bWlJWmo"`, []byte("miIZj")},
		{"array<int>", `[1, null, 3]`, []any{int64(1), nil, int64(3)}},
		{"array<int>", `"[1, 2]"`, []any{}},
		{"map<string, int>", `{ b = 1, a = 2 }`, &row.MapValue{Keys: []any{"b", "a"}, Values: []any{int64(1), int64(2)}}},
		{"map<int, string>", `{ 1 = x }`, &row.MapValue{Keys: []any{int64(1)}, Values: []any{"x"}}},
		{"map<time, string>", `"{ 12:01:26 = v0 }"`, &row.MapValue{}},
		{"map<time, string>", `{ "12:01:26" = v0 }`, &row.MapValue{Keys: []any{12*time.Hour + 1*time.Minute + 26*time.Second}, Values: []any{"v0"}}},
		{"row<a int, b string>", `[1, "x"]`, []any{int64(1), "x"}},
		{"row<a int, b string>", `{ b = y }`, []any{nil, "y"}},
		{"null", `"anything"`, nil},
		{"int", `null`, nil},
	}
	for _, c := range cases {
		typ, err := row.ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Convert(typ, value(t, c.src))
		if err != nil {
			t.Errorf("%s %s: %v", c.typ, c.src, err)
			continue
		}
		if d, ok := c.want.(decimal.Decimal); ok {
			if g, ok := got.(decimal.Decimal); !ok || !g.Equal(d) {
				t.Errorf("%s %s = %v, want %v", c.typ, c.src, got, c.want)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s = %#v, want %#v", c.typ, c.src, got, c.want)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	cases := []struct{ typ, src, msg string }{
		{"int", `"x"`, "not an integer"},
		{"tinyint", `200`, "out of range"},
		{"int", `1.5`, "not an integer"},
		{"bytes", `"not base64!"`, "not base64"},
		{"date", `"2024-13-01"`, "not a date"},
		{"array<int>", "[1,\n \"x\"]", "element 1"},
		{"map<string, int>", "{ a = 1,\n b = x }", `map value of "b"`},
		{"row<a int, b string>", `[1]`, "1 values"},
		{"decimal(3, 1)", `12345`, "digits before the point"},
	}
	for _, c := range cases {
		typ, _ := row.ParseType(c.typ)
		_, err := Convert(typ, value(t, c.src))
		var le *Error
		if !errors.As(err, &le) || le.At == nil || le.At.Pos.File != "x.conf" {
			t.Errorf("%s %s: want a positioned *Error, got %v", c.typ, c.src, err)
			continue
		}
		if !strings.Contains(le.Msg, c.msg) {
			t.Errorf("%s %s: %q does not say %q", c.typ, c.src, le.Msg, c.msg)
		}
		if strings.Contains(c.src, "\n") && le.At.Pos.Line != 2 {
			t.Errorf("%s %s: error at line %d, want the nested value on line 2", c.typ, c.src, le.At.Pos.Line)
		}
	}
}

func TestParseType(t *testing.T) {
	cases := map[string]string{
		`"map<string, {c_int = int, c_string = string}>"`: "map<string, row<c_int int, c_string string>>",
		`{ a = int, b = { c = "array<bigint>" } }`:        "row<a int, b row<c array<bigint>>>",
		`"decimal(30, 8)"`: "decimal(30, 8)",
	}
	for src, want := range cases {
		got, err := ParseType(value(t, src))
		if err != nil || got.String() != want {
			t.Errorf("%s: %v %v, want %s", src, got, err, want)
		}
	}
	if _, err := ParseType(value(t, `"strng"`)); err == nil {
		t.Error("a bad type name parsed")
	}
}

// FuzzConvert: no input makes Convert panic, whatever the type.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{`1`, `"x"`, `[1, [2]]`, `{ a = { b = 1 } }`, `null`, `"bWlJWmo="`, `1e400`} {
		f.Add(s)
	}
	types := []string{"int", "tinyint", "float", "double", "decimal(10, 2)", "bytes", "date", "time", "timestamp",
		"array<map<string, int>>", "row<a int, b array<string>>", "map<int, decimal(5, 1)>", "boolean", "string"}
	f.Fuzz(func(t *testing.T, src string) {
		root, err := hocon.Parse([]byte("v = "+src), hocon.Options{})
		if err != nil || root.Get("v") == nil {
			return
		}
		for _, ts := range types {
			typ, _ := row.ParseType(ts)
			Convert(typ, root.Get("v"))
		}
	})
}
