package jdbc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

func TestPostgresTypesGolden(t *testing.T) {
	conn := pgConn(t, "postgres")
	pgExec(t, conn, `DROP TABLE IF EXISTS types_pg`, `DROP TYPE IF EXISTS mood`, `DROP DOMAIN IF EXISTS posint`,
		`CREATE TYPE mood AS ENUM ('sad', 'happy')`,
		`CREATE DOMAIN posint AS integer CHECK (VALUE > 0)`,
		`CREATE TABLE types_pg (
  id bigint PRIMARY KEY, c_bool boolean, c_bit1 bit(1), c_bits bit varying(8),
  c_int2 smallint, c_int4 integer NOT NULL, c_int8 bigint, c_oid oid,
  c_float4 real, c_float8 double precision,
  c_num numeric(38,18), c_num102 numeric(10,2), c_numany numeric,
  c_char char(3), c_varchar varchar(20), c_text text, c_name name,
  c_json json, c_jsonb jsonb, c_uuid uuid, c_inet inet, c_mood mood, c_posint posint,
  c_bytea bytea, c_date date, c_time time, c_timetz timetz,
  c_ts timestamp, c_tstz timestamptz,
  c_abool boolean[], c_aint2 smallint[], c_aint4 integer[], c_aint8 bigint[],
  c_afloat4 real[], c_afloat8 double precision[], c_atext text[], c_avarchar varchar(5)[]
)`,
		`INSERT INTO types_pg VALUES (1, true, B'1', B'101', 32767, 2147483647, 9223372036854775807, 4294967295,
  3.4028235e38, 1.7976931348623157e308,
  99999999999999999999.999999999999999999, 12345678.91, 0.1,
  'ab', 'héllo', 'multi
line', 'nm',
  '{"a": [1, 2]}', '{"b": {"c": null}}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '192.168.0.1/32', 'happy', 7,
  '\x00ff10', '9999-12-31', '23:59:59.999999', '12:30:00+05',
  '9999-12-31 23:59:59.999999', '2024-02-29 12:00:00+02',
  '{t,f,NULL}', '{-32768,32767}', '{1,NULL,3}', '{-9223372036854775808}',
  '{1.5,NaN,Infinity}', '{-Infinity,0.1}', '{"a","b c",NULL,"{x}"}', '{}')`,
		`INSERT INTO types_pg VALUES (2, false, B'0', B'', -32768, -2147483648, -9223372036854775808, 0,
  'NaN', '-Infinity',
  -99999999999999999999.999999999999999999, -0.01, 123456789012345678.5,
  'x', '', '', '',
  'null', '[]', '00000000-0000-0000-0000-000000000000', '::1', 'sad', 1,
  '', '0001-01-01', '00:00:00', '00:00:00-08',
  '0001-01-01 00:00:00', '1970-01-01 00:00:00+00',
  '{}', NULL, '{}', '{}', '{}', '{}', '{}', '{}')`,
		`INSERT INTO types_pg (id, c_int4) VALUES (3, 0)`,
	)
	info, err := describePostgres(testCtx(t), conn, tablePath{Database: "postgres", Schema: "public", Table: "types_pg"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(info.PrimaryKey, ",") != "id" {
		t.Errorf("primary key %v", info.PrimaryKey)
	}
	schema, err := schemaOf(info.Path.String(), info.Columns, info.PrimaryKey, info.UniqueKeys)
	if err != nil {
		t.Fatal(err)
	}
	s, err := queryPostgres(testCtx(t), conn, "SELECT * FROM types_pg ORDER BY id", nil, info.Columns)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "types_postgres.golden", render(info.Columns, readAll(t, s, schema)))

	// A query is described by preparing it; its columns take the table's
	// names and nullability.
	qcols, err := describePostgresQuery(testCtx(t), conn, "q", "SELECT id, c_num102 * 2 AS dbl, c_int4 FROM types_pg", info)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "types_postgres_query.golden", render(qcols, nil))
}

