package hocon

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// keepPaths returns an Options.KeepDuplicates that keeps the objects at
// the given dotted paths ("" is the root).
func keepPaths(paths ...string) func([]string) bool {
	return func(path []string) bool {
		return slices.Contains(paths, strings.Join(path, "."))
	}
}

func keepAll([]string) bool { return true }

var keepCases = []struct {
	name string
	src  string
	keep func([]string) bool
	want string
}{
	{name: "two blocks of one name", keep: keepPaths("s"),
		src:  "s {\n  A { n = 1 }\n  B { }\n  A { n = 2 }\n}",
		want: `{"s":{"A":{"n":1},"B":{},"A":{"n":2}}}`},
	{name: "key = object", keep: keepPaths("s"),
		src:  "s { A = { n = 1 }, A : { n = 2 }, A { n = 3 } }",
		want: `{"s":{"A":{"n":1},"A":{"n":2},"A":{"n":3}}}`},
	{name: "other paths still merge", keep: keepPaths("s"),
		src:  "s { A { n = 1 } }\nt { A { n = 1, m = 1 } }\nt { A { n = 2 } }\ns2 { A {}, A {} }",
		want: `{"s":{"A":{"n":1}},"t":{"A":{"n":2,"m":1}},"s2":{"A":{}}}`},
	{name: "duplicates inside a kept field merge", keep: keepPaths("s"),
		src:  "s {\n  A {\n    row { a = 1 }\n    row { b = 2 }\n    n = 1\n    n = 2\n  }\n  A { row { c = 3 } }\n}",
		want: `{"s":{"A":{"row":{"a":1,"b":2},"n":2},"A":{"row":{"c":3}}}}`},
	{name: "nested kept paths", keep: keepPaths("s", "s.A"),
		src:  "s { A { x {}, x {} }, A { x {} } }",
		want: `{"s":{"A":{"x":{},"x":{}},"A":{"x":{}}}}`},
	{name: "blocks from two places", keep: keepPaths("s"),
		src:  "s { A { n = 1 } }\nx = 0\ns { A { n = 2 } }\ns.A { n = 3 }",
		want: `{"s":{"A":{"n":1},"A":{"n":2},"A":{"n":3}},"x":0}`},
	{name: "a path goes to the last field", keep: keepPaths("s"),
		src:  "s { A { n = 1 }, A { n = 2 } }\ns.A.row.num = 5\ns { A.m = 6 }",
		want: `{"s":{"A":{"n":1},"A":{"n":2,"row":{"num":5},"m":6}}}`},
	{name: "+= goes to the last field", keep: keepPaths("s"),
		src:  "s { A { n = 1 }, A { n = 2 } }\ns.A.l += x\ns.A.l += y",
		want: `{"s":{"A":{"n":1},"A":{"n":2,"l":["x","y"]}}}`},
	{name: "a scalar replaces the last field", keep: keepPaths("s"),
		src:  "s { A { n = 1 }, A { n = 2 }, A = 5 }",
		want: `{"s":{"A":{"n":1},"A":5}}`},
	{name: "an object after a scalar is its own field", keep: keepPaths("s"),
		src:  "s { A = 5, A { n = 1 } }",
		want: `{"s":{"A":5,"A":{"n":1}}}`},
	{name: "substitutions see the last field", keep: keepPaths("s"),
		src:  "s { A { n = 1 }, A { n = 2 } }\nv = ${s.A.n}\nw = ${s.A}\nq = \"${s.A.n}\"",
		want: `{"s":{"A":{"n":1},"A":{"n":2}},"v":2,"w":{"n":2},"q":"2"}`},
	{name: "a copy keeps the fields", keep: keepPaths("s"),
		src:  "s { A { n = 1 }, A { n = 2 } }\nc = ${s}\nc { A { m = 3 } }",
		want: `{"s":{"A":{"n":1},"A":{"n":2}},"c":{"A":{"n":1},"A":{"n":2,"m":3}}}`},
	{name: "merged over a substitution", keep: keepPaths("s"),
		src:  "base { A { n = 0 } }\ns = ${base}\ns { A { n = 1 }, A { n = 2 } }",
		want: `{"base":{"A":{"n":0}},"s":{"A":{"n":0},"A":{"n":1},"A":{"n":2}}}`},
	{name: "merged over an undefined substitution", keep: keepPaths("s"),
		src:  "s = ${?nope}\ns { A { n = 1 }, A { n = 2 } }",
		want: `{"s":{"A":{"n":1},"A":{"n":2}}}`},
	{name: "concatenated with a substitution", keep: keepPaths("s"),
		src:  "base { A { n = 0 }, B = 1 }\ns = ${base} { A { n = 1 }, A { n = 2 }, B = 2 }",
		want: `{"base":{"A":{"n":0},"B":1},"s":{"A":{"n":0},"B":2,"A":{"n":1},"A":{"n":2}}}`},
	{name: "included blocks", keep: keepPaths("s"),
		src:  "s {\n  A { n = 0 }\n  include \"plugins.conf\"\n  A { n = 3 }\n}",
		want: `{"s":{"A":{"n":0},"A":{"n":1},"A":{"n":2},"A":{"n":3}}}`},
	{name: "root", keep: keepPaths(""),
		src:  "A { n = 1 }\nA { n = 2 }",
		want: `{"A":{"n":1},"A":{"n":2}}`},
	{name: "never inside arrays", keep: keepAll,
		src:  "l = [ { A { n = 1 }, A { m = 2 } } ]\nl += { A { n = 1 }, A { m = 2 } }",
		want: `{"l":[{"A":{"n":1,"m":2}},{"A":{"n":1,"m":2}}]}`},
	{name: "self reference in a new field", keep: keepPaths("s"),
		src:  "s { A { p = a }, A { p = ${?s.A.p} b } }",
		want: `{"s":{"A":{"p":"a"},"A":{"p":"b"}}}`},
	{name: "nil keeps nothing",
		src:  "s { A { n = 1 }, A { m = 2 } }",
		want: `{"s":{"A":{"n":1,"m":2}}}`},
}

