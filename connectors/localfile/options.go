package localfile

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"

	"github.com/stactor/stactor/config"
)

// The file formats of SeaTunnel's FileFormat.
const (
	formatText    = "text"
	formatCSV     = "csv"
	formatJSON    = "json"
	formatParquet = "parquet"
	formatXML     = "xml"
	formatExcel   = "excel"
	// formatBinary copies files: the source reads them as they are, in
	// chunks (SeaTunnel's BinaryReadStrategy), and the sink writes the
	// chunks back under the same relative paths (BinaryWriteStrategy).
	formatBinary = "binary"
	// formatORC is Apache ORC, read and written by package orc.
	formatORC = "orc"
)

var formats = []string{formatText, formatCSV, formatJSON, formatParquet, formatXML, formatExcel, formatBinary, formatORC}

// sourceFormats are the formats the source reads.
var sourceFormats = formats

// suffix is SeaTunnel's FileFormat suffix of a format's files.
func suffix(format string) string {
	switch format {
	case formatText:
		return ".txt"
	case formatCSV:
		return ".csv"
	case formatJSON:
		return ".json"
	case formatXML:
		return ".xml"
	case formatExcel:
		return ".xlsx"
	case formatBinary:
		return ""
	case formatORC:
		return ".orc"
	}
	return ".parquet"
}

// Shared options of the source and the sink, SeaTunnel's names and
// defaults (FileBaseOptions).
var (
	optDateFormat     = config.Option{Key: "date_format", Type: config.TypeString, Default: defaultDateFormat, Doc: "how dates are written in text files (java.time pattern)"}
	optDatetimeFormat = config.Option{Key: "datetime_format", Type: config.TypeString, Default: defaultDatetimeFormat, Doc: "how timestamps are written in text files (java.time pattern)"}
	optTimeFormat     = config.Option{Key: "time_format", Type: config.TypeString, Default: defaultTimeFormat, Doc: "how times are written in text files (java.time pattern)"}
	optEncoding       = config.Option{Key: "encoding", Type: config.TypeString, Default: "UTF-8", Doc: "the files' character set (a Java charset name: UTF-8, ISO-8859-1, GBK, Big5, Shift_JIS, ...)"}
	optRowDelimiter   = config.Option{Key: "row_delimiter", Type: config.TypeString, Default: "\n", Doc: "the separator between rows of text files"}
)

// sourceOptions are LocalFile's source options (FileBaseSourceOptions).
var sourceOptions = []config.Option{
	// path and file_format_type are required, at the top or in each entry
	// of tables_configs (tableEntryOptions).
	{Key: "tables_configs", Type: config.TypeList, Doc: "several tables, each a block of LocalFile source options with its own path and schema"},
	{Key: "path", Type: config.TypeString, Doc: "a file, or a folder read recursively (required)"},
	{Key: "file_format_type", Type: config.TypeEnum, Enum: sourceFormats, Doc: "the files' format (required)"},
	config.SchemaOption,
	{Key: "read_columns", Type: config.TypeStrings, Doc: "the columns to read, in this order"},
	{Key: "field_delimiter", Type: config.TypeString, Fallbacks: []string{"delimiter"}, Doc: "the field separator: \\u0001 for text, ',' for csv"},
	optRowDelimiter,
	{Key: "skip_header_row_number", Type: config.TypeInt, Default: int64(0), Doc: "lines (excel: rows) to skip at the start of each text, csv or excel file"},
	{Key: "csv_use_header_line", Type: config.TypeBool, Default: false, Doc: "csv: the first line of each file (after skip_header_row_number) is a header: fields are the columns of their names, not taken by position"},
	{Key: "file_filter_pattern", Type: config.TypeString, Doc: "a regular expression a file's name (or full path) must match"},
	{Key: "filename_extension", Type: config.TypeString, Doc: "read only files with this extension"},
	{Key: "compress_codec", Type: config.TypeEnum, Enum: []string{"none", "gzip", "gz", "lzo"}, Default: "none", Doc: "compression of text, csv, json and xml files: gzip, or lzo (lzop files)"},
	{Key: "archive_compress_codec", Type: config.TypeEnum, Enum: []string{"none", "gz", "zip", "tar", "tar_gz"}, Default: "none", Doc: "archive format of the files: none, gz, zip, tar or tar_gz (every file inside is read)"},
	optEncoding,
	optDateFormat,
	optDatetimeFormat,
	optTimeFormat,
	{Key: "parse_partition_from_path", Type: config.TypeBool, Default: true, Doc: "add the k=v folders under path as string fields"},
	{Key: "null_format", Type: config.TypeString, Doc: "the text that stands for null in text and csv files"},
	{Key: "quote_char", Type: config.TypeString, Default: "\"", Doc: "the quote character of csv files"},
	{Key: "xml_row_tag", Type: config.TypeString, Doc: "xml: the tag of the elements that are rows, anywhere in the document (required for xml)"},
	{Key: "xml_use_attr_format", Type: config.TypeBool, Doc: "xml: fields are the row element's attributes (true) or its child elements (false) (required for xml)"},
	{Key: "sheet_name", Type: config.TypeString, Doc: "excel: the sheet to read, the first by default"},
}

