package hocon

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// vars is the variable resolver used by the tests, as a command line
// with -i X=42 -i N=5 ... would supply it.
var vars = map[string]string{
	"X":    "42",
	"N":    "5",
	"A":    "20",
	"PATH": "/usr/bin",
	"age":  "18",
	"dt":   "2024-01-01",
	"name": "two words",
	"x":    "X",
}

func resolveVar(name string) (string, bool) {
	v, ok := vars[name]
	return v, ok
}

var testFiles = map[string]string{
	"inc.conf":             "x = 1\ny = from-inc\n",
	"jobs/common.conf":     "env { parallelism = 4, job.mode = BATCH }\n",
	"jobs/sub/nested.conf": "include \"../common.conf\"\nenv.parallelism = 8\n",
	"braced.conf":          `{ "k": "v" }`,
	"self.conf":            `include "self.conf"`,
	"bad.conf":             "a = 1\nb = {\n",
}

func readTestFile(path string) ([]byte, error) {
	if s, ok := testFiles[path]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

type parseCase struct {
	name     string
	src      string
	want     string // the result rendered by Value.String (compact JSON)
	resolve  bool   // use resolveVar
	inQuoted bool   // Options.SubstituteInQuoted
	file     string // Options.File; "t.conf" if empty
}

var parseCases = []parseCase{
	// Comments.
	{name: "hash and slash comments", src: "# c\na = 1 # trailing\n// c2\nb = 2 // trailing\n", want: `{"a":1,"b":2}`},
	{name: "comment markers inside quotes", src: `a = "x # not // not"`, want: `{"a":"x # not // not"}`},
	{name: "// starts a comment in unquoted text", src: "path = /tmp//x\n", want: `{"path":"/tmp"}`},
	{name: "quoted url", src: `url = "jdbc:mysql://localhost:3306/test?useSSL=false"`, want: `{"url":"jdbc:mysql://localhost:3306/test?useSSL=false"}`},
	{name: "only comments", src: "# nothing\n// here\n", want: `{}`},
	{name: "empty", src: "", want: `{}`},

	// Root and separators.
	{name: "braced root", src: "{ a = 1 }", want: `{"a":1}`},
	{name: "empty braced root", src: " {\n}\n", want: `{}`},
	{name: "colon and equals", src: "a : 1\nb = 2", want: `{"a":1,"b":2}`},
	{name: "commas and trailing comma", src: "a = 1, b = 2,", want: `{"a":1,"b":2}`},
	{name: "object without separator", src: "a { b = 1 }", want: `{"a":{"b":1}}`},
	{name: "brace on next line", src: "a\n{\n  b = 1\n}", want: `{"a":{"b":1}}`},
	{name: "comma then newlines", src: "a = 1,\n\n b = 2\n", want: `{"a":1,"b":2}`},
	{name: "crlf line ends", src: "a = 1\r\nb {\r\n  c = x\r\n}\r\n", want: `{"a":1,"b":{"c":"x"}}`},
	{name: "byte order mark", src: "\ufeffa = 1", want: `{"a":1}`},

	// A value on the line after the separator.
	{name: "object on next line", src: "rules =\n  {\n    x = 1\n  }\n", want: `{"rules":{"x":1}}`},
	{name: "scalar on next line", src: "a :\n  5\nb = 6", want: `{"a":5,"b":6}`},
	{name: "array after comment line", src: "a =\n # the list\n [1]", want: `{"a":[1]}`},

	// Keys.
	{name: "dotted key is a path", src: "row.num = 5", want: `{"row":{"num":5}}`},
	{name: "quoted key is one key", src: `"row.num" = 5`, want: `{"row.num":5}`},
	{name: "quoted part of a path", src: `a."b.c".d = 1`, want: `{"a":{"b.c":{"d":1}}}`},
	{name: "dashes and underscores", src: "min-pause = 1\nplugin_output = x", want: `{"min-pause":1,"plugin_output":"x"}`},
	{name: "paths merge", src: "checkpoint.interval = 10000\ncheckpoint.timeout = 5", want: `{"checkpoint":{"interval":10000,"timeout":5}}`},
	{name: "whitespace inside key", src: "a b = 1", want: `{"a b":1}`},
	{name: "number key is a path", src: "10.5 = x", want: `{"10":{"5":"x"}}`},
	{name: "empty quoted key", src: `"" = 1`, want: `{"":1}`},
	{name: "key named include", src: "include = 5", want: `{"include":5}`},
	{name: "literal keys", src: "true = 1\nnull = 2", want: `{"true":1,"null":2}`},

	// Repeated keys.
	{name: "objects merge", src: "a { x = 1, y = 1 }\na { y = 2, z = 3 }", want: `{"a":{"x":1,"y":2,"z":3}}`},
	{name: "deep merge", src: "a { b { c = 1 } }\na.b.d = 2\na { b { c = 3 } }", want: `{"a":{"b":{"c":3,"d":2}}}`},
	{name: "scalar replaces", src: "a = 1\na = 2", want: `{"a":2}`},
	{name: "scalar replaces object", src: "a = {x:1}\na = 5", want: `{"a":5}`},
	{name: "object replaces scalar", src: "a = 5\na = {x:1}", want: `{"a":{"x":1}}`},
	{name: "a scalar ends merging", src: "a = {x:1}\na = 5\na = {y:2}", want: `{"a":{"y":2}}`},
	{name: "first position order", src: "b = 1\na = 2\nb = 3", want: `{"b":3,"a":2}`},
	{name: "path key over scalar", src: "a = 1\na.b = 2", want: `{"a":{"b":2}}`},

	// Strings.
	{name: "escapes", src: `a = "q\"b\\s\/\b\f\n\r\t\u00e9\ud83d\ude00"`, want: `{"a":"q\"b\\s/\u0008\u000c\n\r\té😀"}`},
	{name: "lone surrogate", src: `a = "\ud800x"`, want: `{"a":"�x"}`},
	{name: "triple quoted", src: "a = \"\"\"line1\n  \"q\" \\n ${x}\n\"\"\"", want: `{"a":"line1\n  \"q\" \\n ${x}\n"}`},
	{name: "triple quoted extra quotes", src: `a = """x""""`, want: `{"a":"x\""}`},
	{name: "unquoted concatenation", src: "a = foo bar   baz  \n", want: `{"a":"foo bar   baz"}`},
	{name: "mixed concatenation", src: `a = "foo" bar "baz"`, want: `{"a":"foo bar baz"}`},
	{name: "adjacent concatenation", src: `a = foo"bar"`, want: `{"a":"foobar"}`},
	{name: "numbers concatenate to a string", src: "a = 1 2", want: `{"a":"1 2"}`},
	{name: "date is a string", src: "a = 2024-01-01", want: `{"a":"2024-01-01"}`},
	{name: "unicode unquoted", src: "a = héllo wörld", want: `{"a":"héllo wörld"}`},
	{name: "type strings", src: `c_map = "map<string, string>", c_decimal = "decimal(30, 8)", t = array<int>`, want: `{"c_map":"map<string, string>","c_decimal":"decimal(30, 8)","t":"array<int>"}`},

	// Numbers, booleans, null.
	{name: "numbers", src: "a = 1, b = -2, c = 3.25, d = 1e5, e = -1.5E-3, f = 1e+5, g = 007, h = 12345678901234567890", want: `{"a":1,"b":-2,"c":3.25,"d":1e5,"e":-1.5E-3,"f":1e+5,"g":007,"h":12345678901234567890}`},
	{name: "not numbers", src: "a = 5x, b = .5, c = 1.2.3, d = -", want: `{"a":"5x","b":".5","c":"1.2.3","d":"-"}`},
	{name: "literals", src: `a = null, b = true, c = false, d = on, e = "true", f = yes`, want: `{"a":null,"b":true,"c":false,"d":"on","e":"true","f":"yes"}`},

	// Arrays.
	{name: "multi-line array", src: "a = [\n  1\n  2,\n  3,\n]", want: `{"a":[1,2,3]}`},
	{name: "array of objects", src: "rows = [\n  { kind = INSERT, fields = [1, \"A\", 100] },\n  { kind = DELETE\n    fields = [2, \"B\", 200] }\n]", want: `{"rows":[{"kind":"INSERT","fields":[1,"A",100]},{"kind":"DELETE","fields":[2,"B",200]}]}`},
	{name: "nested arrays", src: "a = [[1, 2], [], [3]]", want: `{"a":[[1,2],[],[3]]}`},
	{name: "empty arrays", src: "a = [], b = [\n]", want: `{"a":[],"b":[]}`},
	{name: "array concatenation", src: "a = [1] [2, 3]", want: `{"a":[1,2,3]}`},
	{name: "comma on the next line", src: "a = [1\n, 2]", want: `{"a":[1,2]}`},
	{name: "array element concatenation", src: "a = [foo bar, \"x\" y]", want: `{"a":["foo bar","x y"]}`},

	// +=
	{name: "append", src: "a = [1]\na += 2\na += {x = 1}", want: `{"a":[1,2,{"x":1}]}`},
	{name: "append to nothing", src: "a += 1", want: `{"a":[1]}`},
	{name: "append to a path", src: "a.b += x\na.b += y", want: `{"a":{"b":["x","y"]}}`},

	// Substitutions from the document.
	{name: "substitution", src: "a = 1\nb = ${a}", want: `{"a":1,"b":1}`},
	{name: "forward substitution", src: "b = ${a}\na = 1", want: `{"b":1,"a":1}`},
	{name: "path substitution", src: "x { y = 2 }\nz = ${x.y}\nw = ${x}", want: `{"x":{"y":2},"z":2,"w":{"y":2}}`},
	{name: "quoted path substitution", src: "a { \"b.c\" = 1 }\nx = ${a.\"b.c\"}", want: `{"a":{"b.c":1},"x":1}`},
	{name: "sees the final value", src: "a = 1\nb = ${a}\na = 2", want: `{"a":2,"b":2}`},
	{name: "object inheritance", src: "base { a = 1, b = 2 }\nd = ${base} { b = 3 }", want: `{"base":{"a":1,"b":2},"d":{"a":1,"b":3}}`},
	{name: "array substitution concatenation", src: "a = [1]\nb = ${a} [2]", want: `{"a":[1],"b":[1,2]}`},
	{name: "string concatenation", src: "a = x\nb = \"a\" ${a} \"b\"\nc = pre_${a}_post", want: `{"a":"x","b":"a x b","c":"pre_x_post"}`},
	{name: "substitution of a merged path", src: "a.b = 1\na.c = 2\nx = ${a}", want: `{"a":{"b":1,"c":2},"x":{"b":1,"c":2}}`},
	{name: "optional missing", src: "a = ${?nope}\nb = [1, ${?nope}, 2]\nc = x ${?nope}", want: `{"b":[1,2],"c":"x"}`},
	{name: "optional keeps earlier value", src: "a = 10\na = ${?NOPE}", want: `{"a":10}`},
	{name: "self reference", src: "p = a\np = ${p}\":b\"", want: `{"p":"a:b"}`},
	{name: "self reference through append", src: "a = [1]\na = ${a} [2]", want: `{"a":[1,2]}`},
	{name: "self reference to a subpath", src: "a { b = 1 }\na = ${a.b}", want: `{"a":1}`},
	{name: "optional self reference", src: "p = ${?p} x", want: `{"p":"x"}`},
	{name: "merge with substitution", src: "base { a = 1 }\nx = { b = 2 }\nx = ${base}", want: `{"base":{"a":1},"x":{"b":2,"a":1}}`},
	{name: "path into substituted value", src: "base { a = 1 }\nx = ${base}\nx.b = 2", want: `{"base":{"a":1},"x":{"a":1,"b":2}}`},

	{name: "several paths into a substituted value", src: "b { p = 1 }\na = ${b}\na.x = 1\na.y = 2\na { z = 3 }", want: `{"b":{"p":1},"a":{"p":1,"x":1,"y":2,"z":3}}`},
	{name: "deep merge of a substituted object", src: "b { o { p = 1, q = 1 } }\na { o { q = 2, r = 2 } }\na = ${b}", want: `{"b":{"o":{"p":1,"q":1}},"a":{"o":{"q":1,"r":2,"p":1}}}`},
	{name: "undefined parts of an array concatenation", src: "a = ${?nope} [1] ${?nope} [2]", want: `{"a":[1,2]}`},

	// Substitutions from variables.
	{name: "variable", src: "a = ${X}\nb = ${x}", resolve: true, want: `{"a":42,"b":"X"}`},
	{name: "document before variable", src: "X = doc\na = ${X}", resolve: true, want: `{"X":"doc","a":"doc"}`},
	{name: "variable overrides", src: "a = 10\na = ${?A}", resolve: true, want: `{"a":20}`},
	{name: "chained optional overrides", src: "a = 1\na = ${?NOPE}\na = ${?A}", resolve: true, want: `{"a":20}`},
	{name: "self reference falls back to variable", src: "PATH = ${PATH}\":/bin\"", resolve: true, want: `{"PATH":"/usr/bin:/bin"}`},
	{name: "same name as key", src: "env { parallelism = ${N} }", resolve: true, want: `{"env":{"parallelism":5}}`},
	{name: "variable in concatenation", src: "t = ${x}_table\nu = /data/${dt}/x", resolve: true, want: `{"t":"X_table","u":"/data/2024-01-01/x"}`},
	{name: "seatunnel defaults", src: "a = ${nope:fallback}\nb = ${nope:\"\"}\nc = ${nope:}\nd = ${nope:5}\ne = ${nope:\"a b\"}\nf = ${N:7}", resolve: true, want: `{"a":"fallback","b":"","c":"","d":5,"e":"a b","f":5}`},
	{name: "default with colon", src: "u = ${nope:jdbc:mysql://h:3306/db}", want: `{"u":"jdbc:mysql://h:3306/db"}`},
	{name: "quoted not substituted by default", src: `q = "select ${age} from t"`, resolve: true, want: `{"q":"select ${age} from t"}`},

	// Substitution inside quoted strings (SeaTunnel).
	{name: "in quoted", src: `query = "select * from t where age > ${age}"` + "\n" + `path = "/tmp/${dt}"`, resolve: true, inQuoted: true, want: `{"query":"select * from t where age > 18","path":"/tmp/2024-01-01"}`},
	{name: "in quoted unknown kept", src: `t = "${table_name}_x ${database_name}"` + "\nu = \"${ broken\"\nv = \"$ {x} ${}\"", resolve: true, inQuoted: true, want: `{"t":"${table_name}_x ${database_name}","u":"${ broken","v":"$ {x} ${}"}`},
	{name: "in quoted defaults", src: `a = "${nope:fake_test}_table"` + "\n" + `b = "${rowNum:50}"` + "\n" + `c = "${nope:}x"`, resolve: true, inQuoted: true, want: `{"a":"fake_test_table","b":"50","c":"x"}`},
	{name: "in quoted document path", src: "db { name = prod }\nq = \"use ${db.name}; ${name}\"", resolve: true, inQuoted: true, want: `{"db":{"name":"prod"},"q":"use prod; two words"}`},
	{name: "in triple quoted", src: "sql = \"\"\"select *\nfrom t where dt = '${dt}'\"\"\"", resolve: true, inQuoted: true, want: `{"sql":"select *\nfrom t where dt = '2024-01-01'"}`},
	{name: "in quoted self reference", src: `a = "x${a}"`, inQuoted: true, want: `{"a":"x${a}"}`},

	// Includes.
	{name: "include", src: "include \"inc.conf\"\ny = mine", want: `{"x":1,"y":"mine"}`},
	{name: "included values are overridden", src: "y = mine\ninclude \"inc.conf\"", want: `{"y":"from-inc","x":1}`},
	{name: "include in an object", src: "a { include file(\"inc.conf\") }\nb = ${a.x}", want: `{"a":{"x":1,"y":"from-inc"},"b":1}`},
	{name: "include relative to the file", file: "jobs/main.conf", src: "include required(file(\"common.conf\"))\nenv.parallelism = 2", want: `{"env":{"parallelism":2,"job":{"mode":"BATCH"}}}`},
	{name: "nested include", file: "jobs/sub/main.conf", src: "include \"nested.conf\"", want: `{"env":{"parallelism":8,"job":{"mode":"BATCH"}}}`},
	{name: "braced included file", src: `include "braced.conf"`, want: `{"k":"v"}`},
	{name: "missing include skipped", src: "include \"missing.conf\"\na = 1", want: `{"a":1}`},

	// JSON.
	{name: "json", src: `{"env": {"job.mode": "batch", "parallelism": 2}, "source": [{"plugin_name": "FakeSource", "row.num": 100, "ok": true, "none": null, "f": -1.5e3}]}`, want: `{"env":{"job.mode":"batch","parallelism":2},"source":[{"plugin_name":"FakeSource","row.num":100,"ok":true,"none":null,"f":-1.5e3}]}`},
}

func parseOpts(tc parseCase) Options {
	o := Options{File: tc.file, SubstituteInQuoted: tc.inQuoted, ReadFile: readTestFile}
	if o.File == "" {
		o.File = "t.conf"
	}
	if tc.resolve {
		o.Resolve = resolveVar
	}
	return o
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.src), parseOpts(tc))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
			if v.Kind != Object {
				t.Errorf("root kind %v", v.Kind)
			}
		})
	}
}

