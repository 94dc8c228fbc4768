package localfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// A file as another writer lays it out: parquet-go's struct mapping, with
// a legacy repeated field (no LIST group), a map, a nested group, millis
// timestamps, an int32 decimal and an unsigned integer.
type foreignRecord struct {
	ID     int32            `parquet:"id"`
	Name   *string          `parquet:"name,optional"`
	Tags   []int64          `parquet:"tags"`
	When   time.Time        `parquet:"when,timestamp(millisecond)"`
	Attrs  map[string]int32 `parquet:"attrs"`
	Inner  foreignInner     `parquet:"inner"`
	Price  int32            `parquet:"price,decimal(2:9)"`
	Count  uint16           `parquet:"count"`
	Avatar []byte           `parquet:"avatar"`
}

type foreignInner struct {
	A string `parquet:"a"`
	B *int64 `parquet:"b,optional"`
}

func TestReadParquetOfAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	name := "ann"
	b := int64(9)
	recs := []foreignRecord{
		{ID: 1, Name: &name, Tags: []int64{1, 2}, When: time.Date(2024, 1, 31, 12, 30, 0, 5e6, time.UTC),
			Attrs: map[string]int32{"k": 3}, Inner: foreignInner{A: "x", B: &b}, Price: 1234, Count: 65535, Avatar: []byte{1, 2}},
		{ID: 2, Tags: nil, When: time.Unix(0, 0).UTC(), Inner: foreignInner{A: "y"}, Price: -5},
	}
	f, err := os.Create(filepath.Join(dir, "other.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(f, recs); err != nil {
		t.Fatal(err)
	}
	f.Close()

	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = parquet")
	want := "default.default.default(id int, name string, tags array<bigint>, when timestamp, attrs map<string, int>, inner row<a string, b bigint>, price decimal(9, 2), count int, avatar bytes)"
	if got := src.cfg.schema.String(); got != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{
		{int64(1), "ann", []any{int64(1), int64(2)}, ts("2024-01-31T12:30:00.005"), &row.MapValue{Keys: []any{"k"}, Values: []any{int64(3)}},
			[]any{"x", int64(9)}, decimal.RequireFromString("12.34"), int64(65535), []byte{1, 2}},
		{int64(2), nil, []any{}, ts("1970-01-01"), &row.MapValue{}, []any{"y", nil}, decimal.RequireFromString("-0.05"), int64(0), []byte{}},
	})

	// A schema asks for other types: values are converted.
	src = newTestSource(t, "path = "+q(dir)+"\nfile_format_type = parquet\nschema { fields { price = double, id = string, count = bigint } }")
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{12.34, "1", int64(65535)}, {-0.05, "2", int64(0)}})
}

// A timestamp or date the row model holds but parquet's TIMESTAMP(MICROS)
// or DATE cannot is an error naming the field, never a wrapped value.
func TestParquetTimestampOutOfRange(t *testing.T) {
	s := row.MustSchema("t", row.Field{Name: "id", Type: row.Int}, row.Field{Name: "seen", Type: row.Timestamp, Nullable: true}, row.Field{Name: "born", Type: row.Date, Nullable: true})
	k := newTestSink(t, "path = "+q(t.TempDir())+"\nfile_format_type = parquet", s)
	for _, tc := range []struct {
		v     []any
		field string
	}{
		{[]any{int64(1), time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC), nil}, "field seen: timestamp +300000-01-01T00:00 does not fit parquet TIMESTAMP(MICROS)"},
		{[]any{int64(2), nil, time.Date(-6000000, 1, 1, 0, 0, 0, 0, time.UTC)}, "field born: date -6000000-01-01 does not fit parquet DATE"},
	} {
		w, err := k.CreateWriter(context.Background(), task(0, 0), nil)
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(batchOf(t, s, tc.v))
		if err == nil {
			_, err = w.PrepareCommit(1)
		}
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("error %v, want %q", err, tc.field)
		}
		w.Close()
	}
	// Year 1 and 9999 fit, to the microsecond.
	dir := t.TempDir()
	k = newTestSink(t, "path = "+q(dir)+"\nfile_format_type = parquet", s)
	writeAndCommit(t, k, task(0, 0), 1, batchOf(t, s,
		[]any{int64(1), ts("9999-12-31T23:59:59.999999999"), ts("9999-12-31")},
		[]any{int64(2), ts("0001-01-01T00:00:00"), ts("0001-01-01")}))
	rows := readAll(t, newTestSource(t, "path = "+q(dir)+"\nfile_format_type = parquet"), 1)
	got := fmt.Sprint(rows)
	if want := "[[1 9999-12-31 23:59:59.999999 +0000 UTC 9999-12-31 00:00:00 +0000 UTC] [2 0001-01-01 00:00:00 +0000 UTC 0001-01-01 00:00:00 +0000 UTC]]"; got != want {
		t.Errorf("rows %s\nwant %s", got, want)
	}
}
