package cdc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// format COMPATIBLE_DEBEZIUM_JSON (SeaTunnel's CompatibleDebeziumJson):
// instead of each table's rows, the source emits one table,
// "default.default", of rows (topic string, key string, value string),
// one INSERT row per change, as Debezium's Kafka Connect JSON converter
// writes its records:
//
//   - topic is <database.server.name>.<database>.<table> for MySQL and
//     <database.server.name>.<schema>.<table> for PostgreSQL;
//   - key is the row's primary key, {"id":1};
//   - value is Debezium's change envelope {"before", "after", "source",
//     "op", "ts_ms", "transaction"}: op "r" for snapshot rows, "c" for
//     inserts, "u" for updates (the UPDATE_BEFORE / UPDATE_AFTER pair as
//     one event), "d" for deletes (after null; no tombstone follows);
//   - with key.converter.schemas.enable and value.converter.schemas.enable
//     (both true by default, as in Kafka Connect) each is
//     {"schema": …, "payload": …} with Kafka Connect's schema of it.
//
// Values follow Debezium's default mappings: integers and floats as
// numbers, decimals as Kafka Connect Decimal (the unscaled value's
// big-endian two's complement, base64), bytes as base64, dates as days
// (io.debezium.time.Date), times as microseconds
// (io.debezium.time.MicroTime), timestamps as microseconds since the epoch
// (io.debezium.time.MicroTimestamp), arrays as arrays, maps and rows as
// their JSON text. The source block has version, connector, name, ts_ms
// (0: the commit time is not read), snapshot, db, schema (PostgreSQL),
// table. The debezium { … } options read are database.server.name and the
// two schemas.enable settings. A schema change (schema-changes.enabled)
// adds the new columns to the events; the output table does not change.

// debeziumTable is the table the format emits.
var debeziumTable = func() *row.Schema {
	return row.MustSchema("default.default",
		row.Field{Name: "topic", Type: row.String, Nullable: true},
		row.Field{Name: "key", Type: row.String, Nullable: true},
		row.Field{Name: "value", Type: row.String, Nullable: true})
}()

// FormatDebezium is format COMPATIBLE_DEBEZIUM_JSON.
const FormatDebezium = "COMPATIBLE_DEBEZIUM_JSON"

// debezium is the format's settings.
type debezium struct {
	server      string // database.server.name
	connector   string // source.connector: "mysql", "postgresql"
	keySchema   bool
	valueSchema bool
}

// Debezium's version in the source block: the one SeaTunnel embeds.
const debeziumVersion = "1.9.8.Final"

// newDebezium reads the debezium { … } settings of the format.
func newDebezium(cfg *config.PluginConfig, spec Spec) (*debezium, error) {
	d := &debezium{server: spec.ServerName, connector: spec.Connector, keySchema: true, valueSchema: true}
	if v := cfg.Lookup("debezium.database.server.name"); v != nil {
		d.server = v.String()
	}
	for key, p := range map[string]*bool{"key.converter.schemas.enable": &d.keySchema, "value.converter.schemas.enable": &d.valueSchema} {
		v := cfg.Lookup("debezium." + key)
		if v == nil {
			continue
		}
		b, err := strconv.ParseBool(v.String())
		if err != nil {
			return nil, cfg.ErrorAt(v, "debezium", "%s is %q, not true or false", key, v.String())
		}
		*p = b
	}
	return d, nil
}

// names are the database, schema and table of a table id (database.table
// or database.schema.table).
func names(id string) (db, schema, table string) {
	parts := strings.Split(id, ".")
	switch len(parts) {
	case 3:
		return parts[0], parts[1], parts[2]
	case 2:
		return parts[0], "", parts[1]
	}
	return "", "", id
}

// topic is the table's Debezium topic.
func (d *debezium) topic(id string) string {
	db, schema, table := names(id)
	if schema != "" {
		return d.server + "." + schema + "." + table
	}
	return d.server + "." + db + "." + table
}

