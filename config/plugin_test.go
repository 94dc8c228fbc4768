package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
)

// testOptions declare one option of every type.
var testOptions = []config.Option{
	{Key: "host", Type: config.TypeString, Required: true},
	{Key: "port", Type: config.TypeInt, Default: int64(5432)},
	{Key: "ratio", Type: config.TypeFloat, Default: 0.5},
	{Key: "verbose", Type: config.TypeBool, Default: false},
	{Key: "format", Type: config.TypeEnum, Enum: []string{"json", "text"}, Default: "json"},
	{Key: "tables", Type: config.TypeStrings, Fallbacks: []string{"table_list"}},
	{Key: "props", Type: config.TypeObject},
	{Key: "items", Type: config.TypeList},
	{Key: "anything", Type: config.TypeAny},
	{Key: "timeout", Type: config.TypeDuration, Default: int64(1000)},
	{Key: "conn.pool.size", Type: config.TypeInt, Default: int64(4)},
	{Key: "extra", Type: config.TypeString, Prefix: true},
	{Key: "name_expr", Type: config.TypeString, Template: true},
}

// validate parses "Pg {\n<body>\n}" (so body starts on line 2) and checks it
// against testOptions as a source plugin.
func validate(t *testing.T, body string) (*config.PluginConfig, []config.Warning, error) {
	t.Helper()
	root, err := hocon.Parse([]byte("Pg {\n"+body+"\n}\n"), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	f := root.Field("Pg")
	return config.Validate("job.conf", "source Pg", "Pg", f.KeyPos, f.Value, testOptions)
}

func TestValidateValues(t *testing.T) {
	c, warns, err := validate(t, `host = db.example.com
port = "6543"
ratio = 2
verbose = yes
format = TEXT
table_list = "a"
props { user = u, "pass.word" = p }
items = [1, {a = 2}]
anything = [x]
timeout = "2s"
conn.pool.size = 9
extra.x.y = 1
extra.z = q`)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v, want none (extra.* is a prefix option)", warns)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"host", c.String("host"), "db.example.com"},
		{"port", c.Int("port"), int64(6543)},
		{"ratio", c.Float("ratio"), 2.0},
		{"verbose", c.Bool("verbose"), true},
		{"format", c.String("format"), "text"},
		{"tables via fallback", c.Strings("tables"), []string{"a"}},
		{"props", c.Raw("props").Get("pass.word").String(), "p"},
		{"items", len(c.Raw("items").Items), 2},
		{"anything", c.Raw("anything").Kind, hocon.Array},
		{"timeout", c.Duration("timeout"), 2 * time.Second},
		{"dotted key", c.Int("conn.pool.size"), int64(9)},
		{"prefix lookup", c.Lookup("extra.x.y").String(), "1"},
		{"has port", c.Has("port"), true},
		{"has tables", c.Has("tables"), true},
		{"keys", c.Keys(), []string{"anything", "conn.pool.size", "format", "host", "items", "port", "props", "ratio", "tables", "timeout", "verbose"}},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %#v, want %#v", ch.what, ch.got, ch.want)
		}
	}
}

func TestValidateDefaults(t *testing.T) {
	c, _, err := validate(t, `host = h`)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"port", c.Int("port"), int64(5432)},
		{"ratio", c.Float("ratio"), 0.5},
		{"verbose", c.Bool("verbose"), false},
		{"format", c.String("format"), "json"},
		{"tables", c.Strings("tables"), []string(nil)},
		{"props", c.Raw("props"), (*hocon.Value)(nil)},
		{"timeout default int64 is ms", c.Duration("timeout"), time.Second},
		{"pool", c.Int("conn.pool.size"), int64(4)},
		{"has port", c.Has("port"), false},
		{"undeclared string", c.String("nope"), ""},
		{"keys", c.Keys(), []string{"host"}},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %#v, want %#v", ch.what, ch.got, ch.want)
		}
	}
}

func TestValidateNullIsUnset(t *testing.T) {
	c, _, err := validate(t, "host = h\nport = null\nformat = null")
	if err != nil {
		t.Fatal(err)
	}
	if c.Int("port") != 5432 || c.String("format") != "json" || c.Has("port") {
		t.Errorf("port %d format %q has port %v; want the defaults, unset", c.Int("port"), c.String("format"), c.Has("port"))
	}
	_, _, err = validate(t, "host = null")
	wantError(t, err, 1, `option "host"`, "missing")
}

