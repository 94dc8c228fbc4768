package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// A snapshot reads text in the session's character set (utf8mb4: the
// server converts), but the binlog holds each column's bytes in the
// column's own character set. Text columns of other character sets are
// decoded from theirs, so both phases give the same strings.

// columnCharsets reads each column's character set ("" for columns
// without one), in ordinal order.
func columnCharsets(ctx context.Context, db *sql.DB, database, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT IFNULL(CHARACTER_SET_NAME, '') FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, database, table)
	if err != nil {
		return nil, fmt.Errorf("character sets of %s.%s: %w", database, table, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cs string
		if err := rows.Scan(&cs); err != nil {
			return nil, err
		}
		out = append(out, strings.ToLower(cs))
	}
	return out, rows.Err()
}

// charsetOf is the encoding of a MySQL character set, nil when its
// bytes are UTF-8 (or ASCII) already.
func charsetOf(cs string) (encoding.Encoding, error) {
	var e encoding.Encoding
	switch cs {
	case "", "utf8", "utf8mb3", "utf8mb4", "ascii", "binary":
		return nil, nil
	case "latin1":
		e = charmap.Windows1252 // MySQL's latin1 is cp1252
	case "latin2":
		e = charmap.ISO8859_2
	case "latin5":
		e = charmap.ISO8859_9
	case "latin7":
		e = charmap.ISO8859_13
	case "cp1250":
		e = charmap.Windows1250
	case "cp1251":
		e = charmap.Windows1251
	case "cp1256":
		e = charmap.Windows1256
	case "cp1257":
		e = charmap.Windows1257
	case "cp850":
		e = charmap.CodePage850
	case "cp852":
		e = charmap.CodePage852
	case "cp866":
		e = charmap.CodePage866
	case "koi8r":
		e = charmap.KOI8R
	case "koi8u":
		e = charmap.KOI8U
	case "greek":
		e = charmap.ISO8859_7
	case "hebrew":
		e = charmap.ISO8859_8
	case "gbk", "gb2312":
		e = simplifiedchinese.GBK
	case "gb18030":
		e = simplifiedchinese.GB18030
	case "big5":
		e = traditionalchinese.Big5
	case "sjis", "cp932":
		e = japanese.ShiftJIS
	case "ujis", "eucjpms":
		e = japanese.EUCJP
	case "euckr":
		e = korean.EUCKR
	case "ucs2", "utf16":
		e = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case "utf16le":
		e = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	default:
		return nil, fmt.Errorf("character set %s is not supported in the binlog (use utf8mb4, latin1, gbk, big5, sjis, ...)", cs)
	}
	return e, nil
}
