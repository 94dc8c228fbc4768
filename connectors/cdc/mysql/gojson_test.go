package mysql

import (
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/shopspring/decimal"
)

// go-mysql turns a MySQL JSON column (binary in the binlog) into text with
// github.com/goccy/go-json's Marshal, which go.mod replaces by a stand-in
// over encoding/json (third_party/goccy-go-json). This pins the text for
// the kinds of values go-mysql's JSON decoder builds, as goccy writes
// them: sorted keys, HTML characters escaped, shortest floats, []byte as
// base64, decimals through their MarshalJSON.
func TestGoMySQLJSONText(t *testing.T) {
	v := map[string]any{
		"z": []any{int64(-9223372036854775808), uint64(18446744073709551615), 1.5, 1e21, 0.000001},
		"a": map[string]any{"s": "<a href=\"x\">é</a>&", "t": true, "n": nil},
		"b": []byte("hi"),
		"d": decimal.RequireFromString("12.340"),
	}
	got, err := gojson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"n":null,"s":"\u003ca href=\"x\"\u003eé\u003c/a\u003e\u0026","t":true},"b":"aGk=","d":"12.34","z":[-9223372036854775808,18446744073709551615,1.5,1e+21,0.000001]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
