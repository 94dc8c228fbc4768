package localfile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// TestTextDelimiterIsARegex: SeaTunnel splits text records with
// String.split(field_delimiter, -1), so the delimiter is a Java regular
// expression ("\\|" is a literal bar) and trailing empty fields stay.
func TestTextDelimiterIsARegex(t *testing.T) {
	cases := []struct {
		delim, line string
		want        string
	}{
		{`\\|`, "1|a|b", "[1 a b]"},
		{`;`, "1;a;b", "[1 a b]"}, // one plain character: literal, as Java's fast path
		// "|" alone is the empty alternation: it matches between every two
		// characters, as in Java
		{`|`, "1|a|b", "[1 | a]"},
		{`\\s+`, "1  a\tb", "[1 a b]"},
		{`[,;]`, "1,a;b", "[1 a b]"},
		{`ab`, "1ab2abc", "[1 2 c]"},
		{`\\|`, "1||", "[1 <nil> <nil>]"}, // trailing empty fields are kept, read as null
		{`\\.`, "1.a.b", "[1 a b]"},
	}
	for _, c := range cases {
		t.Run(c.delim, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "a.txt"), c.line+"\n")
			s := newTestSource(t, `path = `+q(dir)+`
file_format_type = text
field_delimiter = "`+c.delim+`"
schema = { fields { id = int, x = string, y = string } }`)
			rows := readAll(t, s, 1)
			if len(rows) != 1 || fmt.Sprint(rows[0]) != c.want {
				t.Fatalf("got %v, want %s", rows, c.want)
			}
		})
	}
	_, err := createSourceErr(t, `path = "/tmp"
file_format_type = text
field_delimiter = "[a"`)
	if err == nil || !strings.Contains(err.Error(), "field_delimiter") || !strings.Contains(err.Error(), "not a regular expression") {
		t.Fatalf("bad regular expression: %v", err)
	}
}

// TestLineEndings: "\n", "\r\n" and a lone "\r" all end a line, as
// BufferedReader.lines() in SeaTunnel's readers; a "\r\n" split across the
// reader's buffer refills is one line ending.
func TestLineEndings(t *testing.T) {
	for _, format := range []string{"text", "csv", "json"} {
		for name, nl := range map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r"} {
			t.Run(format+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				var lines []string
				for i := 1; i <= 3; i++ {
					switch format {
					case "text":
						lines = append(lines, fmt.Sprintf("%d\x01v%d", i, i))
					case "csv":
						lines = append(lines, fmt.Sprintf("%d,v%d", i, i))
					default:
						lines = append(lines, fmt.Sprintf(`{"id":%d,"v":"v%d"}`, i, i))
					}
				}
				writeFile(t, filepath.Join(dir, "a."+format), strings.Join(lines, nl)+nl)
				s := newTestSource(t, `path = `+q(dir)+`
file_format_type = `+format+`
schema = { fields { id = int, v = string } }`)
				rows := readAll(t, s, 1)
				if fmt.Sprint(rows) != "[[1 v1] [2 v2] [3 v3]]" {
					t.Fatalf("got %v", rows)
				}
			})
		}
	}
	// a CR at the very end of the buffer: the reader must wait for the
	// next byte before it decides.
	dir := t.TempDir()
	long := strings.Repeat("x", recordBuffer-1)
	writeFile(t, filepath.Join(dir, "a.csv"), "1,"+long[2:]+"\r\n2,b\r3,c")
	s := newTestSource(t, `path = `+q(dir)+`
file_format_type = csv
schema = { fields { id = int, v = string } }`)
	rows := readAll(t, s, 1)
	if len(rows) != 3 || fmt.Sprint(rows[1:]) != "[[2 b] [3 c]]" || rows[0][1] != long[2:] {
		t.Fatalf("got %d rows: %.40v", len(rows), rows)
	}
}

