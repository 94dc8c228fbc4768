package hocon

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzFiles are the files an include can reach while fuzzing.
var fuzzFiles = map[string]string{
	"inc.conf":       "x = 1\ny = ${?a}\nz { w = [1, 2] }\n",
	"loop.conf":      `include "loop.conf"`,
	"sub/deep.conf":  `include "../inc.conf"` + "\nq = 2",
	"broken.conf":    "a = {",
	"braced.conf":    `{ "k": "v" }`,
	"array.conf":     `[1, 2]`,
	"required.conf":  `include required("nothing.conf")`,
	"substs.conf":    "s = ${x}${x}\n",
	"selfref.conf":   "p = ${p}\":more\"\n",
	"optional.conf":  "o = ${?nope}\n",
	"quoted.conf":    `q = "${x} and ${nope}"`,
	"concat.conf":    "c = [1] [2] ${?c}\n",
	"duplicate.conf": "d { a = 1 }\nd { b = 2 }\nd = ${?d}\n",
}

func fuzzReadFile(path string) ([]byte, error) {
	if s, ok := fuzzFiles[path]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.src)
	}
	for _, tc := range errorCases {
		f.Add(tc.src)
	}
	f.Add(seaTunnelJob)
	for name := range fuzzFiles {
		f.Add(`include "` + name + `"`)
		f.Add("a { include file(\"" + name + "\") }\nb = ${a}")
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, inQuoted := range []bool{false, true} {
			v, err := Parse([]byte(src), Options{
				File:               "fuzz.conf",
				Resolve:            fuzzResolve,
				SubstituteInQuoted: inQuoted,
				ReadFile:           fuzzReadFile,
			})
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error is %T, not *Error: %v", err, err)
				}
				if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.File == "" {
					t.Fatalf("error without a position: %q", err)
				}
				if strings.HasPrefix(e.Msg, "internal error") {
					t.Fatalf("panic: %v", err)
				}
				if v != nil {
					t.Fatalf("value and error both returned")
				}
				continue
			}
			if v == nil || v.Kind != Object {
				t.Fatalf("root is not an object: %#v", v)
			}
			checkTree(t, v, 0)
			_ = v.String()
			_ = v.ToAny()
			if !utf8.ValidString(src) {
				continue // rendering replaces invalid UTF-8, so keys may collide
			}
			// A rendered document parses back to the same document.
			back, err := Parse([]byte(v.String()), Options{File: "render.conf"})
			if err != nil {
				t.Fatalf("rendering %q does not parse: %v", v.String(), err)
			}
			if back.String() != v.String() {
				t.Fatalf("render round trip:\n%s\n%s", v.String(), back.String())
			}
		}
	})
}

func fuzzResolve(name string) (string, bool) {
	switch name {
	case "x":
		return "X", true
	case "n":
		return "5", true
	case "e":
		return "", true
	}
	return "", false
}

// checkTree checks invariants of a parsed tree: positions are set, keys
// are unique, and accessors do not panic.
func checkTree(t *testing.T, v *Value, depth int) {
	t.Helper()
	if !v.Pos.IsValid() {
		t.Fatalf("value without position: %#v", v)
	}
	_, _ = v.Bool()
	_, _ = v.Int()
	_, _ = v.Float()
	switch v.Kind {
	case Object:
		seen := map[string]bool{}
		for _, f := range v.Fields {
			if seen[f.Key] {
				t.Fatalf("duplicate key %q", f.Key)
			}
			seen[f.Key] = true
			if !f.KeyPos.IsValid() {
				t.Fatalf("key %q without position", f.Key)
			}
			if v.Get(f.Key) != f.Value {
				t.Fatalf("Get(%q) is not the field's value", f.Key)
			}
			checkTree(t, f.Value, depth+1)
		}
	case Array:
		for _, it := range v.Items {
			checkTree(t, it, depth+1)
		}
	}
}
