package jdbc

// The statements of SeaTunnel's JdbcPostgresIT and JdbcMysqlIT, as they give them.

const (
	pgSourceDDL = "CREATE TABLE IF NOT EXISTS pg_e2e_source_table (\n  gid SERIAL PRIMARY KEY,\n  uuid_col UUID,\n  text_col TEXT,\n  varchar_col VARCHAR(255),\n  char_col CHAR(10),\n  boolean_col bool,\n  smallint_col int2,\n  integer_col int4,\n  bigint_col BIGINT,\n  decimal_col DECIMAL(10, 2),\n  numeric_col NUMERIC(8, 4),\n  real_col float4,\n  double_precision_col float8,\n  smallserial_col SMALLSERIAL,\n  serial_col SERIAL,\n  bigserial_col BIGSERIAL,\n  date_col DATE,\n  timestamp_col TIMESTAMP,\n  bpchar_col BPCHAR(10),\n  age INT NOT null,\n  name VARCHAR(255) NOT null,\n  point geometry(POINT, 4326),\n  linestring geometry(LINESTRING, 4326),\n  polygon_colums geometry(POLYGON, 4326),\n  multipoint geometry(MULTIPOINT, 4326),\n  multilinestring geometry(MULTILINESTRING, 4326),\n  multipolygon geometry(MULTIPOLYGON, 4326),\n  geometrycollection geometry(GEOMETRYCOLLECTION, 4326),\n  geog geography(POINT, 4326),\n  json_col json NOT NULL,\n  jsonb_col jsonb NOT NULL,\n  xml_col xml NOT NULL\n);comment on column pg_e2e_source_table.uuid_col is '\"#¥%……&*（）;;'',,.\\.``````//''@特殊注释''\\\\''\"'"

	pgSinkDDL = `CREATE TABLE IF NOT EXISTS pg_e2e_sink_table (
    gid SERIAL PRIMARY KEY,
    uuid_col UUID,
    text_col TEXT,
    varchar_col VARCHAR(255),
    char_col CHAR(10),
    boolean_col bool,
    smallint_col int2,
    integer_col int4,
    bigint_col BIGINT,
    decimal_col DECIMAL(10, 2),
    numeric_col NUMERIC(8, 4),
    real_col float4,
    double_precision_col float8,
    smallserial_col SMALLSERIAL,
    serial_col SERIAL,
    bigserial_col BIGSERIAL,
    date_col DATE,
    timestamp_col TIMESTAMP,
    bpchar_col BPCHAR(10),
    age int4 NOT NULL,
    name varchar(255) NOT NULL,
    point varchar(2000) NULL,
    linestring varchar(2000) NULL,
    polygon_colums varchar(2000) NULL,
    multipoint varchar(2000) NULL,
    multilinestring varchar(2000) NULL,
    multipolygon varchar(2000) NULL,
    geometrycollection varchar(2000) NULL,
    geog varchar(2000) NULL,
    json_col json NOT NULL 
,    jsonb_col jsonb NOT NULL,
    xml_col xml NOT NULL
  )`

	pgSourceSQL = `select 
gid,
uuid_col, 
text_col,
varchar_col,
char_col,
boolean_col,
smallint_col,
integer_col,
bigint_col,
decimal_col,
numeric_col,
real_col,
double_precision_col,
smallserial_col,
serial_col,
bigserial_col,
date_col,
timestamp_col,
bpchar_col,
age,
name,
point,
linestring,
polygon_colums,
multipoint,
multilinestring,
multipolygon,
geometrycollection,
geog,
json_col,
jsonb_col,
 cast(xml_col as varchar) 
from pg_e2e_source_table`

	pgSinkSQL = `select
  gid,
uuid_col, 
   text_col,
   varchar_col,
   char_col,
   boolean_col,
   smallint_col,
   integer_col,
   bigint_col,
   decimal_col,
   numeric_col,
   real_col,
   double_precision_col,
   smallserial_col,
   serial_col,
   bigserial_col,
   date_col,
   timestamp_col,
   bpchar_col,  age,
  name,
  cast(point as geometry) as point,
  cast(linestring as geometry) as linestring,
  cast(polygon_colums as geometry) as polygon_colums,
  cast(multipoint as geometry) as multipoint,
  cast(multilinestring as geometry) as multilinestring,
  cast(multipolygon as geometry) as multilinestring,
  cast(geometrycollection as geometry) as geometrycollection,
  cast(geog as geography) as geog,
   json_col,
   jsonb_col,
  cast(xml_col as varchar) 
from
  pg_e2e_sink_table`

	pgInsert = `INSERT INTO
  pg_e2e_source_table (gid,
    uuid_col,
    text_col,
    varchar_col,
    char_col,
    boolean_col,
    smallint_col,
    integer_col,
    bigint_col,
    decimal_col,
    numeric_col,
    real_col,
    double_precision_col,
    smallserial_col,
    serial_col,
    bigserial_col,
    date_col,
    timestamp_col,
    bpchar_col,
    age,
    name,
    point,
    linestring,
    polygon_colums,
    multipoint,
    multilinestring,
    multipolygon,
    geometrycollection,
    geog,
    json_col,
    jsonb_col, 
    xml_col 
  )
VALUES
  (
    '%d',
    gen_random_uuid(),
    'Hello World',
    'Test',
    'Testing',
    true,
    10,
    100,
    1000,
    10.55,
    8.8888,
    3.14,
    3.14159265,
    1,
    100,
    10000,
    '2023-05-07',
    '2023-05-07 14:30:00',
    'Testing',
    21,
    'Leblanc',
    ST_GeomFromText('POINT(-122.3452 47.5925)', 4326),
    ST_GeomFromText(
      'LINESTRING(-122.3451 47.5924, -122.3449 47.5923)',
      4326
    ),
    ST_GeomFromText(
      'POLYGON((-122.3453 47.5922, -122.3453 47.5926, -122.3448 47.5926, -122.3448 47.5922, -122.3453 47.5922))',
      4326
    ),
    ST_GeomFromText(
      'MULTIPOINT(-122.3459 47.5927, -122.3445 47.5918)',
      4326
    ),
    ST_GeomFromText(
      'MULTILINESTRING((-122.3463 47.5920, -122.3461 47.5919),(-122.3459 47.5924, -122.3457 47.5923))',
      4326
    ),
    ST_GeomFromText(
      'MULTIPOLYGON(((-122.3458 47.5925, -122.3458 47.5928, -122.3454 47.5928, -122.3454 47.5925, -122.3458 47.5925)),((-122.3453 47.5921, -122.3453 47.5924, -122.3448 47.5924, -122.3448 47.5921, -122.3453 47.5921)))',
      4326
    ),
    ST_GeomFromText(
      'GEOMETRYCOLLECTION(POINT(-122.3462 47.5921), LINESTRING(-122.3460 47.5924, -122.3457 47.5924))',
      4326
    ),
    ST_GeographyFromText('POINT(-122.3452 47.5925)'),
    '{"key":"test"}',
    '{"key":"test"}',
    '<XX:NewSize>test</XX:NewSize>'
  )`

	myCreateSQL = "CREATE TABLE IF NOT EXISTS %s\n(\n    `c_bit_1`                bit(1)                DEFAULT NULL,\n    `c_bit_8`                bit(8)                DEFAULT NULL,\n    `c_bit_16`               bit(16)               DEFAULT NULL,\n    `c_bit_32`               bit(32)               DEFAULT NULL,\n    `c_bit_64`               bit(64)               DEFAULT NULL,\n    `c_boolean`              tinyint(1)            DEFAULT NULL,\n    `c_tinyint`              tinyint(4)            DEFAULT NULL,\n    `c_tinyint_unsigned`     tinyint(3) unsigned   DEFAULT NULL,\n    `c_smallint`             smallint(6)           DEFAULT NULL,\n    `c_smallint_unsigned`    smallint(5) unsigned  DEFAULT NULL,\n    `c_mediumint`            mediumint(9)          DEFAULT NULL,\n    `c_mediumint_unsigned`   mediumint(8) unsigned DEFAULT NULL,\n    `c_int`                  int(11)               DEFAULT NULL,\n    `c_integer`              int(11)               DEFAULT NULL,\n    `c_bigint`               bigint(20)            DEFAULT NULL,\n    `c_bigint_unsigned`      bigint(20) unsigned   DEFAULT NULL,\n    `c_decimal`              decimal(20, 0)        DEFAULT NULL,\n    `c_decimal_unsigned`     decimal(38, 18)       DEFAULT NULL,\n    `c_float`                float                 DEFAULT NULL,\n    `c_float_unsigned`       float unsigned        DEFAULT NULL,\n    `c_double`               double                DEFAULT NULL,\n    `c_double_unsigned`      double unsigned       DEFAULT NULL,\n    `c_char`                 char(1)               DEFAULT NULL,\n    `c_tinytext`             tinytext,\n    `c_mediumtext`           mediumtext,\n    `c_text`                 text,\n    `c_varchar`              varchar(255)          DEFAULT NULL,\n    `c_json`                 json                  DEFAULT NULL,\n    `c_longtext`             longtext,\n    `c_date`                 date                  DEFAULT NULL,\n    `c_datetime`             datetime              DEFAULT NULL,\n    `c_time`                 time                  DEFAULT NULL,\n    `c_timestamp`            timestamp NULL        DEFAULT NULL,\n    `c_tinyblob`             tinyblob,\n    `c_mediumblob`           mediumblob,\n    `c_blob`                 blob,\n    `c_longblob`             longblob,\n    `c_varbinary`            varbinary(255)        DEFAULT NULL,\n    `c_binary`               binary(1)             DEFAULT NULL,\n    `c_year`                 year(4)               DEFAULT NULL,\n    `c_int_unsigned`         int(10) unsigned      DEFAULT NULL,\n    `c_integer_unsigned`     int(10) unsigned      DEFAULT NULL,\n    `c_bigint_30`            BIGINT(40)  unsigned  DEFAULT NULL,\n    `c_decimal_unsigned_30`  DECIMAL(30) unsigned  DEFAULT NULL,\n    `c_decimal_30`           DECIMAL(30)           DEFAULT NULL,\n    UNIQUE (c_bigint_30)\n);"
)