func TestValidateDurations(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"1500", 1500 * time.Millisecond},
		{`"1500"`, 1500 * time.Millisecond},
		{`"10s"`, 10 * time.Second},
		{`1m`, time.Minute},
		{`"250ms"`, 250 * time.Millisecond},
		{`0`, 0},
	} {
		c, _, err := validate(t, "host = h\ntimeout = "+tt.in)
		if err != nil {
			t.Errorf("timeout = %s: %v", tt.in, err)
			continue
		}
		if got := c.Duration("timeout"); got != tt.want {
			t.Errorf("timeout = %s: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name  string
		body  string // host is on line 2, the next line is 3
		line  int
		col   int
		key   string
		wants []string
	}{
		{"required missing", `port = 1`, 1, 1, "host", []string{"missing", "required", "host (string, required)"}},
		{"string got object", `host { a = 1 }`, 2, 6, "host", []string{"expected a string, got an object"}},
		{"string got list", `host = [a, b]`, 2, 8, "host", []string{"expected a string, got a list"}},
		{"int got word", "host = h\nport = abc", 3, 8, "port", []string{`expected an integer, got "abc"`}},
		{"int got quoted word", "host = h\nport = \"12a\"", 3, 8, "port", []string{`expected an integer, got "12a"`}},
		{"int got bool", "host = h\nport = true", 3, 8, "port", []string{`expected an integer, got "true"`}},
		{"int got fraction", "host = h\nport = 1.25", 3, 8, "port", []string{"expected an integer"}},
		{"int got object", "host = h\nport { a = 1 }", 3, 6, "port", []string{"expected an integer, got an object"}},
		{"float got word", "host = h\nratio = half", 3, 9, "ratio", []string{`expected a number, got "half"`}},
		{"bool got word", "host = h\nverbose = maybe", 3, 11, "verbose", []string{`expected true or false, got "maybe"`}},
		{"bool got number", "host = h\nverbose = 1", 3, 11, "verbose", []string{"expected true or false"}},
		{"bad enum", "host = h\nformat = xml", 3, 10, "format", []string{`expected one of json, text, got "xml"`}},
		{"enum got list", "host = h\nformat = [json]", 3, 10, "format", []string{"expected one of json, text, got a list"}},
		{"strings got object", "host = h\ntables { a = 1 }", 3, 8, "tables", []string{"expected a list of strings, got an object"}},
		{"strings fallback named", "host = h\ntable_list = [a, [b]]", 3, 14, "table_list", []string{"item 2: expected a string"}},
		{"object got string", "host = h\nprops = x", 3, 9, "props", []string{`expected an object { ... }, got "x"`}},
		{"list got object", "host = h\nitems { a = 1 }", 3, 7, "items", []string{"expected a list [ ... ], got an object"}},
		{"duration got word", "host = h\ntimeout = later", 3, 11, "timeout", []string{"duration", `got "later"`}},
		{"unresolved variable", `host = "/data/${out}/x"`, 2, 8, "host", []string{"unresolved variable ${out}", "-i out=VALUE"}},
		{"unresolved with default syntax", `host = "${out:}"`, 2, 8, "host", []string{"unresolved variable ${out:}"}},
		{"dotted key wrong", "host = h\nconn.pool.size = big", 3, 18, "conn.pool.size", []string{`expected an integer, got "big"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := validate(t, tt.body)
			ce := wantError(t, err, tt.line, tt.wants...)
			if ce.Pos.Col != tt.col || ce.Key != tt.key || ce.Where != "source Pg" {
				t.Errorf("error at col %d key %q where %q; want col %d key %q where source Pg", ce.Pos.Col, ce.Key, ce.Where, tt.col, tt.key)
			}
			want := "job.conf:" + ce.Pos.String()[len("job.conf:"):] + ": source Pg: option \"" + tt.key + "\": "
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
}

// SeaTunnel's table placeholders and the names a Template option's plugin
// fills stay as written; an unquoted ${x} is the HOCON parser's business.
func TestValidateKeepsPlaceholders(t *testing.T) {
	c, _, err := validate(t, `host = "/data/${table_name}/${database_name}"
name_expr = "${transactionId}_${now}"`)
	if err != nil {
		t.Fatal(err)
	}
	if c.String("host") != "/data/${table_name}/${database_name}" || c.String("name_expr") != "${transactionId}_${now}" {
		t.Fatalf("host %q name_expr %q", c.String("host"), c.String("name_expr"))
	}
}

func TestValidateWarnings(t *testing.T) {
	_, warns, err := validate(t, `host = h
hots = typo
conn.pool.size = 2
conn.pool.max = 3
nested { a = 1, b = 2 }
table_list = [a]`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`job.conf:3:1: source Pg: unknown option "hots" is ignored (did you mean "host"?)`,
		`job.conf:5:11: source Pg: unknown option "conn.pool.max" is ignored`,
		`job.conf:6:1: source Pg: unknown option "nested" is ignored`,
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
}

// An unknown option names the declared one it most likely meant: the same
// words with other separators, or a typo.
func TestUnknownOptionSuggestion(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"host = h\nconn_pool_size = 2", `"conn_pool_size" is ignored (did you mean "conn.pool.size"?)`},
		{"host = h\nVERBOSE = true", `(did you mean "verbose"?)`},
		{"host = h\ntimeuot = 5", `(did you mean "timeout"?)`},
		{"host = h\nspark.app.name = x", `"spark" is ignored`},
	} {
		_, warns, err := validate(t, c.body)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 1 || !strings.HasSuffix(warns[0].String(), c.want) {
			t.Errorf("%q: warnings %v, want one ending %q", c.body, warns, c.want)
		}
	}
}

func TestErrorfPositions(t *testing.T) {
	c, _, err := validate(t, "host = h\nport = 7\nodd = 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key  string
		line int
		col  int
	}{
		{"port", 3, 8},  // set: at its value
		{"odd", 4, 7},   // undeclared but present: at its value
		{"ratio", 1, 1}, // unset: at the plugin
	} {
		err := c.Errorf(tt.key, "bad %s", "thing")
		ce := wantError(t, err, tt.line, "source Pg", `option "`+tt.key+`"`, "bad thing")
		if ce.Pos.Col != tt.col {
			t.Errorf("Errorf(%q) at col %d, want %d", tt.key, ce.Pos.Col, tt.col)
		}
	}
	ce := wantError(t, c.ErrorAt(nil, "k", "x"), 1, `option "k"`)
	if ce.Pos != c.Pos {
		t.Errorf("ErrorAt(nil) at %v, want the plugin's %v", ce.Pos, c.Pos)
	}
}

func TestErrorString(t *testing.T) {
	pos := hocon.Pos{File: "a.conf", Line: 4, Col: 2}
	for _, tt := range []struct {
		err  *config.Error
		want string
	}{
		{&config.Error{Pos: pos, Msg: "boom"}, "a.conf:4:2: boom"},
		{&config.Error{Pos: pos, Where: "env", Msg: "boom"}, "a.conf:4:2: env: boom"},
		{&config.Error{Pos: pos, Where: "sink Console", Key: "x.y", Msg: "boom"}, `a.conf:4:2: sink Console: option "x.y": boom`},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if got := (config.Warning{Pos: pos, Msg: "hm"}).String(); got != "a.conf:4:2: hm" {
		t.Errorf("Warning.String() = %q", got)
	}
}

func TestOptionDescribe(t *testing.T) {
	for _, tt := range []struct {
		o    config.Option
		want string
	}{
		{config.Option{Key: "a", Type: config.TypeInt, Required: true}, "a (integer, required)"},
		{config.Option{Key: "b", Type: config.TypeEnum, Enum: []string{"X", "Y"}, Default: "X"}, "b (one of X, Y, default X)"},
		{config.Option{Key: "c", Type: config.TypeDuration}, "c (duration)"},
	} {
		if got := tt.o.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}

// TestWarnf: a plugin's warning is placed at the option's value (at the
// plugin when unset) and kept once however often it is recorded.
func TestWarnf(t *testing.T) {
	c, _, err := validate(t, "host = h\nformat = text")
	if err != nil {
		t.Fatal(err)
	}
	c.Warnf("format", "read as %s", "json")
	c.Warnf("format", "read as %s", "json")
	c.Warnf("port", "unset")
	w := c.Warnings()
	want := []string{"job.conf:3:10: source Pg: format: read as json", "job.conf:1:1: source Pg: port: unset"}
	if len(w) != len(want) {
		t.Fatalf("warnings %v, want %q", w, want)
	}
	for i := range want {
		if w[i].String() != want[i] {
			t.Errorf("warning %d = %q, want %q", i, w[i], want[i])
		}
	}
}

// TestKeepWarnings: the warnings of a config validated from a part of a
// plugin's body become the plugin's, where and as they were recorded, once.
func TestKeepWarnings(t *testing.T) {
	c, _, err := validate(t, "host = h\nformat = text")
	if err != nil {
		t.Fatal(err)
	}
	part, _, err := config.Validate("job.conf", "source Pg tables[0]", "Pg", c.Pos, c.Body, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	part.Warnf("format", "read as %s", "json")
	c.KeepWarnings(part)
	c.KeepWarnings(part)
	c.KeepWarnings(c)
	w := c.Warnings()
	if len(w) != 1 || w[0].String() != "job.conf:3:10: source Pg tables[0]: format: read as json" {
		t.Fatalf("warnings %q", w)
	}
}