// convert turns a batch of table t's changes into the format's rows.
func (d *debezium) convert(t *Table, b *row.Batch, snapshot bool) (*row.Batch, error) {
	s := b.Schema
	out := row.NewBuilder(debeziumTable, b.Len())
	topic := d.topic(s.TableID)
	keyIdx := make([]int, 0, len(s.PrimaryKey))
	for _, k := range s.PrimaryKey {
		if j := s.Index(k); j >= 0 {
			keyIdx = append(keyIdx, j)
		}
	}
	rowSchema := d.rowSchema(s, nil)
	keySchema := d.rowSchema(s, keyIdx)
	now := time.Now().UnixMilli()
	db, schema, table := names(s.TableID)
	src := map[string]any{"version": debeziumVersion, "connector": d.connector, "name": d.server, "ts_ms": 0,
		"snapshot": strconv.FormatBool(snapshot), "db": db, "table": table}
	if schema != "" {
		src["schema"] = schema
	}
	for i := 0; i < b.Len(); i++ {
		var before, after map[string]any
		op := "c"
		switch b.Kind(i) {
		case row.Insert:
			after = d.values(b, i)
			if snapshot {
				op = "r"
			}
		case row.UpdateBefore:
			if i+1 >= b.Len() || b.Kind(i+1) != row.UpdateAfter {
				return nil, fmt.Errorf("table %s: an UPDATE_BEFORE row without its UPDATE_AFTER", s.TableID)
			}
			before, after, op = d.values(b, i), d.values(b, i+1), "u"
			i++
		case row.UpdateAfter:
			after, op = d.values(b, i), "u"
		case row.Delete:
			before, op = d.values(b, i), "d"
		}
		keyRow := after
		if keyRow == nil {
			keyRow = before
		}
		key := map[string]any{}
		for _, j := range keyIdx {
			key[s.Fields[j].Name] = keyRow[s.Fields[j].Name]
		}
		env := map[string]any{"before": nilIfEmpty(before), "after": nilIfEmpty(after), "source": src, "op": op, "ts_ms": now, "transaction": nil}
		k, err := d.wrap(d.keySchema, keySchema, key, len(keyIdx) == 0)
		if err != nil {
			return nil, err
		}
		v, err := d.wrap(d.valueSchema, d.envelopeSchema(s.TableID, rowSchema), env, false)
		if err != nil {
			return nil, err
		}
		out.Col(0).AppendString(topic)
		if k == nil {
			out.Col(1).AppendNull()
		} else {
			out.Col(1).AppendString(string(k))
		}
		out.Col(2).AppendString(string(v))
		out.EndRow(row.Insert)
	}
	return out.Build(), nil
}