// sinkOptions are LocalFile's sink options (FileBaseSinkOptions).
var sinkOptions = []config.Option{
	{Key: "path", Type: config.TypeString, Required: true, Doc: "the folder files are written to"},
	{Key: "tmp_path", Type: config.TypeString, Doc: "ignored: stactor stages files under path/.stactor-staging, on the same file system, so that committing is a rename"},
	{Key: "file_format_type", Type: config.TypeEnum, Enum: formats, Default: formatCSV, Doc: "the files' format"},
	{Key: "custom_filename", Type: config.TypeBool, Default: false, Doc: "name files by file_name_expression"},
	{Key: "file_name_expression", Type: config.TypeString, Template: true, Default: "${transactionId}", Doc: "a file's name: ${transactionId}, ${now}, ${uuid}"},
	{Key: "filename_time_format", Type: config.TypeString, Template: true, Default: "yyyy.MM.dd", Doc: "the format of ${now}"},
	{Key: "filename_extension", Type: config.TypeString, Doc: "replaces the format's file extension"},
	{Key: "field_delimiter", Type: config.TypeString, Doc: "the field separator: \\u0001 for text, ',' for csv"},
	optRowDelimiter,
	{Key: "have_partition", Type: config.TypeBool, Default: false, Doc: "write rows into folders by partition_by"},
	{Key: "partition_by", Type: config.TypeStrings, Doc: "the fields whose values name the partition folders"},
	{Key: "partition_dir_expression", Type: config.TypeString, Template: true, Doc: "a partition folder: ${k0}=${v0}/${k1}=${v1}/... by default"},
	{Key: "is_partition_field_write_in_file", Type: config.TypeBool, Default: false, Doc: "also write the partition fields into the files"},
	{Key: "sink_columns", Type: config.TypeStrings, Doc: "the fields to write, in this order"},
	{Key: "is_enable_transaction", Type: config.TypeBool, Default: true, Doc: "stage files and commit them on checkpoints (exactly-once)"},
	{Key: "batch_size", Type: config.TypeInt, Default: int64(1000000), Doc: "rows per file before a new file is started"},
	{Key: "single_file_mode", Type: config.TypeBool, Default: false, Doc: "one file per checkpoint and writer, never rolled"},
	{Key: "create_empty_file_when_no_data", Type: config.TypeBool, Default: false, Doc: "write an empty file for a checkpoint without rows"},
	{Key: "compress_codec", Type: config.TypeEnum, Enum: []string{"none", "gzip", "snappy", "zstd", "lz4", "brotli", "lzo", "zlib"}, Default: "none", Doc: "compression: gzip or lzo (lzop) for text, csv, json and xml, snappy, gzip, zstd, lz4 or brotli for parquet, zlib, snappy or lz4 for orc"},
	optEncoding,
	optDateFormat,
	optDatetimeFormat,
	optTimeFormat,
	{Key: "enable_header_write", Type: config.TypeBool, Default: false, Doc: "write the field names as the first line of csv and text files"},
	{Key: "csv_string_quote_mode", Type: config.TypeEnum, Enum: []string{"ALL", "MINIMAL", "NONE"}, Default: "MINIMAL", Doc: "which csv strings are quoted"},
	{Key: "data_save_mode", Type: config.TypeEnum, Enum: []string{"APPEND_DATA", "DROP_DATA", "ERROR_WHEN_DATA_EXISTS"}, Default: "APPEND_DATA", Doc: "before the job: keep the files, delete them all (DROP_DATA), or fail if there are any"},
	{Key: "xml_root_tag", Type: config.TypeString, Default: "RECORDS", Doc: "xml: the tag of the root element"},
	{Key: "xml_row_tag", Type: config.TypeString, Default: "RECORD", Doc: "xml: the tag of each row's element"},
	{Key: "xml_use_attr_format", Type: config.TypeBool, Doc: "xml: write fields as attributes (true) or child elements (false) (required for xml)"},
	{Key: "sheet_name", Type: config.TypeString, Doc: "excel: the name of the sheet written (Sheet1 by default)"},
	{Key: "max_rows_in_memory", Type: config.TypeInt, Doc: "excel: ignored; rows are streamed to a temporary file as they come"},
	{Key: "schema_save_mode", Type: config.TypeEnum, Enum: []string{"CREATE_SCHEMA_WHEN_NOT_EXIST", "RECREATE_SCHEMA", "ERROR_WHEN_SCHEMA_NOT_EXIST", "IGNORE"}, Default: "CREATE_SCHEMA_WHEN_NOT_EXIST", Doc: "before the job: create the path if missing, delete and create it (RECREATE_SCHEMA), fail if missing, or nothing"},
}

