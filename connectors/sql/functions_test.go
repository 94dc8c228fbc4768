package sql

import (
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/row"
)

// one is a table of one row with a column of every kind.
func one() (*row.Schema, [][]any) {
	s := row.MustSchema("t",
		row.Field{Name: "s", Type: row.String},
		row.Field{Name: "e", Type: row.String},
		row.Field{Name: "n", Type: row.String},
		row.Field{Name: "i", Type: row.Int},
		row.Field{Name: "b", Type: row.BigInt},
		row.Field{Name: "d", Type: row.Double},
		row.Field{Name: "f", Type: row.Float},
		row.Field{Name: "m", Type: row.DecimalOf(10, 2)},
		row.Field{Name: "dt", Type: row.Date},
		row.Field{Name: "tm", Type: row.Time},
		row.Field{Name: "tsv", Type: row.Timestamp},
		row.Field{Name: "bo", Type: row.Boolean},
		row.Field{Name: "by", Type: row.Bytes},
		row.Field{Name: "arr", Type: row.ArrayOf(row.String)},
		row.Field{Name: "ai", Type: row.ArrayOf(row.Int)},
		row.Field{Name: "ni", Type: row.Int},
	)
	tm, _ := row.ParseTime("13:45:30.123")
	return s, [][]any{{
		"Hello World", "", nil, -7, 1234567890123, 2.5, 1.1, "12.34",
		date("2024-02-29"), tm, ts("2024-02-29T13:45:30.123456789"), true, []byte("ab"),
		[]any{"b", "a", "c"}, []any{int64(3), int64(1), int64(2)}, nil,
	}}
}

func evalOne(t *testing.T, expr string) (string, *row.Type, error) {
	t.Helper()
	s, rows := one()
	tr, err := Compile("SELECT "+expr+" AS x FROM t", s)
	if err != nil {
		return "", nil, err
	}
	tr.prog.now = func() time.Time { return time.Date(2025, 6, 7, 8, 9, 10, 0, time.Local) }
	out, err := tr.Process(batchOf(t, s, rows))
	if err != nil {
		return "", nil, err
	}
	return strings.Join(render2(out), ","), tr.OutputSchema().Fields[0].Type, nil
}