// TestEmptyFolderWithSchema: an empty folder (or one holding only empty
// files) with a declared schema is zero rows, for every format.
func TestEmptyFolderWithSchema(t *testing.T) {
	for _, format := range []string{"text", "csv", "json", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			s := newTestSource(t, `path = `+q(dir)+`
file_format_type = `+format+`
schema = { fields { id = int, v = string } }`)
			if rows := readAll(t, s, 2); len(rows) != 0 {
				t.Fatalf("rows from an empty folder: %v", rows)
			}
			if got := s.Tables()[0].Names(); fmt.Sprint(got) != "[id v]" {
				t.Fatalf("schema: %v", got)
			}
			writeFile(t, filepath.Join(dir, "empty."+format), "")
			s = newTestSource(t, `path = `+q(dir)+`
file_format_type = `+format+`
schema = { fields { id = int, v = string } }`)
			if rows := readAll(t, s, 1); len(rows) != 0 {
				t.Fatalf("rows from an empty file: %v", rows)
			}
		})
	}
}

func TestReplaceTablePlaceholders(t *testing.T) {
	s := row.MustSchema("shop.public.orders", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String})
	s.PrimaryKey = []string{"id"}
	cases := map[string]string{
		"/out/${database_name}/${schema_name}/${table_name}": "/out/shop/public/orders",
		"/out/${table_full_name}-${schema_full_name}":        "/out/shop.public.orders-shop.public",
		"${primary_key}|${unique_key}|${field_names}":        "id|${unique_key}|id,v",
		"/out/${table_name:x}/${dt}/${other}":                "/out/orders/${dt}/${other}",
	}
	for in, want := range cases {
		if got := replaceTablePlaceholders(in, s); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	two := row.MustSchema("db.t", row.Field{Name: "id", Type: row.BigInt})
	if got := replaceTablePlaceholders("${database_name}/${schema_name:none}/${schema_name}x/${table_name}", two); got != "db/none/x/t" {
		t.Errorf("db.t: got %s", got)
	}
}

// TestSinkPathPlaceholders: the sink writes under the folder its path names
// once ${database_name} and ${table_name} are the input table's.
func TestSinkPathPlaceholders(t *testing.T) {
	dir := t.TempDir()
	s := row.MustSchema("shop.orders", row.Field{Name: "id", Type: row.BigInt})
	k := newTestSink(t, `path = "`+dir+`/${database_name}/${table_name}"
file_format_type = csv`, s)
	writeAndCommit(t, k, task(0, 0), 1, batchOf(t, s, []any{int64(7)}))
	fs := files(t, filepath.Join(dir, "shop", "orders"))
	if len(fs) != 1 || readFile(t, filepath.Join(dir, "shop", "orders", fs[0])) != "7\n" {
		t.Fatalf("files under shop/orders: %v", fs)
	}
}

// TestEncodingCharsets: encoding takes the Java charsets Go's x/text has;
// text is written in them and read back from them.
func TestEncodingCharsets(t *testing.T) {
	s := row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String})
	cases := []struct{ charset, text, bytes string }{
		{"GBK", "中文", "\xd6\xd0\xce\xc4"},
		{"Big5", "中文", "\xa4\xa4\xa4\xe5"},
		{"Shift_JIS", "日本", "\x93\xfa\x96\x7b"},
		{"windows-1252", "€", "\x80"},
	}
	for _, c := range cases {
		t.Run(c.charset, func(t *testing.T) {
			got := writeOne(t, "file_format_type = csv\nencoding = "+c.charset, batchOf(t, s, []any{int64(1), c.text}, []any{int64(2), "Ω☃"}))
			want := "1," + c.bytes + "\n2,"
			if !strings.HasPrefix(got, want) {
				t.Fatalf("file bytes %q, want them to start with %q", got, want)
			}
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "a.csv"), "1,"+c.bytes+"\n")
			src := newTestSource(t, `path = `+q(dir)+`
file_format_type = csv
encoding = `+c.charset+`
schema = { fields { id = int, v = string } }`)
			if rows := readAll(t, src, 1); len(rows) != 1 || rows[0][1] != c.text {
				t.Fatalf("read back %v, want %s", rows, c.text)
			}
		})
	}
	// a character GBK cannot hold is written as '?', as Java does
	if got := writeOne(t, "file_format_type = csv\nencoding = GBK", batchOf(t, s, []any{int64(1), "a\u0e01b"})); got != "1,a?b\n" {
		t.Errorf("unmappable: %q", got)
	}
	for name, msg := range map[string]string{"nope-charset": "not a charset", "UTF-16": "ASCII as ASCII"} {
		_, err := createSourceErr(t, "path = \"/tmp\"\nfile_format_type = csv\nencoding = "+name)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "encoding") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
