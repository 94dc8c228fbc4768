package localfile

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

func TestPlainDecimal(t *testing.T) {
	if got := plainDecimal(decimal.RequireFromString("10.500")); got != "10.5" {
		t.Errorf("plain %s", got)
	}
}

func TestFastTimeFormatsMatchLayouts(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	for i := 0; i < 20000; i++ {
		sec, nano := lo+rng.Int63n(hi-lo+1), int32(rng.Int63n(1e9))
		if i%3 == 0 {
			nano = 0
		}
		tm := time.Unix(sec, int64(nano)).UTC()
		if got, want := string(row.AppendTimestamp(nil, sec, nano, 'T', true)), tm.Format("2006-01-02T15:04:05.999999999"); got != want {
			t.Fatalf("%d: got %s want %s", sec, got, want)
		}
		if got, want := string(row.AppendTimestamp(nil, sec, nano, ' ', false)), tm.Format("2006-01-02 15:04:05"); got != want {
			t.Fatalf("%d: got %s want %s", sec, got, want)
		}
		days := row.DateOf(tm)
		if got, want := string(row.AppendDate(nil, days)), tm.Format("2006-01-02"); got != want {
			t.Fatalf("%d: got %s want %s", days, got, want)
		}
		if s, n, ok := fastTimestamp(tm.Format("2006-01-02 15:04:05.999999999")); !ok || s != sec || n != nano {
			t.Fatalf("fastTimestamp(%v) = %d %d %v", tm, s, n, ok)
		}
	}
}

func TestJavaLayout(t *testing.T) {
	for pat, want := range map[string]string{
		"yyyy-MM-dd":              "2006-01-02",
		"yyyy.MM.dd":              "2006.01.02",
		"yyyyMMddHHmmss":          "20060102150405",
		"HH:mm:ss.SSS":            "15:04:05.000",
		"yyyy-MM-dd'T'HH:mm:ss":   "2006-01-02T15:04:05",
		"yyyy/MM/dd HH:mm:ss":     "2006/01/02 15:04:05",
		"dd MMM yyyy hh:mm a EEE": "02 Jan 2006 03:04 PM Mon",
	} {
		got, err := javaLayout(pat)
		if err != nil || got != want {
			t.Errorf("javaLayout(%q) = %q, %v; want %q", pat, got, err, want)
		}
	}
	for _, bad := range []string{"yyyy-QQ", "HHmmssSSS", "H:mm", "'open"} {
		if _, err := javaLayout(bad); err == nil {
			t.Errorf("javaLayout(%q) accepted", bad)
		}
	}
}

func TestSplitCSVAndText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`a,b,c`, []string{"a", "b", "c"}},
		{`a,,`, []string{"a", "", ""}},
		{`"a,b","say ""x""",`, []string{"a,b", `say "x"`, ""}},
		{"\"multi\nline\",x", []string{"multi\nline", "x"}},
		{`"",x`, []string{"", "x"}},
		{`a"b,c`, []string{`a"b`, "c"}},
	} {
		fs, err := splitCSV(nil, tc.in, ",", '"')
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.s)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`"open`, `"a"b,c`} {
		if _, err := splitCSV(nil, bad, ",", '"'); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if fs := splitText(nil, "a||b||", "||"); len(fs) != 3 || fs[2].s != "" {
		t.Errorf("splitText: %v", fs)
	}
}

// FuzzCSVQuoting checks that what the csv writer quotes, the csv reader
// reads back unchanged, and that nothing makes either panic.
func FuzzCSVQuoting(f *testing.F) {
	for _, s := range []string{"", "a", "a,b", `"`, "x\ny", " lead", "#", "\u0001", "é,\"é\""} {
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		r := newTextRender(",", timeFormats{}, true, "MINIMAL")
		line := string(r.appendCSVString(append(r.appendCSVString(nil, a), ','), b))
		fs, err := splitCSV(nil, line, ",", '"')
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(fs) != 2 || fs[0].s != a || fs[1].s != b {
			t.Fatalf("%q -> %q -> %+v", a+"|"+b, line, fs)
		}
		splitCSV(nil, a, ",", '"')
	})
}

// FuzzJSONLine checks that no input makes the json reader panic.
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"x","b":[1,{"c":null}]}`, `{`, `{"a":"\u00`, `[1]`, `{"m":{"k":1.5e300}}`} {
		f.Add(s)
	}
	schema := row.MustSchema("t", row.Field{Name: "a", Type: row.Int}, row.Field{Name: "b", Type: row.ArrayOf(row.String)},
		row.Field{Name: "m", Type: row.MapOf(row.String, row.Double)}, row.Field{Name: "s", Type: row.String})
	f.Fuzz(func(t *testing.T, line string) {
		sc := &sourceConfig{format: formatJSON, data: schema.Fields, proj: []int{0, 1, 2, 3}}
		l := &lineSplit{cfg: sc, index: map[string]int{"a": 0, "b": 1, "m": 2, "s": 3}, names: schema.Names(), seen: make([]bool, 4)}
		l.json.text = &sc.values
		b := row.NewBuilder(schema, 1)
		cols := []*row.Column{b.Col(0), b.Col(1), b.Col(2), b.Col(3)}
		l.parseJSON(line, cols)
	})
}