func nilIfEmpty(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// wrap is payload as the JSON converter writes it: {"schema", "payload"}
// with schemas, else the payload alone; nil for a key of a table without
// one.
func (d *debezium) wrap(withSchema bool, schema map[string]any, payload map[string]any, none bool) ([]byte, error) {
	if none {
		return nil, nil
	}
	if withSchema {
		return json.Marshal(map[string]any{"schema": schema, "payload": payload})
	}
	return json.Marshal(payload)
}

// values are row i's fields in Debezium's JSON.
func (d *debezium) values(b *row.Batch, i int) map[string]any {
	m := make(map[string]any, len(b.Schema.Fields))
	for j, f := range b.Schema.Fields {
		m[f.Name] = debeziumValue(f.Type, b.Cols[j].Value(i))
	}
	return m
}

// debeziumValue is a boxed value as Debezium's JSON has it.
func debeziumValue(t *row.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t.ID {
	case row.TypeDecimal:
		return decimalBytes(v, t.Scale)
	case row.TypeBytes:
		return base64.StdEncoding.EncodeToString(v.([]byte))
	case row.TypeDate:
		return row.DateOf(v.(time.Time))
	case row.TypeTime:
		return v.(time.Duration).Microseconds()
	case row.TypeTimestamp:
		return v.(time.Time).UnixMicro()
	case row.TypeTimestampTZ: // ZonedTimestamp: ISO_OFFSET_DATE_TIME text
		sec, nano, off := row.TimestampTZOf(v.(time.Time))
		return string(row.AppendTimestampTZ(nil, sec, nano, off, 'T', true))
	case row.TypeArray:
		xs, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(xs))
		for k, x := range xs {
			out[k] = debeziumValue(t.Elem, x)
		}
		return out
	case row.TypeMap, row.TypeRow:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
	return v
}

// decimalBytes is Kafka Connect's Decimal: the unscaled value at the
// column's scale as big-endian two's complement, base64.
func decimalBytes(v any, scale int) string {
	s, ok := v.(fmt.Stringer)
	if !ok {
		return ""
	}
	r, ok := new(big.Rat).SetString(s.String())
	if !ok {
		return ""
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	return base64.StdEncoding.EncodeToString(twosComplement(n))
}

// twosComplement is n's big-endian two's complement in the fewest bytes.
func twosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n = ^(n-1): invert the magnitude of |n|-1 over enough bytes.
	m := new(big.Int).Sub(new(big.Int).Neg(n), big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for k := range b {
		b[k] = ^b[k]
	}
	return b
}

// rowSchema is Kafka Connect's struct schema of s's fields (those at idx
// when idx is not nil): the key's or a row image's.
func (d *debezium) rowSchema(s *row.Schema, idx []int) map[string]any {
	var fields []any
	add := func(f row.Field) {
		fs := connectSchema(f.Type)
		fs["optional"] = f.Nullable
		fs["field"] = f.Name
		fields = append(fields, fs)
	}
	name := d.topic(s.TableID) + ".Value"
	if idx != nil {
		name = d.topic(s.TableID) + ".Key"
		for _, j := range idx {
			add(s.Fields[j])
		}
	} else {
		for _, f := range s.Fields {
			add(f)
		}
	}
	return map[string]any{"type": "struct", "fields": fields, "optional": idx == nil, "name": name}
}

// envelopeSchema is the schema of the change envelope of table id.
func (d *debezium) envelopeSchema(id string, rowSchema map[string]any) map[string]any {
	before, after := copyMap(rowSchema), copyMap(rowSchema)
	before["field"], after["field"] = "before", "after"
	str := func(name string, optional bool) map[string]any {
		return map[string]any{"type": "string", "optional": optional, "field": name}
	}
	source := map[string]any{"type": "struct", "optional": false, "field": "source", "name": "io.debezium.connector." + d.connector + ".Source",
		"fields": []any{str("version", false), str("connector", false), str("name", false),
			map[string]any{"type": "int64", "optional": false, "field": "ts_ms"}, str("snapshot", true), str("db", false), str("schema", true), str("table", true)}}
	return map[string]any{"type": "struct", "optional": false, "name": d.topic(id) + ".Envelope", "fields": []any{before, after, source, str("op", false),
		map[string]any{"type": "int64", "optional": true, "field": "ts_ms"},
		map[string]any{"type": "struct", "optional": true, "field": "transaction", "fields": []any{str("id", false),
			map[string]any{"type": "int64", "optional": false, "field": "total_order"},
			map[string]any{"type": "int64", "optional": false, "field": "data_collection_order"}}}}}
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// connectSchema is Kafka Connect's schema of a type, as Debezium maps it.
func connectSchema(t *row.Type) map[string]any {
	switch t.ID {
	case row.TypeBoolean:
		return map[string]any{"type": "boolean"}
	case row.TypeTinyInt:
		return map[string]any{"type": "int8"}
	case row.TypeSmallInt:
		return map[string]any{"type": "int16"}
	case row.TypeInt:
		return map[string]any{"type": "int32"}
	case row.TypeBigInt:
		return map[string]any{"type": "int64"}
	case row.TypeFloat:
		return map[string]any{"type": "float"}
	case row.TypeDouble:
		return map[string]any{"type": "double"}
	case row.TypeDecimal:
		return map[string]any{"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
			"parameters": map[string]any{"scale": strconv.Itoa(t.Scale), "connect.decimal.precision": strconv.Itoa(t.Precision)}}
	case row.TypeBytes:
		return map[string]any{"type": "bytes"}
	case row.TypeDate:
		return map[string]any{"type": "int32", "name": "io.debezium.time.Date", "version": 1}
	case row.TypeTime:
		return map[string]any{"type": "int64", "name": "io.debezium.time.MicroTime", "version": 1}
	case row.TypeTimestamp:
		return map[string]any{"type": "int64", "name": "io.debezium.time.MicroTimestamp", "version": 1}
	case row.TypeTimestampTZ:
		return map[string]any{"type": "string", "name": "io.debezium.time.ZonedTimestamp", "version": 1}
	case row.TypeArray:
		items := connectSchema(t.Elem)
		items["optional"] = true
		return map[string]any{"type": "array", "items": items}
	}
	return map[string]any{"type": "string"}
}