func TestPostgresUnmappableAndBadValues(t *testing.T) {
	conn := pgConn(t, "postgres")
	for _, typ := range []string{"interval", "numeric(50,2)", "point", "int4range", "numeric[]"} {
		pgExec(t, conn, "DROP TABLE IF EXISTS bad_pg", "CREATE TABLE bad_pg (id int, c_bad "+typ+")")
		_, err := describePostgres(testCtx(t), conn, tablePath{Database: "postgres", Schema: "public", Table: "bad_pg"})
		if err == nil || !strings.Contains(err.Error(), "postgres.public.bad_pg") || !strings.Contains(err.Error(), `"c_bad"`) || !strings.Contains(err.Error(), strings.TrimSuffix(typ, "[]")) {
			t.Errorf("%s: %v", typ, err)
		}
	}
	_, err := describePostgres(testCtx(t), conn, tablePath{Database: "postgres", Schema: "public", Table: "no_such"})
	if err == nil || !strings.Contains(err.Error(), "table not found: postgres.public.no_such") {
		t.Errorf("missing table: %v", err)
	}
	// Values that the row model cannot hold fail the read, naming the column.
	pgExec(t, conn, "DROP TABLE IF EXISTS badval_pg", "CREATE TABLE badval_pg (n numeric, d date, ts timestamp)")
	for _, v := range []string{"('NaN', NULL, NULL)", "(NULL, 'infinity', NULL)", "(NULL, NULL, '-infinity')"} {
		pgExec(t, conn, "TRUNCATE badval_pg", "INSERT INTO badval_pg VALUES "+v)
		info, err := describePostgres(testCtx(t), conn, tablePath{Database: "postgres", Schema: "public", Table: "badval_pg"})
		if err != nil {
			t.Fatal(err)
		}
		schema, _ := schemaOf("t", info.Columns, nil, nil)
		s, err := queryPostgres(testCtx(t), conn, "SELECT * FROM badval_pg", nil, info.Columns)
		if err != nil {
			t.Fatal(err)
		}
		b := row.NewBuilder(schema, 1)
		_, _, err = s.read([]*row.Column{b.Col(0), b.Col(1), b.Col(2)}, 1)
		s.close()
		if err == nil || !strings.Contains(err.Error(), "column") {
			t.Errorf("%s: %v", v, err)
		}
	}
}

func TestMySQLTypesGolden(t *testing.T) {
	db := myDB(t, "test")
	myExec(t, db, "DROP TABLE IF EXISTS types_my", `CREATE TABLE types_my (
  id bigint PRIMARY KEY, c_bit1 bit(1), c_bit8 bit(8), c_bool boolean, c_tiny1 tinyint(1),
  c_tiny tinyint, c_utiny tinyint unsigned, c_small smallint, c_usmall smallint unsigned,
  c_medium mediumint, c_int int NOT NULL, c_uint int unsigned, c_big bigint, c_ubig bigint unsigned,
  c_float float, c_double double, c_dec decimal(38,18), c_dec102 decimal(10,2), c_year year,
  c_char char(3), c_varchar varchar(20), c_text text, c_longtext longtext, c_enum enum('a','b'), c_set set('x','y'), c_json json,
  c_binary binary(2), c_varbinary varbinary(8), c_blob blob,
  c_date date, c_time time(6), c_datetime datetime(6), c_ts timestamp(6) NULL,
  UNIQUE KEY uk_small (c_small, c_medium)
) ENGINE=InnoDB`,
		`INSERT INTO types_my VALUES (1, b'1', b'10100101', true, 1,
  127, 255, 32767, 65535, 8388607, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615,
  3.40282e38, 1.7976931348623157e308, 99999999999999999999.999999999999999999, 12345678.91, 2155,
  'ab', 'héllo', 'multi\nline', 'long', 'b', 'x,y', '{"a": [1, 2]}',
  'ab', 0x00ff10, 0x0102,
  '9999-12-31', '23:59:59.999999', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999')`,
		`INSERT INTO types_my VALUES (2, b'0', b'0', false, 0,
  -128, 0, -32768, 0, -8388608, -2147483648, 0, -9223372036854775808, 0,
  -1.5, -0.1, -99999999999999999999.999999999999999999, -0.01, 1901,
  '', '', '', '', 'a', '', 'null',
  'a', '', '',
  '1000-01-01', '00:00:00', '1000-01-01 00:00:00', '1970-01-01 00:00:01')`,
		`INSERT INTO types_my (id, c_int) VALUES (3, 0)`,
	)
	info, err := describeMySQL(testCtx(t), db, tablePath{Database: "test", Table: "types_my"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(info.PrimaryKey, ",") != "id" || len(info.UniqueKeys) != 1 || strings.Join(info.UniqueKeys[0], ",") != "c_small,c_medium" {
		t.Errorf("keys %v %v", info.PrimaryKey, info.UniqueKeys)
	}
	schema, err := schemaOf(info.Path.String(), info.Columns, info.PrimaryKey, info.UniqueKeys)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(testCtx(t), "SET time_zone = '+00:00'"); err != nil {
		t.Fatal(err)
	}
	s, err := queryMySQL(testCtx(t), conn, "SELECT "+selectList(dialectSQL{name: dialectMySQL}, &sourceTable{Columns: info.Columns})+" FROM types_my ORDER BY id", nil, info.Columns, "")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "types_mysql.golden", render(info.Columns, readAll(t, s, schema)))

	qcols, err := describeMySQLQuery(testCtx(t), db, "q", "SELECT id, c_dec102 * 2 AS dbl, c_tiny1, c_json FROM types_my", info)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "types_mysql_query.golden", render(qcols, nil))

	// A query whose table is not known gets its exact types from the
	// server too: bit(8) is bytes, not bit(1)'s boolean; tinyint(4) a number.
	qcols, err = describeMySQLQuery(testCtx(t), db, "q", "SELECT c_bit1, c_bit8, c_tiny1, c_tiny, c_utiny FROM types_my", nil)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "types_mysql_query_untabled.golden", render(qcols, nil))
}