type errorCase struct {
	name    string
	src     string
	want    string // the whole error text
	noRead  bool   // no Options.ReadFile
	resolve bool
}

var errorCases = []errorCase{
	{name: "missing value at end", src: "a = ", want: `job.conf:1:5: expected a value after '=' for key "a", found end of file`},
	{name: "missing separator after key", src: "source {\n  row.num }", want: `job.conf:2:11: expected '=', ':' or '{' after key "row.num", found '}'`},
	{name: "missing value before next field", src: "a =\nb = 1", want: `job.conf:1:3: missing value after '=' for key "a"`},
	{name: "unterminated string", src: "a = 1\nb = \"abc\nc = 2", want: `job.conf:2:5: ` + unterminatedQuoted},
	{name: "unterminated triple string", src: "a = \"\"\"abc\n", want: `job.conf:1:5: unterminated triple-quoted string: no closing """`},
	{name: "unclosed object", src: "env {\n  parallelism = 1\n", want: `job.conf:3:1: expected '}' to close the object opened at 1:5, found end of file`},
	{name: "unclosed array", src: "a = [1, 2", want: `job.conf:1:10: expected ']' to close the array opened at 1:5, found end of file`},
	{name: "double comma", src: "a = [1,,2]", want: `job.conf:1:8: expected a value or ']', found ','`},
	{name: "leading comma in object", src: "a { , b = 1 }", want: `job.conf:1:5: expected a key or '}', found ','`},
	{name: "two fields on a line", src: "a = 1 b = 2", want: `job.conf:1:9: expected ',' or newline after the value of key "a", found '='`},
	{name: "colon in unquoted value", src: "s {\n  host = localhost:8123\n}", want: `job.conf:2:19: expected ',', newline or '}' after the value of key "host", found ':' (quote values that contain ':')`},
	{name: "bad escape", src: `a = "x\q"`, want: `job.conf:1:7: invalid escape '\q' in quoted string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)`},
	{name: "bad unicode escape", src: `a = "\u12g4"`, want: `job.conf:1:6: invalid escape: \u must be followed by four hex digits`},
	{name: "unresolved substitution", src: "a = 1\nb = x ${missing}", want: `job.conf:2:7: unresolved substitution ${missing}: no such path in the document`},
	{name: "unresolved with resolver", src: "b = ${missing}", resolve: true, want: `job.conf:1:5: unresolved substitution ${missing}: no such path in the document and no variable of that name`},
	{name: "unresolved self reference", src: "a = ${a} x", want: `job.conf:1:5: unresolved substitution ${a}: it refers to the field being defined, which has no earlier value`},
	{name: "cycle", src: "a = ${b}\nb = ${a}", want: `job.conf:2:5: substitution ${a} is part of a cycle: the value it refers to depends on it`},
	{name: "object and string", src: "a = {x = 1} foo", want: `job.conf:1:13: cannot concatenate an object with a string (quote the whole string, or use a comma or newline between values)`},
	{name: "append to object", src: "a { x = 1 }\na += 2", want: `job.conf:2:6: cannot concatenate an object with an array (quote the whole string, or use a comma or newline between values)`},
	{name: "include disabled", src: "a = 1\ninclude \"x.conf\"", noRead: true, want: `job.conf:2:9: cannot include "x.conf": includes are disabled (Options.ReadFile is nil)`},
	{name: "include required missing", src: `include required("nope.conf")`, want: `job.conf:1:18: cannot include "nope.conf": file does not exist`},
	{name: "include url", src: `include url("http://x")`, want: `job.conf:1:1: include url(...) is not supported, only files: expected include "file", include file("file") or include required(file("file"))`},
	{name: "include cycle", src: `include "self.conf"`, want: `self.conf:1:9: include cycle: "self.conf" is already being included`},
	{name: "error in included file", src: `include "bad.conf"`, want: `bad.conf:3:1: expected '}' to close the object opened at 2:5, found end of file`},
	{name: "double dot key", src: "a..b = 1", want: `job.conf:1:3: invalid key "a..b": a path cannot have a leading, trailing or double '.' (quote the key to use '.' in it)`},
	{name: "root array", src: "\n[1, 2]", want: `job.conf:2:1: the root of a document must be an object, found an array`},
	{name: "reserved character", src: "password = abc@123", want: `job.conf:1:15: reserved character '@' is not allowed outside quotes; quote the value`},
	{name: "plus", src: "a = 1+2", want: `job.conf:1:6: '+' is only allowed as part of '+='; quote the value if it contains '+'`},
	{name: "unterminated substitution", src: "a = ${x", want: `job.conf:1:5: unterminated substitution: expected '}' to close '${'`},
	{name: "empty substitution", src: "a = ${ }", want: `job.conf:1:5: invalid substitution ${ }: empty path`},
	{name: "stray close brace", src: "a = 1\n}", want: `job.conf:2:1: unexpected '}' without a matching '{'`},
	{name: "text after root", src: "{ a = 1 }\nb = 2", want: `job.conf:2:1: expected end of file after the '}' that closes the root object, found "b"`},
	{name: "substitution as key", src: "${a} = 1", want: `job.conf:1:1: a substitution cannot be used as a key`},
	{name: "array in key position", src: "a = 1\n[1]", want: `job.conf:2:1: expected a key, found '['`},
	{name: "quoted key as written", src: "env {\n  \"parallelism\" 1\n}", want: `job.conf:3:1: expected '=', ':' or '{' after key "parallelism" 1, found '}'`},
	{name: "partly quoted key as written", src: "a.\"b.c\" }", want: `job.conf:1:9: expected '=', ':' or '{' after key a."b.c", found '}'`},
	{name: "quoted key with escapes", src: `"a\"b" = 1 c = 2`, want: `job.conf:1:14: expected ',' or newline after the value of key "a\"b", found '='`},
	{name: "triple-quoted key on one line", src: "\"\"\"x\ny\"\"\" = ", want: `job.conf:2:8: expected a value after '=' for key """x\ny""", found end of file`},
	{name: "invalid quoted key", src: `"a"..b = 1`, want: `job.conf:1:5: invalid key "a"..b: a path cannot have a leading, trailing or double '.' (quote the key to use '.' in it)`},
}

func TestErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{File: "job.conf", ReadFile: readTestFile}
			if tc.noRead {
				o.ReadFile = nil
			}
			if tc.resolve {
				o.Resolve = resolveVar
			}
			v, err := Parse([]byte(tc.src), o)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want error %s", tc.src, v, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if err.Error() != tc.want {
				t.Errorf("Parse(%q) error\n got %s\nwant %s", tc.src, err, tc.want)
			}
		})
	}
}

// seaTunnelJob is a complete SeaTunnel batch job as users write it.
const seaTunnelJob = `#
# A SeaTunnel job: FakeSource -> Sql -> Assert
#
env {
  parallelism = 2
  job.mode = "BATCH"
  spark.app.name = "SeaTunnel"
  checkpoint.interval = 10000
}

source {
  # This is a example source plugin
  FakeSource {
    plugin_output = "fake"
    row.num = 16
    schema = {
      fields {
        name = "string"
        age = "int"
        c_map = "map<string, string>"
        c_decimal = "decimal(30, 8)"
        c_row = {
          c_int = int
        }
      }
    }
    rows = [
      {
        kind = INSERT
        fields = [1, "A", 100]
      },
      {
        kind = UPDATE_BEFORE, fields = [2, "B", 200]
      }
      { kind = DELETE, fields = [3, "C", 300] },
    ]
  }
}

transform {
  Sql {
    plugin_input = "fake"
    plugin_output = "fake1"
    query = "select name, age from fake where age > 0"
  }
}

sink {
  Assert {
    plugin_input = "fake1"
    rules =
      {
        row_rules = [
          {rule_type = MAX_ROW, rule_value = 10}
        ],
        field_rules = [
          {
            field_name = name
            field_type = string
            field_value = [
              {
                rule_type = NOT_NULL
              }
            ]
          }
        ]
      }
  }
  Console {
  }
}
`

