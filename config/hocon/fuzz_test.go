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
	"plugins.conf":   "A { n = 1 }\nA { n = 2 }\nA.m = 3\n",
}

// fuzzKeep keeps repeated keys in objects named like SeaTunnel's plugin
// blocks, and in a and d, which the seeds use a lot.
func fuzzKeep(path []string) bool {
	if len(path) == 0 {
		return false
	}
	switch path[len(path)-1] {
	case "a", "d", "s", "source", "transform", "sink":
		return true
	}
	return false
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
	for _, tc := range keepCases {
		f.Add(tc.src)
	}
	for name := range fuzzFiles {
		f.Add(`include "` + name + `"`)
		f.Add("a { include file(\"" + name + "\") }\nb = ${a}")
	}
	f.Fuzz(func(t *testing.T, src string) {
		var results [4]*Value // by run; nil for errors
		for run := range 4 {
			inQuoted, keep := run&1 == 1, run&2 == 2
			opts := Options{
				File:               "fuzz.conf",
				Resolve:            fuzzResolve,
				SubstituteInQuoted: inQuoted,
				ReadFile:           fuzzReadFile,
			}
			if keep {
				opts.KeepDuplicates = fuzzKeep
			}
			v, err := Parse([]byte(src), opts)
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
			checkTree(t, v, 0, keep)
			results[run] = v
			_ = v.String()
			_ = v.ToAny()
			if !utf8.ValidString(src) {
				continue // rendering replaces invalid UTF-8, so keys may collide
			}
			// A rendered document parses back to the same document. One
			// with repeated keys does if they are kept everywhere, unless
			// a later one is not an object (it then replaces the one
			// before) or they are inside an array (never kept).
			backOpts := Options{File: "render.conf"}
			if keep {
				if !rendersBack(v, false) {
					continue
				}
				backOpts.KeepDuplicates = func([]string) bool { return true }
			}
			back, err := Parse([]byte(v.String()), backOpts)
			if err != nil {
				t.Fatalf("rendering %q does not parse: %v", v.String(), err)
			}
			if back.String() != v.String() {
				t.Fatalf("render round trip:\n%s\n%s", v.String(), back.String())
			}
		}
		// Keeping repeated keys changes nothing in a document that ends
		// up with none.
		for _, inQuoted := range []int{0, 1} {
			plain, kept := results[inQuoted], results[inQuoted|2]
			if plain != nil && kept != nil && !hasDups(kept) && plain.String() != kept.String() {
				t.Fatalf("KeepDuplicates changed a document without repeated keys:\n%s\n%s", plain, kept)
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
// are unique (unless dups, for Options.KeepDuplicates), Get finds the
// first field of a key, and accessors do not panic.
func checkTree(t *testing.T, v *Value, depth int, dups bool) {
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
			if seen[f.Key] && !dups {
				t.Fatalf("duplicate key %q", f.Key)
			}
			if !f.KeyPos.IsValid() {
				t.Fatalf("key %q without position", f.Key)
			}
			if !seen[f.Key] && v.Get(f.Key) != f.Value {
				t.Fatalf("Get(%q) is not the first field's value", f.Key)
			}
			seen[f.Key] = true
			checkTree(t, f.Value, depth+1, dups)
		}
	case Array:
		for _, it := range v.Items {
			checkTree(t, it, depth+1, dups)
		}
	}
}

// hasDups reports whether any object in v repeats a key.
func hasDups(v *Value) bool {
	seen := map[string]bool{}
	for _, f := range v.Fields {
		if seen[f.Key] || hasDups(f.Value) {
			return true
		}
		seen[f.Key] = true
	}
	for _, it := range v.Items {
		if hasDups(it) {
			return true
		}
	}
	return false
}

// rendersBack reports whether v's repeated keys survive rendering and
// parsing with every object kept: a repeated key must be an object each
// time after the first, and not inside an array.
func rendersBack(v *Value, inArray bool) bool {
	switch v.Kind {
	case Object:
		seen := map[string]bool{}
		for _, f := range v.Fields {
			if seen[f.Key] && (inArray || f.Value.Kind != Object) {
				return false
			}
			seen[f.Key] = true
			if !rendersBack(f.Value, inArray) {
				return false
			}
		}
	case Array:
		for _, it := range v.Items {
			if !rendersBack(it, true) {
				return false
			}
		}
	}
	return true
}
