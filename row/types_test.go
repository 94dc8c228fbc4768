package row

import (
	"strings"
	"testing"
)

// TestParseInlineRow: SeaTunnel's inline row syntax, a HOCON object inside
// a type string, reads as row<...>.
func TestParseInlineRow(t *testing.T) {
	cases := []struct{ in, want string }{
		{"map<string, {c_int=int\nc_string=string}>", "map<string, row<c_int int, c_string string>>"},
		{"map<string, {c_int=int,c_string=string}>", "map<string, row<c_int int, c_string string>>"},
		{"map<string, {c_int=int,c_string=string,c_row={c_int=int}}>", "map<string, row<c_int int, c_string string, c_row row<c_int int>>>"},
		{`map<string, {"c_int":"int","c_string":"string"}>`, "map<string, row<c_int int, c_string string>>"},
		{"{a = decimal\n  b = \"map<string, int>\", c { d = int }\n}", "row<a decimal(38, 18), b map<string, int>, c row<d int>>"},
		{"array<{ `a b` = \"decimal(10, 2)\" }>", "array<row<`a b` decimal(10, 2)>>"},
		{"{}", "row<>"},
		{"{,a=int,}", "row<a int>"},
	}
	for _, c := range cases {
		got, err := ParseType(c.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("ParseType(%q) = %s, want %s", c.in, got, c.want)
		}
		if back, err := ParseType(got.String()); err != nil || !back.Equal(got) {
			t.Errorf("%s does not read back: %v", got, err)
		}
	}
	for in, msg := range map[string]string{
		"{a = int b = int}": "expected ',', a newline or '}' after field \"a\"",
		"{a int}":           "expected '=' after field \"a\"",
		"{a = int":          "expected '}' at end",
		`{a = "int}`:        "unterminated quoted type",
		`{a = "intx"}`:      `unknown type name "intx"`,
		"{= int}":           "expected a field name",
	} {
		if _, err := ParseType(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseType(%q): error %v, want %q", in, err, msg)
		}
	}
}

// FuzzParseType: whatever ParseType reads renders as a type that reads
// back equal.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"int", "decimal(10, 2)", "map<string, {a = int\nb = \"array<int>\"}>", "row<`a b` int, c: string>", "{x {y = bytes}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			return
		}
		back, err := ParseType(typ.String())
		if err != nil || !back.Equal(typ) || back.String() != typ.String() {
			t.Fatalf("%q read as %s, which reads back as %v (%v)", s, typ, back, err)
		}
	})
}