func TestFunctions(t *testing.T) {
	for _, tc := range []struct{ expr, want, typ string }{
		// String functions.
		{"ASCII(s)", "72", "int"},
		{"ascii(n)", "null", "int"},
		{"BIT_LENGTH(s)", "88", "bigint"},
		{"BIT_LENGTH(by)", "16", "bigint"},
		{"CHAR_LENGTH(s)", "11", "bigint"},
		{"LENGTH('héllo')", "5", "bigint"},
		{"LENGTH('😀x')", "3", "bigint"},
		{"length(n)", "null", "bigint"},
		{"OCTET_LENGTH('héllo')", "6", "bigint"},
		{"CHAR(65)", "A", "string"},
		{"CHR(97)", "a", "string"},
		{"CONCAT(s, '!', n, i)", "Hello World!-7", "string"},
		{"CONCAT(n)", "", "string"},
		{"CONCAT(d, f, m, bo, dt, tm, tsv)", "2.51.112.34true2024-02-2913:45:30.1232024-02-29T13:45:30.123456789", "string"},
		{"CONCAT_WS(',', s, n, 'x')", "Hello World,x", "string"},
		{"CONCAT_WS(n, 'a', 'b')", "ab", "string"},
		{"CONCAT_WS('-', arr, 'z')", "b-a-c-z", "string"},
		{"HEXTORAW('00480069')", "Hi", "string"},
		{"RAWTOHEX('Hi')", "00480069", "string"},
		{"RAWTOHEX(by)", "6162", "string"},
		{"INSERT(s, 1, 5, 'Bye')", "Bye World", "string"},
		{"INSERT(n, 1, 1, 'x')", "x", "string"},
		{"INSERT(s, 20, 1, 'x')", "Hello World", "string"},
		{"INSERT(s, 7, 100, 'Go')", "Hello Go", "string"},
		{"LOWER(s)", "hello world", "string"},
		{"LCASE('ÀB')", "àb", "string"},
		{"UPPER(s)", "HELLO WORLD", "string"},
		{"UCASE('àb')", "ÀB", "string"},
		{"UPPER('ALREADY UP 123')", "ALREADY UP 123", "string"},
		{"UPPER('mixed Case with a long tail')", "MIXED CASE WITH A LONG TAIL", "string"},
		{"lower('[@AZaz`{]')", "[@azaz`{]", "string"},
		{"upper(n)", "null", "string"},
		{"LEFT(s, 5)", "Hello", "string"},
		{"RIGHT(s, 5)", "World", "string"},
		{"LEFT(s, 100)", "Hello World", "string"},
		{"LEFT('héllo', 2)", "hé", "string"},
		{"LOCATE('o', s)", "5", "int"},
		{"LOCATE('o', s, 6)", "8", "int"},
		{"LOCATE('o', s, -1)", "8", "int"},
		{"LOCATE('o', s, -5)", "5", "int"},
		{"LOCATE('z', s)", "0", "int"},
		{"LOCATE('o', n)", "0", "int"},
		{"LOCATE('', s)", "1", "int"},
		{"LOCATE('o', s, 100)", "0", "int"},
		{"LOCATE('o', s, -100)", "0", "int"},
		{"LOCATE('ö', 'hélö wörld', 5)", "7", "int"},
		{"LOCATE('ö', 'hélö wörld', -3)", "7", "int"},
		{"LOCATE('ö', 'hélö wörld', -5)", "4", "int"},
		{"POSITION('World', s)", "7", "int"},
		{"INSTR(s, 'o')", "5", "int"},
		{"INSTR(s, 'o', 6)", "8", "int"},
		{"INSTR(n, 'o')", "0", "int"},
		{"LPAD('7', 3, '0')", "007", "string"},
		{"RPAD('ab', 5, '-')", "ab---", "string"},
		{"LPAD(s, 5)", "Hello", "string"},
		{"LPAD('x', 3)", "  x", "string"},
		{"RPAD('x', 3, '*#')", "x**", "string"},
		{"LTRIM('  x  ')", "x  ", "string"},
		{"RTRIM('  x  ')", "  x", "string"},
		{"TRIM('  x  ')", "x", "string"},
		{"TRIM('xxaxx', 'x')", "a", "string"},
		{"TRIM(BOTH 'x' FROM 'xxaxx')", "a", "string"},
		{"TRIM(LEADING 'x' FROM 'xxaxx')", "axx", "string"},
		{"TRIM(TRAILING FROM '  a  ')", "  a", "string"},
		{"REGEXP_REPLACE('Hello    World', ' +', ' ')", "Hello World", "string"},
		{"REGEXP_REPLACE('Hello WWWWorld', 'w+', 'W', 'i')", "Hello World", "string"},
		{"REGEXP_REPLACE('abc', '(b)', '[$1]')", "a[b]c", "string"},
		{"REGEXP_REPLACE('a$c', '[$]', '\\$')", "a$c", "string"},
		{"REGEXP_LIKE('Hello    World', '[A-Z ]*', 'i')", "true", "boolean"},
		{"REGEXP_LIKE(s, '^x')", "false", "boolean"},
		{"REGEXP_LIKE(s, 'WORLD', 'i')", "true", "boolean"},
		{`REGEXP_SUBSTR('2020-10-01', '\d{4}')`, "2020", "string"},
		{`REGEXP_SUBSTR('2020-10-01', '(\d{4})-(\d{2})-(\d{2})', 1, 1, NULL, 2)`, "10", "string"},
		{`REGEXP_SUBSTR('a1b22c333', '\d+', 1, 3, NULL, 0)`, "333", "string"},
		{`REGEXP_SUBSTR('a1b22c333', '\d+', 3, 1, NULL, 0)`, "22", "string"},
		{`REGEXP_SUBSTR('a1b22', '\d+', 1, 5, NULL, 0)`, "null", "string"},
		{`REGEXP_SUBSTR('a1b22', '\d+', 1)`, "null", "string"},
		{"REPEAT('ab', 3)", "ababab", "string"},
		{"REPEAT('ab', -1)", "", "string"},
		{"REPLACE(s, 'o', '0')", "Hell0 W0rld", "string"},
		{"REPLACE(s, ' ')", "HelloWorld", "string"},
		{"REPLACE(s, '', 'x')", "Hello World", "string"},
		{"SPLIT('a;b;c', ';')", "[a, b, c]", "array<string>"},
		{"SPLIT('a;b;;', ';')", "[a, b]", "array<string>"},
		{"SPLIT(';a', ';')", "[, a]", "array<string>"},
		{"SPLIT('a1b22c', '[0-9]+')", "[a, b, c]", "array<string>"},
		{"SPLIT('abc', '')", "[a, b, c]", "array<string>"},
		{"SPLIT(e, ',')", "null", "array<string>"},
		{"SOUNDEX('Robert')", "R163", "string"},
		{"SOUNDEX('Tymczak')", "T522", "string"},
		{"SOUNDEX('')", "0000", "string"},
		{"SPACE(3)", "   ", "string"},
		{"SUBSTRING('[Hello]', 2)", "Hello]", "string"},
		{"SUBSTRING('hour', 3, 2)", "ur", "string"},
		{"SUBSTRING(s, -5)", "World", "string"},
		{"SUBSTR(s, 0, 5)", "Hello", "string"},
		{"SUBSTR(s, 20)", "null", "string"},
		{"SUBSTR('abc', 2, 0)", "null", "string"},
		{"SUBSTR('héllo', 2, 3)", "éll", "string"},
		{"TO_CHAR(i)", "-7", "string"},
		{"TO_CHAR(d)", "2.5", "string"},
		{"TO_CHAR(f)", "1.1", "string"},
		{"TO_CHAR(bo)", "true", "string"},
		{"TO_CHAR(m)", "12.34", "string"},
		{"TO_CHAR(dt, 'yyyy/MM/dd')", "2024/02/29", "string"},
		{"TO_CHAR(tsv, 'yyyy-MM-dd HH:mm:ss')", "2024-02-29 13:45:30", "string"},
		{"TRANSLATE('Hello world', 'eo', 'EO')", "HEllO wOrld", "string"},
		{"TRANSLATE('abc', 'abc', 'x')", "xbc", "string"},
		// Numeric functions.
		{"ABS(i)", "7", "int"},
		{"ABS(d)", "2.5", "double"},
		{"ABS(m - 100)", "87.66", "decimal(10, 2)"},
		{"ABS(-2147483648)", "2147483648", "bigint"},
		{"ABS(b)", "1234567890123", "bigint"},
		{"ACOS(1)", "0.0", "double"},
		{"ASIN(0)", "0.0", "double"},
		{"ATAN(0)", "0.0", "double"},
		{"COS(0)", "1.0", "double"},
		{"COSH(0)", "1.0", "double"},
		{"SIN(0)", "0.0", "double"},
		{"SINH(0)", "0.0", "double"},
		{"TAN(0)", "0.0", "double"},
		{"TANH(0)", "0.0", "double"},
		{"ROUND(COT(1), 12)", "0.642092615934", "double"},
		{"ATAN2(1, 1)", "0.7853981633974483", "double"},
		{"EXP(0)", "1.0", "double"},
		{"LN(1)", "0.0", "double"},
		{"LOG(10, 100)", "2.0", "double"},
		{"LOG(2, 1024)", "10.0", "double"},
		{"LOG10(1000)", "3.0", "double"},
		{"RADIANS(180)", "3.141592653589793", "double"},
		{"SQRT(16)", "4.0", "double"},
		{"SQRT(m)", "3.5128336140500593", "double"},
		{"PI()", "3.141592653589793", "double"},
		{"POWER(2, 10)", "1024.0", "double"},
		{"MOD(7, 3)", "1", "int"},
		{"MOD(-7, 3)", "-1", "int"},
		{"MOD(7.5, 2)", "1", "int"},
		{"MOD(7, 2.5)", "2.0", "double"},
		{"MOD(b, 1000)", "123", "int"},
		{"MOD(m, 5)", "2", "int"},
		{"MOD(i, ni)", "null", "int"},
		{"CEIL(2.5)", "3", "int"},
		{"CEILING(-2.5)", "-2", "int"},
		{"FLOOR(2.5)", "2", "int"},
		{"FLOOR(-2.5)", "-3", "int"},
		{"CEIL(m)", "13", "int"},
		{"FLOOR(i)", "-7", "int"},
		{"ROUND(2.5)", "3.0", "double"},
		{"ROUND(-2.5)", "-3.0", "double"},
		{"ROUND(1.005, 2)", "1.01", "double"},
		{"ROUND(m, 1)", "12.30", "decimal(10, 2)"},
		{"ROUND(1234, -2)", "1200", "int"},
		{"ROUND(1250, -2)", "1300", "int"},
		{"ROUND(i)", "-7", "int"},
		{"ROUND(f, 1)", "1.1", "float"},
		{"SIGN(i)", "-1", "int"},
		{"SIGN(d)", "1", "int"},
		{"SIGN(0)", "0", "int"},
		{"SIGN(ni)", "0", "int"},
		{"SIGN(m)", "1", "int"},
		{"TRUNC(2.75)", "2.0", "double"},
		{"TRUNCATE(-2.75)", "-2.0", "double"},
		{"TRUNC(2.75, 1)", "2.7", "double"},
		{"TRUNC(i)", "-7.0", "double"},
		{"RAND(1)", "0.7308781907032909", "double"},
		{"RANDOM(42)", "0.7275636800328681", "double"},
		{"RAND() >= 0 AND RAND() < 1", "true", "boolean"},
		{"ARRAY_MAX(arr)", "c", "string"},
		{"ARRAY_MIN(ai)", "1", "int"},
		{"ARRAY_MAX(ai)", "3", "int"},
		// Date and time functions.
		{"CURRENT_DATE", "2025-06-07", "date"},
		{"CURRENT_TIME", "08:09:10", "time"},
		{"CURRENT_TIMESTAMP", "2025-06-07T08:09:10", "timestamp"},
		{"NOW()", "2025-06-07T08:09:10", "timestamp"},
		{"DATEADD(dt, 1, 'YEAR')", "2025-02-28", "date"},
		{"DATEADD(dt, 1, 'MONTH')", "2024-03-29", "date"},
		{"DATEADD(DATE '2024-01-31', 1, 'month')", "2024-02-29", "date"},
		{"DATEADD(dt, -1, 'DAY')", "2024-02-28", "date"},
		{"DATEADD(dt, 2, 'WEEK')", "2024-03-14", "date"},
		{"DATEADD(dt, 5, 'HOUR')", "2024-02-29", "date"},
		{"DATEADD(dt, 3)", "2024-03-03", "date"},
		{"TIMESTAMPADD(tsv, 90, 'MINUTE')", "2024-02-29T15:15:30.123456789", "timestamp"},
		{"DATEADD(tsv, -2, 'MONTH')", "2023-12-29T13:45:30.123456789", "timestamp"},
		{"DATEADD(tsv, 1500, 'MILLISECOND')", "2024-02-29T13:45:31.623456789", "timestamp"},
		{"DATEADD(tm, 11, 'HOUR')", "00:45:30.123", "time"},
		{"DATEADD(tm, 1, 'DAY')", "13:45:30.123", "time"},
		// Timestamps from year 1 to 9999 (int64 nanoseconds wrapped past 1677..2262).
		{"DATEADD(TIMESTAMP '9999-12-31 23:59:59.999999999', 0, 'DAY')", "9999-12-31T23:59:59.999999999", "timestamp"},
		{"DATEADD(TIMESTAMP '2262-04-11 23:47:16.854775807', 1, 'MILLISECOND')", "2262-04-11T23:47:16.855775807", "timestamp"},
		{"DATEADD(TIMESTAMP '1677-09-21 00:12:43.145224192', -1, 'YEAR')", "1676-09-21T00:12:43.145224192", "timestamp"},
		{"DATEADD(TIMESTAMP '0001-01-01 00:00:00', -1, 'SECOND')", "0000-12-31T23:59:59", "timestamp"},
		{"DATEADD(TIMESTAMP '9999-12-31 23:59:59', 1, 'SECOND')", "+10000-01-01T00:00", "timestamp"},
		{"DATEADD(tsv, 1000000, 'HOUR')", "2138-03-30T05:45:30.123456789", "timestamp"},
		{"DATEADD(tsv, -100000000000, 'MILLISECOND')", "2020-12-29T03:58:50.123456789", "timestamp"},
		{"DATEADD(tm, 9223372036854775807, 'HOUR')", "20:45:30.123", "time"},
		{"DATEADD(DATE '9999-12-31', 1, 'DAY')", "+10000-01-01", "date"},
		{"FROM_UNIXTIME(253402300799, 'yyyy-MM-dd HH:mm:ss', 'UTC')", "9999-12-31 23:59:59", "string"},
		{"FROM_UNIXTIME(-62135596800, 'yyyy-MM-dd HH:mm:ss', 'UTC')", "0001-01-01 00:00:00", "string"},
		{"DATEDIFF(TIMESTAMP '0001-01-01 00:00:00', TIMESTAMP '9999-12-31 23:59:59', 'DAY')", "3652058", "bigint"},
		{"DATEDIFF(TIMESTAMP '0001-01-01 00:00:00', TIMESTAMP '9999-12-31 23:59:59.999', 'MILLISECOND')", "315537897599999", "bigint"},
		{"DATEDIFF(TIMESTAMP '9999-12-31 23:59:59.5', TIMESTAMP '0001-01-01 00:00:00', 'SECOND')", "-315537897600", "bigint"},
		{"YEAR(TIMESTAMP '9999-12-31 23:59:59')", "9999", "int"},
		{"EXTRACT(MILLISECOND FROM TIMESTAMP '0001-01-01 00:00:00.25')", "250", "int"},
		{"DATE_TRUNC(TIMESTAMP '0001-03-04 05:06:07.8', 'MONTH')", "0001-03-01T00:00", "timestamp"},
		{"CAST('0001-01-01 00:00:00' AS TIMESTAMP)", "0001-01-01T00:00", "timestamp"},
		{"CAST(TIMESTAMP '9999-12-31 23:59:59.999999999' AS TIME)", "23:59:59.999999999", "time"},
		{"CAST(TIMESTAMP '0001-01-01 10:00:00' AS DATE)", "0001-01-01", "date"},
		{"CAST(DATE '9999-12-31' AS TIMESTAMP)", "9999-12-31T00:00", "timestamp"},
		{"FORMATDATETIME(TIMESTAMP '9999-12-31 23:59:59.999999999', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')", "9999-12-31 23:59:59.999999999", "string"},
		{"PARSEDATETIME('0001-01-01 00:00:01', 'yyyy-MM-dd HH:mm:ss')", "0001-01-01T00:00:01", "timestamp"},
		{"TIMESTAMP '9999-12-31 23:59:59' > TIMESTAMP '2262-04-12 00:00:00'", "true", "boolean"},
		{"TIMESTAMP '2024-01-01 00:00:00.000000002' > TIMESTAMP '2024-01-01 00:00:00.000000001'", "true", "boolean"},
		{"tsv = TIMESTAMP '2024-02-29 13:45:30.123456788'", "false", "boolean"},
		{"tsv IN (TIMESTAMP '2024-02-29 13:45:30.123456788', TIMESTAMP '2024-02-29 13:45:30.123456789')", "true", "boolean"},
		{"tsv BETWEEN TIMESTAMP '0001-01-01 00:00:00' AND TIMESTAMP '9999-12-31 23:59:59'", "true", "boolean"},
		{"DATEDIFF(DATE '2024-01-01', dt, 'DAY')", "59", "bigint"},
		{"DATEDIFF(DATE '2024-01-01', dt)", "59", "bigint"},
		{"DATEDIFF(DATE '2023-01-15', dt, 'MONTH')", "1", "bigint"},
		{"DATEDIFF(DATE '2023-01-15', dt, 'YEAR')", "1", "bigint"},
		{"DATEDIFF(dt, DATE '2023-01-30', 'MONTH')", "0", "bigint"},
		{"DATEDIFF(dt, DATE '2023-01-30', 'YEAR')", "-1", "bigint"},
		{"DATEDIFF(tsv, TIMESTAMP '2024-03-01 00:00:00', 'HOUR')", "10", "bigint"},
		{"DATEDIFF(tsv, TIMESTAMP '2024-03-01 00:00:00', 'MINUTE')", "614", "bigint"},
		{"DATEDIFF(tsv, TIMESTAMP '2024-03-01 00:00:00', 'SECOND')", "36869", "bigint"},
		{"DATEDIFF(tsv, TIMESTAMP '2024-03-01 00:00:00', 'MILLISECOND')", "36869876", "bigint"},
		{"DATEDIFF(TIMESTAMP '2024-01-01 00:00:00', tsv, 'WEEK')", "8", "bigint"},
		{"DATEDIFF(tsv, dt, 'DAY')", "0", "bigint"},
		{"DATEDIFF(tm, tm, 'DAY')", "null", "bigint"},
		{"DATE_TRUNC(tsv, 'MONTH')", "2024-02-01T00:00", "timestamp"},
		{"DATE_TRUNC(tsv, 'HOUR')", "2024-02-29T13:00", "timestamp"},
		{"DATE_TRUNC(tsv, 'SECOND')", "2024-02-29T13:45:30", "timestamp"},
		{"DATE_TRUNC(tsv)", "2024-02-29T00:00", "timestamp"},
		{"DAYNAME(dt)", "Thursday", "string"},
		{"DAY_OF_MONTH(dt)", "29", "int"},
		{"DAY_OF_WEEK(tsv)", "4", "int"},
		{"DAY_OF_YEAR(dt)", "60", "int"},
		{"MONTH(dt)", "2", "int"},
		{"MONTHNAME(tsv)", "February", "string"},
		{"QUARTER(dt)", "1", "int"},
		{"YEAR(tsv)", "2024", "int"},
		{"WEEK(dt)", "10", "int"},
		{"WEEK(DATE '2021-01-01')", "1", "int"},
		{"WEEK(DATE '2021-01-04')", "2", "int"},
		{"HOUR(tsv)", "13", "int"},
		{"MINUTE(tm)", "45", "int"},
		{"SECOND(tsv)", "30", "int"},
		{"EXTRACT(YEAR FROM dt)", "2024", "int"},
		{"EXTRACT(HOUR FROM dt)", "null", "int"},
		{"EXTRACT(MILLISECOND FROM tm)", "123", "int"},
		{"EXTRACT(DAYOFWEEK FROM tsv)", "4", "int"},
		{"EXTRACT(MINUTE FROM tsv)", "45", "int"},
		{"FORMATDATETIME(tsv, 'yyyy-MM-dd HH:mm:ss')", "2024-02-29 13:45:30", "string"},
		{"FORMATDATETIME(tsv, 'EEE, d MMM yyyy h:mm a')", "Thu, 29 Feb 2024 1:45 PM", "string"},
		{"FORMATDATETIME(tsv, 'EEEE MMMM yy SSS')", "Thursday February 24 123", "string"},
		{"FORMATDATETIME(tsv, '''at'' HH''h''')", "at 13h", "string"},
		{"FORMATDATETIME(tm, 'HH:mm:ss.SSSSSS')", "13:45:30.123000", "string"},
		{"FORMATDATETIME(dt, 'D Q')", "60 1", "string"},
		{"PARSEDATETIME('2021-04-08 13:34:45','yyyy-MM-dd HH:mm:ss')", "2021-04-08T13:34:45", "timestamp"},
		{"TO_DATE('2021-04-08', 'yyyy-MM-dd')", "2021-04-08", "date"},
		{"PARSEDATETIME('13:34', 'HH:mm')", "13:34", "time"},
		{"PARSEDATETIME('2021-02-30', 'yyyy-MM-dd')", "2021-02-28", "date"},
		{"PARSEDATETIME('20210408', 'yyyyMMdd')", "2021-04-08", "date"},
		{"PARSEDATETIME('8 Apr 2021 1:05 PM', 'd MMM yyyy h:mm a')", "2021-04-08T13:05", "timestamp"},
		{"IS_DATE('2021-04-08 13:34:45','yyyy-MM-dd HH:mm:ss')", "true", "boolean"},
		{"IS_DATE('2021-13-08', 'yyyy-MM-dd')", "false", "boolean"},
		{"IS_DATE(n, 'yyyy-MM-dd')", "false", "boolean"},
		{"FROM_UNIXTIME(1672502400, 'yyyy-MM-dd HH:mm:ss', 'UTC+8')", "2023-01-01 00:00:00", "string"},
		{"FROM_UNIXTIME(0, 'yyyy', 'UTC')", "1970", "string"},
		{"FROM_UNIXTIME(0, 'HH:mm', '+05:30')", "05:30", "string"},
		// System functions.
		{"COALESCE(n, s)", "Hello World", "string"},
		{"COALESCE(n, null, 'x')", "x", "string"},
		{"COALESCE(null, i)", "-7", "int"},
		{"COALESCE(ni, 1.0)", "1", "int"},
		{"IFNULL(n, 'd')", "d", "string"},
		{"IFNULL(s, 'd')", "Hello World", "string"},
		{"NULLIF(i, -7)", "null", "int"},
		{"NULLIF(i, 1)", "-7", "int"},
		{"NULLIF(ni, 1)", "null", "int"},
		{"MULTI_IF(i < 0, 'neg', i = 0, 'zero', 'pos')", "neg", "string"},
		{"MULTI_IF(i > 0, 'pos', i < -10, 'small', 'other')", "other", "string"},
		{"MULTI_IF(d >= 2.5, 1, 0)", "1", "int"},
		{"MULTI_IF(ni > 0, 1, 2)", "2", "int"},
		{"LENGTH(UUID())", "36", "bigint"},
		{"SUBSTR(UUID(), 15, 1)", "4", "string"},
		{"ARRAY(1, 2, 3)", "[1, 2, 3]", "array<int>"},
		{"ARRAY('c_1', 2, 3.12)", "[c_1, 2, 3.12]", "array<string>"},
		{"ARRAY(i, b)", "[-7, 1234567890123]", "array<bigint>"},
		{"ARRAY(1, 2.5)", "[1.0, 2.5]", "array<double>"},
		{"ARRAY(1, null)", "[1, null]", "array<int>"},
		{"ARRAY()", "[]", "array<string>"},
		{"ARRAY(bo)", "[true]", "array<boolean>"},
		// CAST.
		{"CAST(i AS STRING)", "-7", "string"},
		{"CAST(d AS VARCHAR)", "2.5", "string"},
		{"CAST(tsv AS STRING)", "2024-02-29T13:45:30.123456789", "string"},
		{"CAST(m AS STRING)", "12.34", "string"},
		{"CAST('12' AS INT)", "12", "int"},
		{"CAST('-12' AS INTEGER)", "-12", "int"},
		{"CAST(b AS LONG)", "1234567890123", "bigint"},
		{"CAST('3' AS BYTE)", "3", "tinyint"},
		{"CAST(d * 2 AS INT)", "5", "int"},
		{"CAST(m AS DOUBLE)", "12.34", "double"},
		{"CAST(' 2.5 ' AS DOUBLE)", "2.5", "double"},
		{"CAST(d AS FLOAT)", "2.5", "float"},
		{"CAST(d AS DECIMAL(10, 1))", "2.5", "decimal(10, 1)"},
		{"CAST(2.25 AS DECIMAL(10, 1))", "2.3", "decimal(10, 1)"},
		{"CAST(-2.25 AS DECIMAL(10, 1))", "-2.2", "decimal(10, 1)"},
		{"CAST('1.005' AS DECIMAL(5, 2))", "1.01", "decimal(5, 2)"},
		{"CAST(m AS DECIMAL(10, 4))", "12.3400", "decimal(10, 4)"},
		{"CAST(dt AS TIMESTAMP)", "2024-02-29T00:00", "timestamp"},
		{"CAST(tsv AS DATE)", "2024-02-29", "date"},
		{"CAST(tsv AS TIME)", "13:45:30.123456789", "time"},
		{"CAST(dt AS TIME)", "00:00", "time"},
		{"CAST(20240131 AS DATE)", "2024-01-31", "date"},
		{"CAST(134501 AS TIME)", "13:45:01", "time"},
		{"CAST('2024-01-02' AS DATE)", "2024-01-02", "date"},
		{"CAST('2024-01-02 03:04:05' AS DATETIME)", "2024-01-02T03:04:05", "timestamp"},
		{"CAST(s AS BYTES)", "Hello World", "bytes"},
		{"CAST(bo AS STRING)", "true", "string"},
		{"CAST('TRUE' AS BOOLEAN)", "true", "boolean"},
		{"CAST(n AS INT)", "null", "int"},
		{"CAST(arr AS STRING)", "[b, a, c]", "string"},
		{"CONVERT(i AS BIGINT)", "-7", "bigint"},
		// Index access.
		{"arr[0]", "b", "string"},
		{"arr[2]", "c", "string"},
		{"arr[3]", "null", "string"},
		{"arr[-1]", "null", "string"},
		{"ai[i + 8]", "1", "int"},
	} {
		got, typ, err := evalOne(t, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
		if typ.String() != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.expr, typ, tc.typ)
		}
	}
}

func TestFunctionErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		// Plan time.
		{"FOO(1)", `unknown function "FOO" at 1:8 of query`},
		{"foo()", `unknown function "foo" at 1:8 of query`},
		{"SUM(i)", "aggregate function SUM is not supported"},
		{"LEFT(s)", "function LEFT takes 2 arguments, got 1 at 1:8 of query"},
		{"CONCAT_WS(',')", "function CONCAT_WS takes at least 2 arguments, got 1"},
		{"SUBSTRING(s, 1, 2, 3)", "function SUBSTRING takes 2 to 3 arguments, got 4"},
		{"UPPER(i)", "function UPPER: argument 1 must be a string, got int at 1:14 of query"},
		{"ABS(s)", "function ABS: argument 1 must be a number, got string"},
		{"HOUR(dt)", "function HOUR: argument 1 must be a time or timestamp, got date"},
		{"YEAR(tm)", "function YEAR: argument 1 must be a date or timestamp, got time"},
		{"DATEADD(dt, 1, 'FORTNIGHT')", `function DATEADD: unsupported unit "FORTNIGHT"`},
		{"REGEXP_LIKE(s, '(')", "function REGEXP_LIKE: bad regular expression"},
		{"MULTI_IF(i < 0, 'neg', 'zero', 'pos')", "MULTI_IF takes condition, result pairs and an else result (an odd number of arguments), got 4 at 1:8 of query"},
		{"MULTI_IF(i, 'a', 'b')", "a WHEN of CASE"},
		{"REGEXP_LIKE(s, 'a', 'x')", `unsupported regexp flag 'x'`},
		{"PARSEDATETIME(s, s)", "the format must be a constant string"},
		{"PARSEDATETIME(s, 'HH')", "has neither a year (yy) nor minutes (mm)"},
		{"FORMATDATETIME(dt, 'yyyy-MM-dd [HH]')", `'[' is not supported`},
		{"FORMATDATETIME(dt, 'yyyy-bb')", `unsupported pattern letter 'b'`},
		{"TO_CHAR(dt)", "function TO_CHAR of a date needs a format"},
		{"EXTRACT(EPOCH FROM dt)", "unsupported EXTRACT field EPOCH"},
		{"FROM_UNIXTIME(0, 'yyyy', 'Mars/Base')", `unknown time zone "Mars/Base"`},
		{"CAST(i AS WIDGET)", "unsupported CAST type WIDGET at 1:18 of query (supported: STRING"},
		{"CAST(dt AS INT)", "cannot CAST date to INT"},
		{"CAST(i AS DECIMAL(50, 2))", "DECIMAL(50, 2) is out of range"},
		{"ARRAY_MAX(bo)", "function ARRAY_MAX: argument 1 must be an array, got boolean"},
		{"COALESCE(i, 'x')", "type mismatch: COALESCE argument 2 is string, the result is int"},
		{"NULLIF(i, 'x')", "type mismatch: cannot compare int with string"},
		{"arr['x']", "an array index must be an integer, got string"},
		{"i[0]", "i is int: only arrays and maps can be indexed"},
		{"CURRENT_WHATEVER", `unknown column "CURRENT_WHATEVER"`},
		// Run time.
		{"ASCII(e)", "ASCII of an empty string"},
		{"LEFT(s, -1)", "LEFT with a negative length -1"},
		{"HEXTORAW('123')", "HEXTORAW needs 4 hex digits per character"},
		{"MOD(i, 0)", "MOD by zero"},
		{"LN(0)", "LN of 0.0: the argument must be positive"},
		{"LOG(-1, 2)", "LOG base -1.0 must be positive"},
		{"COT(0)", "division by zero"},
		{"CAST('x' AS INT)", `cannot cast "x" to INT: not an integer`},
		{"CAST('300' AS BYTE)", "cannot cast \"300\" to TINYINT: out of range"},
		{"CAST(b AS INT)", "cannot cast 1234567890123 to INT: out of range"},
		{"CAST(20241301 AS DATE)", "not a date yyyyMMdd"},
		{"PARSEDATETIME('x', 'yyyy-MM-dd')", `text "x" could not be parsed at index 0`},
		{"FORMATDATETIME(dt, 'HH')", "unsupported field for a date: HH"},
		{"DATEDIFF(dt, tsv, 'HOUR')", "DATEDIFF by HOUR needs two times or two timestamps"},
		// Past LocalDateTime's range Java throws (DateTimeException or
		// ArithmeticException); so does DATEADD here, instead of wrapping.
		{"DATEADD(tsv, 9223372036854775807, 'YEAR')", "out of range"},
		{"DATEADD(tsv, 9223372036854775807, 'MONTH')", "out of range"},
		{"DATEADD(tsv, 9223372036854775807, 'WEEK')", "out of range"},
		{"DATEADD(tsv, 9223372036854775807, 'DAY')", "out of range"},
		{"DATEADD(tsv, 9223372036854775807, 'HOUR')", "out of range"},
		{"DATEADD(tsv, 9223372036854775807, 'SECOND')", "out of range"},
		{"DATEADD(tsv, 1000000000, 'YEAR')", "out of range"},
		{"DATEADD(dt, 9223372036854775807, 'YEAR')", "out of range"},
		{"DATEADD(dt, -9223372036854775807, 'DAY')", "out of range"},
		{"DATEADD(dt, 9223372036854775807, 'WEEK')", "out of range"},
		{"FROM_UNIXTIME(9223372036854775807, 'yyyy')", "out of range"},
		{"REGEXP_SUBSTR('abc', 'b', 1, 1, NULL, 3)", "REGEXP_SUBSTR: no group 3"},
		{"REPEAT(s, 2147483647)", "REPEAT: the result would be longer than 16777216 bytes"},
		{"LPAD(s, 2147483647)", "LPAD: the result would be longer than"},
		{"SPACE(100000000)", "SPACE: the result would be longer than"},
	} {
		_, _, err := evalOne(t, tc.expr)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.expr, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.expr, err, tc.want)
		}
	}
}