func TestSeaTunnelJob(t *testing.T) {
	v, err := Parse([]byte(seaTunnelJob), Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"env.parallelism":                                     "2",
		"env.job.mode":                                        "BATCH",
		"env.spark.app.name":                                  "SeaTunnel",
		"env.checkpoint.interval":                             "10000",
		"source.FakeSource.plugin_output":                     "fake",
		"source.FakeSource.row.num":                           "16",
		"source.FakeSource.schema.fields.c_map":               "map<string, string>",
		"source.FakeSource.schema.fields.c_decimal":           "decimal(30, 8)",
		"source.FakeSource.schema.fields.c_row.c_int":         "int",
		"transform.Sql.query":                                 "select name, age from fake where age > 0",
		"sink.Assert.rules.row_rules":                         `[{"rule_type":"MAX_ROW","rule_value":10}]`,
		"sink.Assert.rules.field_rules":                       `[{"field_name":"name","field_type":"string","field_value":[{"rule_type":"NOT_NULL"}]}]`,
		"source.FakeSource.rows":                              `[{"kind":"INSERT","fields":[1,"A",100]},{"kind":"UPDATE_BEFORE","fields":[2,"B",200]},{"kind":"DELETE","fields":[3,"C",300]}]`,
		"sink.Console":                                        `{}`,
		`source.FakeSource."row.num"`:                         "",
		"sink.Assert.rules.row_rules.0":                       "",
		"source.FakeSource.schema.fields.c_row.c_int.missing": "",
	}
	for path, w := range want {
		got := v.Lookup(path)
		if w == "" {
			if got != nil {
				t.Errorf("Lookup(%s) = %s, want nil", path, got)
			}
			continue
		}
		if got == nil {
			t.Errorf("Lookup(%s) = nil, want %s", path, w)
			continue
		}
		if got.String() != w {
			t.Errorf("Lookup(%s) = %s, want %s", path, got, w)
		}
	}
	if n, ok := v.Lookup("env.parallelism").Int(); !ok || n != 2 {
		t.Errorf("parallelism Int() = %d, %v", n, ok)
	}
	if k := v.Lookup("env.job.mode"); k.Kind != String || !k.Quoted {
		t.Errorf("job.mode = %+v", k)
	}
	rows := v.Lookup("source.FakeSource.rows")
	if len(rows.Items) != 3 {
		t.Fatalf("rows: %s", rows)
	}
	f := rows.Items[0].Get("fields")
	if f.Items[0].Kind != Number || f.Items[1].Kind != String || !f.Items[1].Quoted {
		t.Errorf("fields kinds: %+v", f.Items)
	}
	if k := rows.Items[0].Get("kind"); k.Kind != String || k.Quoted || k.Text != "INSERT" {
		t.Errorf("kind: %+v", k)
	}
	rule := v.Lookup("sink.Assert.rules.row_rules").Items[0]
	if n, _ := rule.Get("rule_value").Int(); n != 10 {
		t.Errorf("rule_value = %s", rule.Get("rule_value"))
	}
	var keys []string
	for _, f := range v.Fields {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, ","); got != "env,source,transform,sink" {
		t.Errorf("root keys %s", got)
	}
	// Positions of keys and values.
	pos := func(p Pos) string { return p.String() }
	checks := []struct{ what, got, want string }{
		{"env key", pos(v.Fields[0].KeyPos), "job.conf:4:1"},
		{"env value", pos(v.Get("env").Pos), "job.conf:4:5"},
		{"parallelism key", pos(v.Get("env").Field("parallelism").KeyPos), "job.conf:5:3"},
		{"parallelism value", pos(v.Lookup("env.parallelism").Pos), "job.conf:5:17"},
		{"job key", pos(v.Get("env").Field("job").KeyPos), "job.conf:6:3"},
		{"job.mode mode key", pos(v.Lookup("env.job").Field("mode").KeyPos), "job.conf:6:7"},
		{"job.mode value", pos(v.Lookup("env.job.mode").Pos), "job.conf:6:14"},
		{"rows value", pos(rows.Pos), "job.conf:27:12"},
		{"second row", pos(rows.Items[1].Pos), "job.conf:32:7"},
		{"rules value", pos(v.Lookup("sink.Assert.rules").Pos), "job.conf:52:7"},
		{"rule_value", pos(rule.Get("rule_value").Pos), "job.conf:54:46"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s at %s, want %s", c.what, c.got, c.want)
		}
	}
}