// encodingOf checks the encoding option, a Java charset name: UTF-8 and
// ISO-8859-1 (latin1) have fast paths; any other charset Go's x/text
// knows by its IANA name or alias (GBK, GB18030, Big5, Shift_JIS,
// EUC-KR, windows-1252...) is decoded to UTF-8 record by record. Records
// are cut on the file's bytes, so the charset must write ASCII as ASCII:
// UTF-16 and UTF-32 are refused.
func encodingOf(cfg *config.PluginConfig) (latin1 bool, charset encoding.Encoding, err error) {
	name := cfg.String("encoding")
	switch strings.ToUpper(strings.ReplaceAll(name, "_", "-")) {
	case "UTF-8", "UTF8":
		return false, nil, nil
	case "ISO-8859-1", "ISO8859-1", "LATIN1", "LATIN-1":
		return true, nil, nil
	}
	e, err := ianaindex.IANA.Encoding(name)
	if err != nil || e == nil {
		if e, err = htmlindex.Get(name); err != nil || e == nil {
			return false, nil, cfg.Errorf("encoding", "%q is not supported: not a charset stactor knows (UTF-8, ISO-8859-1, GBK, Big5, Shift_JIS, windows-1252, ...)", name)
		}
	}
	if !asciiCompatible(e) {
		return false, nil, cfg.Errorf("encoding", "%q is not supported: it does not write ASCII as ASCII, so its lines cannot be cut on their bytes (use an ASCII-compatible charset such as UTF-8)", name)
	}
	return false, e, nil
}

// asciiCompatible tells whether e encodes the ASCII characters as
// themselves (so newlines and delimiters can be found in its bytes).
func asciiCompatible(e encoding.Encoding) bool {
	ascii := make([]byte, 0x80)
	for i := range ascii {
		ascii[i] = byte(i)
	}
	out, err := e.NewEncoder().Bytes(ascii)
	return err == nil && bytes.Equal(out, ascii)
}

// decodeCharset decodes src from charset e into UTF-8, reusing dst; bytes
// that are not valid in e become U+FFFD, as Java's decoder does.
func decodeCharset(dst []byte, e encoding.Encoding, src []byte) []byte {
	out, err := e.NewDecoder().Bytes(src)
	if err != nil {
		return append(dst[:0], src...)
	}
	return append(dst[:0], out...)
}

// encodeCharset encodes UTF-8 text into charset e; characters e cannot
// hold become '?', as Java's String.getBytes does.
func encodeCharset(dst []byte, e encoding.Encoding, src []byte) []byte {
	enc := e.NewEncoder()
	if out, err := enc.Bytes(src); err == nil {
		return append(dst[:0], out...)
	}
	dst = dst[:0]
	var buf [utf8.UTFMax]byte
	for _, r := range string(src) {
		n := utf8.EncodeRune(buf[:], r)
		out, err := enc.Bytes(buf[:n])
		if err != nil {
			dst = append(dst, '?')
			continue
		}
		dst = append(dst, out...)
	}
	return dst
}

// timeFormatsOf reads date_format, datetime_format and time_format.
func timeFormatsOf(cfg *config.PluginConfig) (timeFormats, error) {
	f, err := newTimeFormats(cfg.String("date_format"), cfg.String("datetime_format"), cfg.String("time_format"))
	if err != nil {
		key := strings.SplitN(err.Error(), ":", 2)[0]
		return f, cfg.Errorf(key, "%v", strings.TrimPrefix(err.Error(), key+": "))
	}
	return f, nil
}

// latin1ToUTF8 decodes ISO-8859-1 bytes (each byte is its code point).
func latin1ToUTF8(dst, src []byte) []byte {
	dst = dst[:0]
	for _, c := range src {
		if c < 0x80 {
			dst = append(dst, c)
		} else {
			dst = append(dst, 0xc0|c>>6, 0x80|c&0x3f)
		}
	}
	return dst
}

// utf8ToLatin1 encodes text as ISO-8859-1; characters outside it become
// '?', as Java's String.getBytes does.
func utf8ToLatin1(dst []byte, src []byte) []byte {
	dst = dst[:0]
	for _, r := range string(src) {
		if r < 0x100 {
			dst = append(dst, byte(r))
		} else {
			dst = append(dst, '?')
		}
	}
	return dst
}

func hasHigh(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