func TestMySQLUnmappableAndZeroDates(t *testing.T) {
	db := myDB(t, "test")
	myExec(t, db, "DROP TABLE IF EXISTS bad_my", "CREATE TABLE bad_my (id int, c_bad decimal(50,2))")
	_, err := describeMySQL(testCtx(t), db, tablePath{Database: "test", Table: "bad_my"})
	if err == nil || !strings.Contains(err.Error(), `test.bad_my column "c_bad" has type decimal(50,2)`) {
		t.Errorf("decimal(50,2): %v", err)
	}
	myExec(t, db, "SET SESSION sql_mode = ''", "DROP TABLE IF EXISTS zero_my", "CREATE TABLE zero_my (d date, ts datetime)")
	conn, _ := db.Conn(testCtx(t))
	defer conn.Close()
	if _, err := conn.ExecContext(testCtx(t), "SET SESSION sql_mode = ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(testCtx(t), "INSERT INTO zero_my VALUES ('0000-00-00', '0000-00-00 00:00:00')"); err != nil {
		t.Fatal(err)
	}
	info, err := describeMySQL(testCtx(t), db, tablePath{Database: "test", Table: "zero_my"})
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := schemaOf("t", info.Columns, nil, nil)
	for _, tc := range []struct {
		zero zeroDate
		want string
	}{{"", "zero date"}, {"convertToNull", "null,null"}, {"round", "0001-01-01,0001-01-01T00:00"}} {
		s, err := queryMySQL(testCtx(t), conn, "SELECT * FROM zero_my", nil, info.Columns, tc.zero)
		if err != nil {
			t.Fatal(err)
		}
		b := row.NewBuilder(schema, 1)
		_, _, err = s.read([]*row.Column{b.Col(0), b.Col(1)}, 1)
		s.close()
		got := ""
		switch {
		case err != nil && strings.Contains(err.Error(), "zero date"):
			got = "zero date"
		case err != nil && strings.Contains(err.Error(), "outside the range"):
			got = row.Text(row.Date, b.Col(0).Value(0)) + ",error"
		case err == nil:
			b.EndRow(row.Insert)
			bb := b.Build()
			got = row.Text(row.Date, bb.Value(0, 0)) + "," + row.Text(row.Timestamp, bb.Value(0, 1))
		default:
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("zeroDateTimeBehavior=%q: got %s, want %s", tc.zero, got, tc.want)
		}
	}
}