func TestKeepDuplicates(t *testing.T) {
	testFiles["plugins.conf"] = "A { n = 1 }\nA { n = 2 }\n"
	defer delete(testFiles, "plugins.conf")
	for _, tc := range keepCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.src), Options{File: "t.conf", ReadFile: readTestFile, SubstituteInQuoted: true, KeepDuplicates: tc.keep})
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestKeepDuplicatesPositions(t *testing.T) {
	src := "source {\n  FakeSource { plugin_output = a }\n  FakeSource {\n    plugin_output = b\n  }\n}\n"
	v, err := Parse([]byte(src), Options{File: "t.conf", KeepDuplicates: keepPaths("source")})
	if err != nil {
		t.Fatal(err)
	}
	fields := v.Get("source").Fields
	type at struct {
		key, out        string
		keyPos, valPos  string
		outLine, outCol int
	}
	var got []at
	for _, f := range fields {
		out := f.Value.Get("plugin_output")
		got = append(got, at{f.Key, out.Text, f.KeyPos.String(), f.Value.Pos.String(), out.Pos.Line, out.Pos.Col})
	}
	want := []at{
		{"FakeSource", "a", "t.conf:2:3", "t.conf:2:14", 2, 32},
		{"FakeSource", "b", "t.conf:3:3", "t.conf:3:14", 4, 21},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields\n got %+v\nwant %+v", got, want)
	}

	// The accessors take the first.
	if got := v.Lookup("source.FakeSource.plugin_output").String(); got != "a" {
		t.Errorf("Lookup = %q, want the first field's a", got)
	}
	if f := v.Get("source").Field("FakeSource"); f != fields[0] {
		t.Errorf("Field is not the first field")
	}
	m := v.ToAny().(map[string]any)["source"].(map[string]any)
	if got := m["FakeSource"].(map[string]any)["plugin_output"]; got != "a" {
		t.Errorf("ToAny kept %v, want the first field's a", got)
	}
}

// TestKeepDuplicatesAsks checks which paths KeepDuplicates is asked
// about: every object defined at a path, and nothing inside arrays.
func TestKeepDuplicatesAsks(t *testing.T) {
	src := "a.b { c = 1 }\nd = ${a} { e {} }\nf = [ { g {} } ]\nf += { h {} }\ni = { \"j.k\" {} }"
	asked := map[string]bool{}
	_, err := Parse([]byte(src), Options{File: "t.conf", KeepDuplicates: func(path []string) bool {
		asked[strings.Join(path, "/")] = true
		_ = append(path, "clobber") // must not change the parser's paths
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"": true, "a": true, "a/b": true, "d": true, "d/e": true, "i": true, "i/j.k": true}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("asked about %v, want %v", asked, want)
	}
}
