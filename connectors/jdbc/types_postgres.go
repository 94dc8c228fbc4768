package jdbc

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stactor/stactor/row"
)

// PostgreSQL → stactor, as SeaTunnel's PostgresTypeConverter:
//
//	bool                              boolean
//	bit(1)                            boolean
//	bit(n), varbit                    string (the bits as 0 and 1)
//	smallint, smallserial             smallint
//	integer, serial                   int
//	bigint, bigserial, oid            bigint
//	real                              float
//	double precision                  double
//	numeric(p,s), p <= 38             decimal(p,s)
//	numeric                           decimal(38,18)
//	money                             decimal(30,2)
//	char(n), varchar(n), text, name   string
//	json, jsonb, uuid, xml            string
//	inet, cidr, macaddr, enum types   string
//	PostGIS geometry, geography       string (hex EWKB, the types' text form)
//	bytea                             bytes
//	date                              date
//	time, timetz                      time (the zone of timetz dropped)
//	timestamp                         timestamp
//	timestamptz                       timestamp_tz (the instant, at offset Z:
//	                                  PostgreSQL keeps no offset, PgJDBC
//	                                  reads OffsetDateTime in UTC)
//	bool[], smallint[], integer[],    array<boolean>, array<smallint>,
//	bigint[], real[], double[],       array<int>, array<bigint>,
//	text[], varchar[], char[]         array<float>, array<double>, array<string>
//	a domain                          its base type
//
// Anything else (interval, geometric types, ranges, numeric(p,s)
// with p > 38, arrays of other types) is a plan-time error naming the
// table, column and type. NaN and ±Infinity of real and double are kept;
// those of numeric, and infinite dates and timestamps, fail the read with
// the column and value.

// pgScalar maps a scalar type oid (with its modifier) to a row type and
// the reader's decode mode.
func pgScalar(oid uint32, mod int32) (*row.Type, string, bool) {
	switch oid {
	case pgtype.BoolOID:
		return row.Boolean, "bool", true
	case pgtype.Int2OID:
		return row.SmallInt, "int2", true
	case pgtype.Int4OID:
		return row.Int, "int4", true
	case pgtype.Int8OID:
		return row.BigInt, "int8", true
	case pgtype.OIDOID:
		return row.BigInt, "oid", true
	case pgtype.Float4OID:
		return row.Float, "float4", true
	case pgtype.Float8OID:
		return row.Double, "float8", true
	case pgtype.NumericOID:
		if mod < 4 {
			return row.DecimalOf(38, 18), "numeric", true
		}
		p, s := int((mod-4)>>16)&0xffff, int(mod-4)&0xffff
		if p < 1 || p > 38 || s > p {
			return nil, "", false
		}
		return row.DecimalOf(p, s), "numeric", true
	case pgMoneyOID:
		// SeaTunnel's PG_MONEY: int8 cents, 20 digits with the sign.
		return row.DecimalOf(30, 2), "money", true
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.QCharOID, pgtype.JSONOID, pgtype.XMLOID:
		return row.String, "text", true
	case pgtype.JSONBOID:
		return row.String, "jsonb", true
	case pgtype.UUIDOID:
		return row.String, "uuid", true
	case pgtype.InetOID, pgtype.CIDROID, pgtype.MacaddrOID, pgtype.VarbitOID:
		return row.String, "astext", true
	case pgtype.BitOID:
		if mod == 1 {
			return row.Boolean, "bit1", true
		}
		return row.String, "astext", true
	case pgtype.ByteaOID:
		return row.Bytes, "bytea", true
	case pgtype.DateOID:
		return row.Date, "date", true
	case pgtype.TimeOID:
		return row.Time, "time", true
	case pgtype.TimetzOID:
		return row.Time, "timetz", true
	case pgtype.TimestampOID:
		return row.Timestamp, "timestamp", true
	case pgtype.TimestamptzOID:
		return row.TimestampTZ, "timestamptz", true
	}
	return nil, "", false
}

// pgMoneyOID is money's oid (pgtype names none).
const pgMoneyOID = 790