// PostGIS's types have no fixed oids: they are known by name, and map to
// their text form as SeaTunnel's PG_GEOMETRY and PG_GEOGRAPHY; another
// base type of an extension stays unmappable.
func TestPostGISTypesByName(t *testing.T) {
	lookup := func(names map[uint32]string) func(uint32) (pgTypeInfo, error) {
		return func(oid uint32) (pgTypeInfo, error) { return pgTypeInfo{kind: 'b', name: names[oid]}, nil }
	}
	names := map[uint32]string{90001: "geometry", 90002: "geography", 90003: "box2d"}
	for oid, want := range map[uint32]bool{90001: true, 90002: true, 90003: false} {
		c := column{Name: "g", OID: oid}
		err := mapPostgres("db.public.t", &c, lookup(names))
		if want && (err != nil || c.Type != row.String || c.Read != "astext") {
			t.Errorf("%s: %v %v %q", names[oid], err, c.Type, c.Read)
		}
		if !want && (err == nil || !strings.Contains(err.Error(), `"g"`)) {
			t.Errorf("%s: want an error naming the column, got %v", names[oid], err)
		}
	}
}

// TestPostgresMoney: money maps to decimal(30,2) as SeaTunnel's PG_MONEY,
// read in its text form (which lc_monetary shapes, and pgoutput sends
// so), and an upsert sink writes it back into a money column.
func TestPostgresMoney(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"$1,234.56", "1234.56"}, {"-$1,234.56", "-1234.56"}, {"($5.00)", "-5"}, {"$0.00", "0"},
		{"1.234,56 €", "1234.56"}, {"-92233720368547758.08", "-92233720368547758.08"}, {"$92,233,720,368,547,758.07", "92233720368547758.07"},
		{"￥1,234", "1234"}, {"12,5", "12.5"},
	} {
		d, err := pgMoney([]byte(c.in))
		if err != nil || d.String() != c.want {
			t.Errorf("money %q: %v %v, want %s", c.in, d, err, c.want)
		}
	}
	if _, err := pgMoney([]byte("$")); err == nil {
		t.Error(`money "$": no error`)
	}
	conn := pgConn(t, "postgres")
	pgExec(t, conn, "DROP TABLE IF EXISTS money_pg", "DROP TABLE IF EXISTS money_out", "CREATE TABLE money_pg (id int PRIMARY KEY, m money)",
		"CREATE TABLE money_out (id int PRIMARY KEY, m money)",
		"INSERT INTO money_pg VALUES (1, 1234.56), (2, -0.01), (3, '-92233720368547758.08'), (4, NULL)")
	info, err := describePostgres(testCtx(t), conn, tablePath{Database: "postgres", Schema: "public", Table: "money_pg"})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := schemaOf("postgres.public.money_pg", info.Columns, info.PrimaryKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.Fields[1].Type; !got.Equal(row.DecimalOf(30, 2)) {
		t.Fatalf("money maps to %s, want decimal(30,2)", got)
	}
	s, err := queryPostgres(testCtx(t), conn, "SELECT * FROM money_pg ORDER BY id", nil, info.Columns)
	if err != nil {
		t.Fatal(err)
	}
	b := readAll(t, s, schema)
	var got []string
	for i := 0; i < b.Len(); i++ {
		if v := b.Value(i, 1); v == nil {
			got = append(got, "NULL")
		} else {
			got = append(got, row.Text(schema.Fields[1].Type, v))
		}
	}
	if want := "1234.56,-0.01,-92233720368547758.08,NULL"; strings.Join(got, ",") != want {
		t.Fatalf("read %q, want %s", got, want)
	}
	var tg target
	for _, x := range targets(t) {
		if x.dialect == dialectPostgres {
			tg = x
		}
	}
	r := mustSink(t, tg, fmt.Sprintf("generate_sink_sql = true\ndatabase = %q\ntable = \"public.money_out\"\nschema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\n", tg.db), schema)
	w, err := newWriter(testCtx(t), r, testTask)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
	var same bool
	if err := conn.QueryRow(testCtx(t), "SELECT (SELECT array_agg(m::text ORDER BY id) FROM money_pg) IS NOT DISTINCT FROM (SELECT array_agg(m::text ORDER BY id) FROM money_out)").Scan(&same); err != nil || !same {
		t.Fatalf("the sink wrote other money values (%v): read %q", err, got)
	}
}
