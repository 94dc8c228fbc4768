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

// TestTimestampTZJSON: the json format writes a timestamp_tz as
// ISO_OFFSET_DATE_TIME text and reads it back with its offset; text
// writes OffsetDateTime.toString.
func TestTimestampTZJSON(t *testing.T) {
	s := row.MustSchema("t", row.Field{Name: "tz", Type: row.TimestampTZ, Nullable: true})
	b := row.NewBuilder(s, 3)
	for _, v := range []any{"2024-01-01T10:00:00+05:45", "0001-01-01T00:00:00.5-12:00", nil} {
		if err := b.AppendRow(row.Insert, []any{v}); err != nil {
			t.Fatal(err)
		}
	}
	batch := b.Build()
	enc, dec := newEncoder(formatJSON, ""), newDecoder(formatJSON, "", s, false)
	for i, want := range []string{`{"tz":"2024-01-01T10:00:00+05:45"}`, `{"tz":"0001-01-01T00:00:00.5-12:00"}`, `{"tz":null}`} {
		got := enc(nil, batch, i)
		if string(got) != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
		rows, err := dec(got)
		if err != nil || len(rows) != 1 || row.Text(row.TimestampTZ, rows[0].vals[0]) != row.Text(row.TimestampTZ, batch.Value(i, 0)) {
			t.Errorf("row %d read back as %v, %v", i, rows, err)
		}
	}
	if got := newEncoder(formatText, ","); string(got(nil, batch, 0)) != "2024-01-01T10:00+05:45" {
		t.Errorf("text %s", got(nil, batch, 0))
	}
}
