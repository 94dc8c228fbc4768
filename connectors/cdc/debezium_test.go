package cdc

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// The envelopes are Debezium's (its MySQL connector's JSON with
// schemas.enable = false): one event per change, an update's two rows as
// one event.
func TestDebeziumEnvelope(t *testing.T) {
	s := row.MustSchema("inventory.customers",
		row.Field{Name: "id", Type: row.BigInt},
		row.Field{Name: "name", Type: row.String, Nullable: true},
		row.Field{Name: "price", Type: row.DecimalOf(10, 2), Nullable: true},
		row.Field{Name: "born", Type: &row.Type{ID: row.TypeDate}, Nullable: true})
	s.PrimaryKey = []string{"id"}
	b := row.NewBuilder(s, 4)
	add := func(k row.Kind, id int64, name string, price string) {
		b.Col(0).AppendInt(id)
		b.Col(1).AppendString(name)
		b.Col(2).AppendDecimal(decimal.RequireFromString(price))
		b.Col(3).AppendInt(19000)
		b.EndRow(k)
	}
	add(row.Insert, 1001, "Sally", "1.50")
	add(row.UpdateBefore, 1001, "Sally", "1.50")
	add(row.UpdateAfter, 1001, "Sal", "-1.50")
	add(row.Delete, 1001, "Sal", "-1.50")
	d := &debezium{server: "dbserver1", connector: "mysql"}
	changes := b.Build()
	out, err := d.convert(&Table{ID: s.TableID, Schema: s}, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != 3 {
		t.Fatalf("%d events, want 3", out.Len())
	}
	sally := map[string]any{"id": 1001.0, "name": "Sally", "price": "AJY=", "born": 19000.0}
	sal := map[string]any{"id": 1001.0, "name": "Sal", "price": "/2o=", "born": 19000.0}
	for i, want := range []struct {
		op            string
		before, after any
	}{{"c", nil, sally}, {"u", sally, sal}, {"d", sal, nil}} {
		if topic := out.Value(i, 0); topic != "dbserver1.inventory.customers" {
			t.Errorf("event %d: topic %v", i, topic)
		}
		if key := out.Value(i, 1); key != `{"id":1001}` {
			t.Errorf("event %d: key %v", i, key)
		}
		var env map[string]any
		if err := json.Unmarshal([]byte(out.Value(i, 2).(string)), &env); err != nil {
			t.Fatal(err)
		}
		if env["op"] != want.op || !reflect.DeepEqual(env["before"], want.before) || !reflect.DeepEqual(env["after"], want.after) {
			t.Errorf("event %d: %v", i, env)
		}
		src := env["source"].(map[string]any)
		if src["connector"] != "mysql" || src["name"] != "dbserver1" || src["db"] != "inventory" || src["table"] != "customers" || src["snapshot"] != "false" {
			t.Errorf("event %d: source %v", i, src)
		}
	}

	// With schemas: {"schema", "payload"}, the envelope's schema named
	// after the topic; snapshot rows are op "r".
	d.keySchema, d.valueSchema = true, true
	out, err = d.convert(&Table{ID: s.TableID, Schema: s}, changes.Slice(0, 1), true)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Schema  map[string]any `json:"schema"`
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal([]byte(out.Value(0, 2).(string)), &v); err != nil {
		t.Fatal(err)
	}
	if v.Schema["name"] != "dbserver1.inventory.customers.Envelope" || v.Payload["op"] != "r" {
		t.Fatalf("with schemas: %v", v)
	}
	after := v.Schema["fields"].([]any)[1].(map[string]any)
	price := after["fields"].([]any)[2].(map[string]any)
	if price["name"] != "org.apache.kafka.connect.data.Decimal" || price["parameters"].(map[string]any)["scale"] != "2" {
		t.Fatalf("price's schema: %v", price)
	}
	var key struct {
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal([]byte(out.Value(0, 1).(string)), &key); err != nil || key.Payload["id"] != 1001.0 {
		t.Fatalf("key with schema: %v %v", out.Value(0, 1), err)
	}
}

// A timestamp_tz is Debezium's ZonedTimestamp: ISO_OFFSET_DATE_TIME text
// in a string field.
func TestDebeziumTimestampTZ(t *testing.T) {
	v, err := row.Convert(row.TimestampTZ, "2024-01-01T10:00:00.25+05:45")
	if err != nil {
		t.Fatal(err)
	}
	if got := debeziumValue(row.TimestampTZ, v); got != "2024-01-01T10:00:00.25+05:45" {
		t.Errorf("value %v", got)
	}
	if got := connectSchema(row.TimestampTZ); got["type"] != "string" || got["name"] != "io.debezium.time.ZonedTimestamp" {
		t.Errorf("schema %v", got)
	}
}
