package kafka

import (
	"reflect"
	"testing"

	"github.com/stactor/stactor/row"
)

var flatSchema = row.MustSchema("t",
	row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "small", Type: row.TinyInt, Nullable: true},
	row.Field{Name: "name", Type: row.String, Nullable: true}, row.Field{Name: "ok", Type: row.Boolean, Nullable: true},
	row.Field{Name: "score", Type: row.Double, Nullable: true}, row.Field{Name: "price", Type: row.DecimalOf(10, 2), Nullable: true},
	row.Field{Name: "day", Type: row.Date, Nullable: true})

// generic decodes v with the general (encoding/json) path only.
func generic(v []byte) ([]any, error) {
	obj, err := parseObject(v)
	if err != nil {
		return nil, err
	}
	return objectRow(obj, flatSchema)
}

// The flat fast path gives what the general decoder gives, or leaves the
// value to it.
func checkFlat(t *testing.T, v []byte) {
	f := newFlatJSON(flatSchema)
	got, ok, err := f.decode(v)
	if !ok {
		return
	}
	want, werr := generic(v)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%q: fast err %v, general err %v", v, err, werr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n fast    %#v\n general %#v", v, got, want)
	}
}

func TestFlatJSONMatchesGeneral(t *testing.T) {
	for _, s := range flatSeeds {
		checkFlat(t, []byte(s))
	}
	f := newFlatJSON(flatSchema)
	if _, ok, _ := f.decode([]byte(`{"id":1,"name":"a\"b"}`)); ok {
		t.Fatal("an escape must go to the general decoder")
	}
	if _, ok, _ := f.decode([]byte(`{"id":1,"x":{"a":1}}`)); ok {
		t.Fatal("a nested value must go to the general decoder")
	}
	if _, ok, err := f.decode([]byte(`{"id":1,"small":300}`)); !ok || err == nil {
		t.Fatalf("an out of range tinyint: ok %v err %v", ok, err)
	}
}

var flatSeeds = []string{
	`{"id":1,"name":"a","ok":true,"score":1.5,"price":12.34,"day":"2024-01-31"}`,
	` { "id" : -7 , "small": 3, "name" : null , "other": "x", "score": 2e3 } `,
	`{}`, `{"id":1}`, `{"id":1.0}`, `{"id":"5"}`, `{"small":300}`, `{"ok":false,"id":9223372036854775807}`,
	`{"id":1,}`, `{"id":1 "name":"a"}`, `{"id":1} x`, `[1]`, `null`, `{"price":"1.5"}`, `{"day":"nope"}`,
}

func FuzzFlatJSON(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFlat)
}