// myFields are JdbcMysqlIT.initTestData's field names, in its order.
var myFields = []string{"c_bit_1", "c_bit_8", "c_bit_16", "c_bit_32", "c_bit_64", "c_boolean", "c_tinyint", "c_tinyint_unsigned", "c_smallint", "c_smallint_unsigned", "c_mediumint", "c_mediumint_unsigned", "c_int", "c_integer", "c_year", "c_int_unsigned", "c_integer_unsigned", "c_bigint", "c_bigint_unsigned", "c_decimal", "c_decimal_unsigned", "c_float", "c_float_unsigned", "c_double", "c_double_unsigned", "c_char", "c_tinytext", "c_mediumtext", "c_text", "c_varchar", "c_json", "c_longtext", "c_date", "c_datetime", "c_time", "c_timestamp", "c_tinyblob", "c_mediumblob", "c_blob", "c_longblob", "c_varbinary", "c_binary", "c_bigint_30", "c_decimal_unsigned_30", "c_decimal_30"}

// JdbcMysqlMultipleTablesIT's table (JdbcMysqlIT's without c_time and
// its unique key), made in databases source and sink.
const myMultiCreateSQL = "CREATE TABLE IF NOT EXISTS %s\n(\n    `c_bit_1`                bit(1)                DEFAULT NULL,\n    `c_bit_8`                bit(8)                DEFAULT NULL,\n    `c_bit_16`               bit(16)               DEFAULT NULL,\n    `c_bit_32`               bit(32)               DEFAULT NULL,\n    `c_bit_64`               bit(64)               DEFAULT NULL,\n    `c_boolean`              tinyint(1)            DEFAULT NULL,\n    `c_tinyint`              tinyint(4)            DEFAULT NULL,\n    `c_tinyint_unsigned`     tinyint(3) unsigned   DEFAULT NULL,\n    `c_smallint`             smallint(6)           DEFAULT NULL,\n    `c_smallint_unsigned`    smallint(5) unsigned  DEFAULT NULL,\n    `c_mediumint`            mediumint(9)          DEFAULT NULL,\n    `c_mediumint_unsigned`   mediumint(8) unsigned DEFAULT NULL,\n    `c_int`                  int(11)               DEFAULT NULL,\n    `c_integer`              int(11)               DEFAULT NULL,\n    `c_bigint`               bigint(20)            DEFAULT NULL,\n    `c_bigint_unsigned`      bigint(20) unsigned   DEFAULT NULL,\n    `c_decimal`              decimal(20, 0)        DEFAULT NULL,\n    `c_decimal_unsigned`     decimal(38, 18)       DEFAULT NULL,\n    `c_float`                float                 DEFAULT NULL,\n    `c_float_unsigned`       float unsigned        DEFAULT NULL,\n    `c_double`               double                DEFAULT NULL,\n    `c_double_unsigned`      double unsigned       DEFAULT NULL,\n    `c_char`                 char(1)               DEFAULT NULL,\n    `c_tinytext`             tinytext,\n    `c_mediumtext`           mediumtext,\n    `c_text`                 text,\n    `c_varchar`              varchar(255)          DEFAULT NULL,\n    `c_json`                 json                  DEFAULT NULL,\n    `c_longtext`             longtext,\n    `c_date`                 date                  DEFAULT NULL,\n    `c_datetime`             datetime              DEFAULT NULL,\n    `c_timestamp`            timestamp NULL        DEFAULT NULL,\n    `c_tinyblob`             tinyblob,\n    `c_mediumblob`           mediumblob,\n    `c_blob`                 blob,\n    `c_longblob`             longblob,\n    `c_varbinary`            varbinary(255)        DEFAULT NULL,\n    `c_binary`               binary(1)             DEFAULT NULL,\n    `c_year`                 year(4)               DEFAULT NULL,\n    `c_int_unsigned`         int(10) unsigned      DEFAULT NULL,\n    `c_integer_unsigned`     int(10) unsigned      DEFAULT NULL,\n    `c_bigint_30`            BIGINT(40)  unsigned  DEFAULT NULL,\n    `c_decimal_unsigned_30`  DECIMAL(30) unsigned  DEFAULT NULL,\n    `c_decimal_30`           DECIMAL(30)           DEFAULT NULL\n);"