func TestFunctionNamesCaseInsensitive(t *testing.T) {
	for _, e := range []string{"upper(s)", "Upper(s)", "UPPER(s)", "uPpEr(s)"} {
		got, _, err := evalOne(t, e)
		if err != nil || got != "HELLO WORLD" {
			t.Errorf("%s = %q, %v", e, got, err)
		}
	}
	if len(FunctionNames()) < 100 {
		t.Errorf("only %d functions", len(FunctionNames()))
	}
}

func TestUDF(t *testing.T) {
	err := RegisterFunction(Function{
		Name:       "example",
		ResultType: func([]*row.Type) (*row.Type, error) { return row.String, nil },
		Eval: func(args []any) (any, error) {
			if args[0] == nil {
				return nil, nil
			}
			return "UDF: " + args[0].(string), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, typ, err := evalOne(t, "EXAMPLE(s)")
	if err != nil || got != "UDF: Hello World" || typ.ID != row.TypeString {
		t.Errorf("EXAMPLE(s) = %q %v %v", got, typ, err)
	}
	if got, _, _ := evalOne(t, "example(n)"); got != "null" {
		t.Errorf("example(n) = %q", got)
	}
	// A panicking function fails the row, not the process.
	if err := RegisterFunction(Function{
		Name:       "boom",
		ResultType: func([]*row.Type) (*row.Type, error) { return row.Int, nil },
		Eval:       func([]any) (any, error) { panic("boom") },
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := evalOne(t, "boom(i) + 1"); err == nil || !strings.Contains(err.Error(), "function BOOM panicked: boom") {
		t.Errorf("boom: %v", err)
	}
	if err := RegisterFunction(Function{Name: "upper", ResultType: func([]*row.Type) (*row.Type, error) { return row.String, nil }, Eval: func([]any) (any, error) { return nil, nil }}); err == nil {
		t.Error("replaced a built-in")
	}
}