// pgArrayElem is the element oid of the array types that map.
var pgArrayElem = map[uint32]uint32{
	pgtype.BoolArrayOID: pgtype.BoolOID, pgtype.Int2ArrayOID: pgtype.Int2OID,
	pgtype.Int4ArrayOID: pgtype.Int4OID, pgtype.Int8ArrayOID: pgtype.Int8OID,
	pgtype.Float4ArrayOID: pgtype.Float4OID, pgtype.Float8ArrayOID: pgtype.Float8OID,
	pgtype.TextArrayOID: pgtype.TextOID, pgtype.VarcharArrayOID: pgtype.VarcharOID,
	pgtype.BPCharArrayOID: pgtype.BPCharOID,
}

// pgTypeInfo is what pg_type says of an oid that is not built in.
type pgTypeInfo struct {
	kind    byte   // typtype: b base, d domain, e enum, ...
	name    string // typname
	base    uint32 // a domain's base type
	baseMod int32
}

// mapPostgres sets c.Type and c.Read from c.OID and c.Mod; lookup tells
// of types that are not built in (domains and enums).
func mapPostgres(table string, c *column, lookup func(oid uint32) (pgTypeInfo, error)) error {
	oid, mod := c.OID, c.Mod
	for depth := 0; depth < 8; depth++ {
		if t, read, ok := pgScalar(oid, mod); ok {
			c.Type, c.Read = t, read
			return nil
		}
		if elem, ok := pgArrayElem[oid]; ok {
			t, read, _ := pgScalar(elem, -1)
			c.Type, c.Read = row.ArrayOf(t), "array:"+read
			return nil
		}
		if oid == pgtype.NumericOID {
			return errUnmappable(table, *c, "decimal precision is at most 38")
		}
		if lookup == nil {
			break
		}
		info, err := lookup(oid)
		if err != nil {
			return fmt.Errorf("table %s column %q: %w", table, c.Name, err)
		}
		switch info.kind {
		case 'e':
			c.Type, c.Read = row.String, "astext"
			return nil
		case 'b':
			if info.name == "geometry" || info.name == "geography" {
				// PostGIS, whose oids are not fixed: its text form (hex
				// EWKB), as SeaTunnel's PG_GEOMETRY and PG_GEOGRAPHY.
				c.Type, c.Read = row.String, "astext"
				return nil
			}
		case 'd':
			oid, mod = info.base, info.baseMod
			continue
		}
		break
	}
	return errUnmappable(table, *c, "")
}

// postgresDDL is the column type a sink creates for t, as SeaTunnel's
// PostgresTypeConverter.reconvert.
func postgresDDL(t *row.Type) (string, error) {
	switch t.ID {
	case row.TypeBoolean:
		return "boolean", nil
	case row.TypeTinyInt, row.TypeSmallInt:
		return "smallint", nil
	case row.TypeInt:
		return "integer", nil
	case row.TypeBigInt:
		return "bigint", nil
	case row.TypeFloat:
		return "real", nil
	case row.TypeDouble:
		return "double precision", nil
	case row.TypeDecimal:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale), nil
	case row.TypeString:
		return "text", nil
	case row.TypeBytes:
		return "bytea", nil
	case row.TypeDate:
		return "date", nil
	case row.TypeTime:
		return "time(6)", nil
	case row.TypeTimestamp:
		return "timestamp(6)", nil
	case row.TypeTimestampTZ:
		return "timestamptz(6)", nil
	case row.TypeNull:
		return "text", nil
	case row.TypeArray:
		switch t.Elem.ID {
		case row.TypeBoolean, row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt, row.TypeFloat, row.TypeDouble, row.TypeString:
			e, _ := postgresDDL(t.Elem)
			return e + "[]", nil
		}
	}
	return "", fmt.Errorf("PostgreSQL has no column type for %s", t)
}

// pgTypeName is a readable name for an oid, for messages when the
// catalog gives none.
func pgTypeName(oid uint32, mod int32) string {
	if t, ok := pgtype.NewMap().TypeForOID(oid); ok {
		if mod >= 4 && (oid == pgtype.VarcharOID || oid == pgtype.BPCharOID) {
			return fmt.Sprintf("%s(%d)", t.Name, mod-4)
		}
		if mod >= 4 && oid == pgtype.NumericOID {
			return fmt.Sprintf("numeric(%d,%d)", ((mod-4)>>16)&0xffff, (mod-4)&0xffff)
		}
		return strings.TrimPrefix(t.Name, "_") + map[bool]string{true: "[]"}[strings.HasPrefix(t.Name, "_")]
	}
	return fmt.Sprintf("oid %d", oid)
}