func TestPositions(t *testing.T) {
	src := "a {\n\tb = \"x\" y\n  c.d = ${a.b}\n}\ne = [\n  1,\n  {f = 2}\n]\nü = é\n"
	v, err := Parse([]byte(src), Options{File: "p.conf"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		what string
		got  Pos
		want string
	}{
		{"root", v.Pos, "p.conf:1:1"},
		{"a value", v.Get("a").Pos, "p.conf:1:3"},
		{"b key (after a tab)", v.Get("a").Field("b").KeyPos, "p.conf:2:2"},
		{"b concatenation", v.Lookup("a.b").Pos, "p.conf:2:6"},
		{"c key", v.Get("a").Field("c").KeyPos, "p.conf:3:3"},
		{"d key", v.Lookup("a.c").Field("d").KeyPos, "p.conf:3:5"},
		{"substituted value", v.Lookup("a.c.d").Pos, "p.conf:3:9"},
		{"array", v.Get("e").Pos, "p.conf:5:5"},
		{"array item", v.Get("e").Items[0].Pos, "p.conf:6:3"},
		{"object item key", v.Get("e").Items[1].Field("f").KeyPos, "p.conf:7:4"},
		{"runes count as one column", v.Get("ü").Pos, "p.conf:9:5"},
	}
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("%s at %s, want %s", c.what, c.got, c.want)
		}
	}
	if got := (Pos{Line: 3, Col: 4}).String(); got != "3:4" {
		t.Errorf("Pos without file: %s", got)
	}
}