// myMultiFields are JdbcMysqlMultipleTablesIT's field names, in its order.
var myMultiFields = []string{"c_bit_1", "c_bit_8", "c_bit_16", "c_bit_32", "c_bit_64", "c_boolean", "c_tinyint", "c_tinyint_unsigned", "c_smallint", "c_smallint_unsigned", "c_mediumint", "c_mediumint_unsigned", "c_int", "c_integer", "c_year", "c_int_unsigned", "c_integer_unsigned", "c_bigint", "c_bigint_unsigned", "c_decimal", "c_decimal_unsigned", "c_float", "c_float_unsigned", "c_double", "c_double_unsigned", "c_char", "c_tinytext", "c_mediumtext", "c_text", "c_varchar", "c_json", "c_longtext", "c_date", "c_datetime", "c_timestamp", "c_tinyblob", "c_mediumblob", "c_blob", "c_longblob", "c_varbinary", "c_binary", "c_bigint_30", "c_decimal_unsigned_30", "c_decimal_30"}

// JdbcPostgresIdentifierIT's statements (its sink table's names upper case).
const (
	pgIdeSourceDDL = `CREATE TABLE IF NOT EXISTS pg_ide_source_table (
  gid SERIAL PRIMARY KEY,
  text_col TEXT,
  varchar_col VARCHAR(255),
  char_col CHAR(10),
  boolean_col bool,
  smallint_col int2,
  integer_col int4,
  bigint_col BIGINT,
  decimal_col DECIMAL(10, 2),
  numeric_col NUMERIC(8, 4),
  real_col float4,
  double_precision_col float8,
  smallserial_col SMALLSERIAL,
  serial_col SERIAL,
  bigserial_col BIGSERIAL,
  date_col DATE,
  timestamp_col TIMESTAMP,
  bpchar_col BPCHAR(10),
  age INT NOT null,
  name VARCHAR(255) NOT null,
  point geometry(POINT, 4326),
  linestring geometry(LINESTRING, 4326),
  polygon_colums geometry(POLYGON, 4326),
  multipoint geometry(MULTIPOINT, 4326),
  multilinestring geometry(MULTILINESTRING, 4326),
  multipolygon geometry(MULTIPOLYGON, 4326),
  geometrycollection geometry(GEOMETRYCOLLECTION, 4326),
  geog geography(POINT, 4326),
  inet_col INET
)`

	pgIdeSinkDDL = `CREATE TABLE IF NOT EXISTS test.public."PG_IDE_SINK_TABLE" (
    "GID" SERIAL PRIMARY KEY,
    "TEXT_COL" TEXT,
    "VARCHAR_COL" VARCHAR(255),
    "CHAR_COL" CHAR(10),
    "BOOLEAN_COL" bool,
    "SMALLINT_COL" int2,
    "INTEGER_COL" int4,
    "BIGINT_COL" BIGINT,
    "DECIMAL_COL" DECIMAL(10, 2),
    "NUMERIC_COL" NUMERIC(8, 4),
    "REAL_COL" float4,
    "DOUBLE_PRECISION_COL" float8,
    "SMALLSERIAL_COL" SMALLSERIAL,
    "SERIAL_COL" SERIAL,
    "BIGSERIAL_COL" BIGSERIAL,
    "DATE_COL" DATE,
    "TIMESTAMP_COL" TIMESTAMP,
    "BPCHAR_COL" BPCHAR(10),
    "AGE" int4 NOT NULL,
    "NAME" varchar(255) NOT NULL,
    "POINT" varchar(2000) NULL,
    "LINESTRING" varchar(2000) NULL,
    "POLYGON_COLUMS" varchar(2000) NULL,
    "MULTIPOINT" varchar(2000) NULL,
    "MULTILINESTRING" varchar(2000) NULL,
    "MULTIPOLYGON" varchar(2000) NULL,
    "GEOMETRYCOLLECTION" varchar(2000) NULL,
    "GEOG" varchar(2000) NULL,
    "INET_COL" INET NULL
  )`

	pgIdeSourceSQL = `select 
gid,
text_col,
varchar_col,
char_col,
boolean_col,
smallint_col,
integer_col,
bigint_col,
decimal_col,
numeric_col,
real_col,
double_precision_col,
smallserial_col,
serial_col,
bigserial_col,
date_col,
timestamp_col,
bpchar_col,
age,
name,
point,
linestring,
polygon_colums,
multipoint,
multilinestring,
multipolygon,
geometrycollection,
geog,
inet_col
 from pg_ide_source_table`

	pgIdeSinkSQL = `SELECT
  "GID",
  "TEXT_COL",
  "VARCHAR_COL",
  "CHAR_COL",
  "BOOLEAN_COL",
  "SMALLINT_COL",
  "INTEGER_COL",
  "BIGINT_COL",
  "DECIMAL_COL",
  "NUMERIC_COL",
  "REAL_COL",
  "DOUBLE_PRECISION_COL",
  "SMALLSERIAL_COL",
  "SERIAL_COL",
  "BIGSERIAL_COL",
  "DATE_COL",
  "TIMESTAMP_COL",
  "BPCHAR_COL",
  "AGE",
  "NAME",
  CAST("POINT" AS GEOMETRY) AS POINT,
  CAST("LINESTRING" AS GEOMETRY) AS LINESTRING,
  CAST("POLYGON_COLUMS" AS GEOMETRY) AS POLYGON_COLUMS,
  CAST("MULTIPOINT" AS GEOMETRY) AS MULTIPOINT,
  CAST("MULTILINESTRING" AS GEOMETRY) AS MULTILINESTRING,
  CAST("MULTIPOLYGON" AS GEOMETRY) AS MULTILINESTRING,
  CAST("GEOMETRYCOLLECTION" AS GEOMETRY) AS GEOMETRYCOLLECTION,
  CAST("GEOG" AS GEOGRAPHY) AS GEOG,
  "INET_COL"
FROM
  "PG_IDE_SINK_TABLE";`

	pgIdeInsert = `INSERT INTO
  pg_ide_source_table (gid,
    text_col,
    varchar_col,
    char_col,
    boolean_col,
    smallint_col,
    integer_col,
    bigint_col,
    decimal_col,
    numeric_col,
    real_col,
    double_precision_col,
    smallserial_col,
    serial_col,
    bigserial_col,
    date_col,
    timestamp_col,
    bpchar_col,
    age,
    name,
    point,
    linestring,
    polygon_colums,
    multipoint,
    multilinestring,
    multipolygon,
    geometrycollection,
    geog,
    inet_col
  )
VALUES
  (
    '%d',
    'Hello World',
    'Test',
    'Testing',
    true,
    10,
    100,
    1000,
    10.55,
    8.8888,
    3.14,
    3.14159265,
    1,
    100,
    10000,
    '2023-05-07',
    '2023-05-07 14:30:00',
    'Testing',
    21,
    'Leblanc',
    ST_GeomFromText('POINT(-122.3452 47.5925)', 4326),
    ST_GeomFromText(
      'LINESTRING(-122.3451 47.5924, -122.3449 47.5923)',
      4326
    ),
    ST_GeomFromText(
      'POLYGON((-122.3453 47.5922, -122.3453 47.5926, -122.3448 47.5926, -122.3448 47.5922, -122.3453 47.5922))',
      4326
    ),
    ST_GeomFromText(
      'MULTIPOINT(-122.3459 47.5927, -122.3445 47.5918)',
      4326
    ),
    ST_GeomFromText(
      'MULTILINESTRING((-122.3463 47.5920, -122.3461 47.5919),(-122.3459 47.5924, -122.3457 47.5923))',
      4326
    ),
    ST_GeomFromText(
      'MULTIPOLYGON(((-122.3458 47.5925, -122.3458 47.5928, -122.3454 47.5928, -122.3454 47.5925, -122.3458 47.5925)),((-122.3453 47.5921, -122.3453 47.5924, -122.3448 47.5924, -122.3448 47.5921, -122.3453 47.5921)))',
      4326
    ),
    ST_GeomFromText(
      'GEOMETRYCOLLECTION(POINT(-122.3462 47.5921), LINESTRING(-122.3460 47.5924, -122.3457 47.5924))',
      4326
    ),
    ST_GeographyFromText('POINT(-122.3452 47.5925)'),
    '192.168.1.1'
  )`
)
