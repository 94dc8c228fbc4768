package jdbc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stactor/stactor/row"
)

// MySQL/MariaDB → stactor, as SeaTunnel's MySqlTypeConverter, from the
// column type as information_schema writes it:
//
//	bit(1), tinyint(1), boolean       boolean
//	bit(n)                            bytes
//	tinyint                           tinyint (unsigned: smallint)
//	smallint                          smallint (unsigned: int)
//	mediumint                         int
//	int, integer                      int (unsigned: bigint)
//	bigint                            bigint (unsigned: decimal(20,0))
//	float                             float
//	double, real                      double
//	decimal(p,s), p <= 38             decimal(p,s)
//	char, varchar, *text, enum, set,  string
//	json
//	binary, varbinary, *blob,         bytes
//	geometry types
//	date                              date
//	time                              time (only times of day)
//	datetime, timestamp               timestamp (sessions run in UTC)
//
// MySQL has no type with a zone offset: a timestamp_tz is written as its
// instant in UTC to a datetime(6) (the sink's created column), and reads
// back as a timestamp.
//	year                              int
//
// decimal with p > 38 and anything else is a plan-time error naming
// table, column and type. A zero date ('0000-00-00') is an error unless
// the URL says zeroDateTimeBehavior=convertToNull (null) or round
// (0001-01-01), as with Connector/J.

// parseMySQLType splits "int(10) unsigned zerofill" into its name, its
// arguments and whether it is unsigned.
func parseMySQLType(s string) (name string, args []int, unsigned bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	name = s
	if i := strings.IndexAny(s, "( "); i >= 0 {
		name = s[:i]
	}
	if open := strings.IndexByte(s, '('); open >= 0 {
		if end := strings.IndexByte(s[open:], ')'); end > 0 {
			if name != "enum" && name != "set" {
				for _, a := range strings.Split(s[open+1:open+end], ",") {
					if n, err := strconv.Atoi(strings.TrimSpace(a)); err == nil {
						args = append(args, n)
					}
				}
			}
		}
	}
	unsigned = strings.Contains(s, " unsigned")
	return name, args, unsigned
}

// mapMySQL sets c.Type and c.Read from c.DBType.
func mapMySQL(table string, c *column) error {
	name, args, unsigned := parseMySQLType(c.DBType)
	arg := func(i, def int) int {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	set := func(t *row.Type, read string) error {
		c.Type, c.Read = t, read
		return nil
	}
	switch name {
	case "bit":
		if arg(0, 1) == 1 {
			return set(row.Boolean, "bit1")
		}
		return set(row.Bytes, "bytes")
	case "bool", "boolean":
		return set(row.Boolean, "bool")
	case "tinyint":
		if arg(0, 0) == 1 && !unsigned {
			return set(row.Boolean, "bool")
		}
		if unsigned {
			return set(row.SmallInt, "int")
		}
		return set(row.TinyInt, "int")
	case "smallint":
		if unsigned {
			return set(row.Int, "int")
		}
		return set(row.SmallInt, "int")
	case "mediumint":
		return set(row.Int, "int")
	case "int", "integer":
		if unsigned {
			return set(row.BigInt, "int")
		}
		return set(row.Int, "int")
	case "bigint":
		if unsigned {
			return set(row.DecimalOf(20, 0), "decimal")
		}
		return set(row.BigInt, "int")
	case "year":
		return set(row.Int, "int")
	case "float":
		return set(row.Float, "float")
	case "double", "real", "double precision":
		return set(row.Double, "float")
	case "decimal", "numeric", "dec", "fixed":
		p, s := arg(0, 10), arg(1, 0)
		if p > 38 {
			return errUnmappable(table, *c, "decimal precision is at most 38")
		}
		return set(row.DecimalOf(p, s), "decimal")
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set", "json", "long", "long varchar":
		return set(row.String, "string")
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
		"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection":
		return set(row.Bytes, "bytes")
	case "date":
		return set(row.Date, "date")
	case "time":
		return set(row.Time, "time")
	case "datetime", "timestamp":
		return set(row.Timestamp, "datetime")
	}
	return errUnmappable(table, *c, "")
}

// mysqlDDL is the column type a sink creates for t, as SeaTunnel's
// MySqlTypeConverter.reconvert; key columns (primary or unique keys)
// cannot be TEXT or BLOB, so strings and bytes in keys are varchar(255)
// and varbinary(255).
func mysqlDDL(t *row.Type, key bool) (string, error) {
	switch t.ID {
	case row.TypeBoolean:
		return "boolean", nil
	case row.TypeTinyInt:
		return "tinyint", nil
	case row.TypeSmallInt:
		return "smallint", nil
	case row.TypeInt:
		return "int", nil
	case row.TypeBigInt:
		return "bigint", nil
	case row.TypeFloat:
		return "float", nil
	case row.TypeDouble:
		return "double", nil
	case row.TypeDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale), nil
	case row.TypeString, row.TypeNull:
		if key {
			return "varchar(255)", nil
		}
		return "longtext", nil
	case row.TypeBytes:
		if key {
			return "varbinary(255)", nil
		}
		return "longblob", nil
	case row.TypeDate:
		return "date", nil
	case row.TypeTime:
		return "time(6)", nil
	case row.TypeTimestamp, row.TypeTimestampTZ:
		return "datetime(6)", nil
	}
	return "", fmt.Errorf("MySQL has no column type for %s", t)
}

// mysqlDriverType turns go-sql-driver's result metadata into a column
// type string for mapMySQL, for queries whose columns the catalog does not
// describe (lengths are unknown there: tinyint is tinyint, bit is bit(1)).
func mysqlDriverType(dbType string, precision, scale int64, hasPS bool) string {
	t := strings.ToLower(dbType)
	unsigned := strings.HasPrefix(t, "unsigned ")
	t = strings.TrimPrefix(t, "unsigned ")
	if t == "decimal" && hasPS {
		t = fmt.Sprintf("decimal(%d,%d)", precision, scale)
	}
	if unsigned {
		t += " unsigned"
	}
	return t
}