func TestIncludePositions(t *testing.T) {
	v, err := Parse([]byte("a = 0\ninclude \"inc.conf\""), Options{File: "main.conf", ReadFile: readTestFile})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Get("y").Pos.String(); got != "inc.conf:2:5" {
		t.Errorf("included value at %s", got)
	}
}

func TestQuotedFlag(t *testing.T) {
	v, err := Parse([]byte(`a = 5, b = "5", c = "x" y, d = x y, e = ${a}, f = ${N}`), Options{Resolve: resolveVar})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]struct {
		kind   Kind
		quoted bool
	}{
		"a": {Number, false}, "b": {String, true}, "c": {String, true},
		"d": {String, false}, "e": {Number, false}, "f": {Number, false},
	} {
		got := v.Get(key)
		if got.Kind != want.kind || got.Quoted != want.quoted {
			t.Errorf("%s: kind %v quoted %v, want %v %v", key, got.Kind, got.Quoted, want.kind, want.quoted)
		}
	}
}

func TestAccessors(t *testing.T) {
	v, err := Parse([]byte(`
t = true, f = false, y = yes, n = NO, on = "On", off = off, s = maybe
i = 42, neg = -7, fl = 2.5, e = 1e3, big = 99999999999999999999, qi = "12", qf = " 3.5 ", word = inf
z = null
o { a = 1, b = [1, "x", null, {c = d}] }
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bools := map[string]any{"t": true, "f": false, "y": true, "n": false, "on": true, "off": false, "s": nil, "i": nil, "z": nil}
	for k, want := range bools {
		b, ok := v.Get(k).Bool()
		if want == nil {
			if ok {
				t.Errorf("%s.Bool() = %v, want not ok", k, b)
			}
		} else if !ok || b != want {
			t.Errorf("%s.Bool() = %v, %v, want %v", k, b, ok, want)
		}
	}
	ints := map[string]any{"i": int64(42), "neg": int64(-7), "e": int64(1000), "qi": int64(12), "fl": nil, "big": nil, "word": nil, "t": nil, "o": nil}
	for k, want := range ints {
		n, ok := v.Get(k).Int()
		if want == nil {
			if ok {
				t.Errorf("%s.Int() = %d, want not ok", k, n)
			}
		} else if !ok || n != want {
			t.Errorf("%s.Int() = %d, %v, want %v", k, n, ok, want)
		}
	}
	floats := map[string]any{"fl": 2.5, "qf": 3.5, "i": 42.0, "big": 1e20, "word": nil, "s": nil}
	for k, want := range floats {
		f, ok := v.Get(k).Float()
		if want == nil {
			if ok {
				t.Errorf("%s.Float() = %v, want not ok", k, f)
			}
		} else if !ok || f != want {
			t.Errorf("%s.Float() = %v, %v, want %v", k, f, ok, want)
		}
	}
	if got := v.Get("z").String(); got != "null" {
		t.Errorf("null String() = %q", got)
	}
	if got := v.Get("o").String(); got != `{"a":1,"b":[1,"x",null,{"c":"d"}]}` {
		t.Errorf("object String() = %s", got)
	}
	wantAny := map[string]any{"a": int64(1), "b": []any{int64(1), "x", nil, map[string]any{"c": "d"}}}
	if got := v.Get("o").ToAny(); !reflect.DeepEqual(got, wantAny) {
		t.Errorf("ToAny() = %#v", got)
	}
	if got := v.Get("big").ToAny(); got != 1e20 {
		t.Errorf("big ToAny() = %#v", got)
	}
	var nilV *Value
	if nilV.Get("x") != nil || nilV.Lookup("x") != nil || nilV.String() != "" || nilV.ToAny() != nil {
		t.Error("nil Value accessors")
	}
	if v.Lookup("o..a") != nil || v.Lookup("") != nil || v.Lookup("o.a.b") != nil {
		t.Error("bad paths should give nil")
	}
	if v.Lookup(`o."a"`).Text != "1" {
		t.Error("quoted Lookup")
	}
	if Kind(9).String() != "Kind(9)" || Object.String() != "object" {
		t.Error("Kind.String")
	}
}

// TestJSONEqualsHOCON checks that a JSON job and the same job in HOCON
// give the same tree.
func TestJSONEqualsHOCON(t *testing.T) {
	js := `{
  "env": {"parallelism": 2, "job": {"mode": "BATCH"}},
  "source": {"FakeSource": {"row.num": 16, "schema": {"fields": {"c_map": "map<string, string>"}},
    "rows": [{"kind": "INSERT", "fields": [1, "A", 100.5, true, null]}]}}
}`
	hc := `
env { parallelism = 2, job.mode = "BATCH" }
source.FakeSource {
  "row.num" = 16
  schema.fields.c_map = "map<string, string>"
  rows = [ { kind = INSERT, fields = [1, "A", 100.5, true, null] } ]
}`
	a, err := Parse([]byte(js), Options{File: "job.json"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(hc), Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.ToAny(), b.ToAny()) {
		t.Errorf("JSON and HOCON differ:\n%s\n%s", a, b)
	}
	if a.String() != b.String() {
		t.Errorf("renderings differ:\n%s\n%s", a, b)
	}
}

// TestNoAliasing checks that substituted values are copies.
func TestNoAliasing(t *testing.T) {
	v, err := Parse([]byte("a { x = [1] }\nb = ${a}\nc = ${a} { y = 2 }"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v.Lookup("b.x").Items[0].Text = "changed"
	v.Lookup("c").Fields[0].Value = nil
	if got := v.Get("a").String(); got != `{"x":[1]}` {
		t.Errorf("a changed through b or c: %s", got)
	}
}

// TestLimits checks that hostile inputs give errors, not hangs or crashes.
func TestLimits(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	var blowup strings.Builder
	blowup.WriteString("a0 = [1, 2]\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&blowup, "a%d = ${a%d} ${a%d}\n", i, i-1, i-1)
	}
	var chain strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&chain, "k%d = ${k%d}\n", i, i+1)
	}
	chain.WriteString("k20000 = 1\n")
	for name, src := range map[string]string{
		"deep nesting":   "a = " + deep,
		"exponential":    blowup.String(),
		"long chain":     chain.String(),
		"string blow up": strings.Replace(blowup.String(), "[1, 2]", "xxxxxxxxxxxxxxxx", 1),
	} {
		_, err := Parse([]byte(src), Options{File: "l.conf"})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want a *Error", name, err)
		}
	}
}
