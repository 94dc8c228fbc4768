package localfile

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/text/encoding"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSource(SourceFactory)
}

// SourceFactory makes LocalFile sources.
var SourceFactory = connectors.SourceFactory{
	Name:     "LocalFile",
	Options:  sourceOptions,
	Delivery: connectors.Replayable,
	Resolve:  resolveSource,
	Create:   createSource,
}

// defaultTable is the table id of a schema without `table` (SeaTunnel's
// TablePath.DEFAULT).
const defaultTable = "default.default.default"

// sourceConfig is a LocalFile source's checked options and file listing,
// shared read-only by its enumerator and readers.
type sourceConfig struct {
	root   string
	format string
	files  []fileInfo
	// schema is the output: the data fields read (read_columns, in order)
	// then the partition fields.
	schema *row.Schema
	// data are the fields of a record as stored (the schema option, the
	// parquet file's or the single content field) and proj[j] the one
	// output column j reads.
	data     []row.Field
	proj     []int
	partKeys []string
	content  bool // text or csv without schema: the whole line is `content`

	gzip       bool
	lzo        bool   // lzop files (compress_codec lzo)
	archive    string // zip, tar or tar_gz: the files are archives of the files read
	latin1     bool
	charset    encoding.Encoding // another charset than UTF-8 and Latin-1; nil if none
	delim      string
	delimRE    *regexp.Regexp // text: field_delimiter as a regular expression
	rowDelim   string
	quote      byte
	skipHeader int64
	csvHeader  bool // csv_use_header_line: columns are named by each file's header
	values     textValues

	// xml: the row elements' tag and whether fields are attributes
	xmlRowTag string
	xmlAttr   bool
	// excel: the sheet read, "" for the first
	sheet string

	// fileSchema is the table and data fields read from the first file
	// (parquet, orc) or checked against it (parquet with a schema), by
	// Resolve; Create takes it from the resolved listing and reads no
	// file. nil until read.
	fileSchema *row.Schema
}

func createSource(cfg *config.PluginConfig, resolved []byte, job connectors.JobContext) (connectors.Source, error) {
	listed, err := decodeListing(resolved)
	if err != nil {
		return nil, cfg.Errorf("path", "%v", err)
	}
	return createSources(cfg, listed)
}

// localPath strips the file:// scheme SeaTunnel's paths may carry.
func localPath(p string) string {
	return filepath.Clean(strings.TrimPrefix(p, "file://"))
}

// newSourceConfig makes a table's config from its options and what
// Resolve found for it.
func newSourceConfig(cfg *config.PluginConfig, t resolvedTable) (*sourceConfig, error) {
	sc, err := checkSourceOptions(cfg)
	if err != nil {
		return nil, err
	}
	sc.files, sc.fileSchema = t.files, t.schema
	if err := sc.resolveSchema(cfg); err != nil {
		return nil, err
	}
	return sc, nil
}

// checkSourceOptions checks a table's options but its schema: what
// listing its files and reading them needs.
func checkSourceOptions(cfg *config.PluginConfig) (*sourceConfig, error) {
	if strings.TrimSpace(strings.TrimPrefix(cfg.String("path"), "file://")) == "" {
		// filepath.Clean("") is ".": an empty path would read the
		// current folder.
		return nil, cfg.Errorf("path", "must not be empty")
	}
	sc := &sourceConfig{root: localPath(cfg.String("path")), format: cfg.String("file_format_type")}
	// textual formats are read as a byte stream: gzip applies to them.
	textual := sc.format != formatParquet && sc.format != formatORC && sc.format != formatBinary && sc.format != formatExcel
	switch c := cfg.String("compress_codec"); c {
	case "gzip", "gz":
		sc.gzip = textual
	case "lzo":
		if !textual {
			return nil, cfg.Errorf("compress_codec", "lzo applies to text, csv, json and xml files, not %s", sc.format)
		}
		sc.lzo = true
	}
	switch c := cfg.String("archive_compress_codec"); c {
	case "gz":
		// SeaTunnel gunzips an excel file too (AbstractReadStrategy's GZ
		// archive), but not for compress_codec.
		sc.gzip = textual || sc.format == formatExcel
	case "zip", "tar", "tar_gz":
		if !textual && sc.format != formatExcel {
			return nil, cfg.Errorf("archive_compress_codec", "%s archives of %s files are not supported (text, csv, json, xml and excel)", c, sc.format)
		}
		sc.archive = c
	}
	sc.sheet = cfg.String("sheet_name")
	var err error
	if sc.latin1, sc.charset, err = encodingOf(cfg); err != nil {
		return nil, err
	}
	if sc.values.times, err = timeFormatsOf(cfg); err != nil {
		return nil, err
	}
	if cfg.Has("null_format") {
		sc.values.nullFormat, sc.values.hasNull = cfg.String("null_format"), true
	}
	sc.delim = "\u0001"
	if sc.format == formatCSV {
		sc.delim = ","
	}
	if cfg.Has("field_delimiter") {
		if sc.delim = cfg.String("field_delimiter"); sc.delim == "" {
			return nil, cfg.Errorf("field_delimiter", "must not be empty")
		}
	}
	if sc.format == formatText || sc.format == formatXML || sc.format == formatExcel {
		lit, re, err := textDelimiter(sc.delim)
		if err != nil {
			return nil, cfg.Errorf("field_delimiter", "%q is not a regular expression (SeaTunnel splits text records with String.split): %v", sc.delim, err)
		}
		sc.delim, sc.delimRE = lit, re
	}
	sc.rowDelim = "\n"
	if sc.format == formatText {
		if sc.rowDelim = cfg.String("row_delimiter"); sc.rowDelim == "" {
			return nil, cfg.Errorf("row_delimiter", "must not be empty")
		}
	}
	q := cfg.String("quote_char")
	if len(q) != 1 {
		return nil, cfg.Errorf("quote_char", "must be one character, got %q", q)
	}
	sc.quote = q[0]
	if sc.skipHeader = cfg.Int("skip_header_row_number"); sc.skipHeader < 0 {
		return nil, cfg.Errorf("skip_header_row_number", "must not be negative")
	}
	sc.csvHeader = sc.format == formatCSV && cfg.Bool("csv_use_header_line")
	if sc.format == formatXML {
		if !cfg.Has("xml_row_tag") || !cfg.Has("xml_use_attr_format") || cfg.String("xml_row_tag") == "" {
			return nil, cfg.Errorf("xml_row_tag", "xml files need xml_row_tag and xml_use_attr_format (SeaTunnel's XmlReadStrategy requires both)")
		}
		sc.xmlRowTag, sc.xmlAttr = cfg.String("xml_row_tag"), cfg.Bool("xml_use_attr_format")
	}
	return sc, nil
}

// resolveSchema sets the output and data fields from the schema option,
// the format and the listed files.
func (sc *sourceConfig) resolveSchema(cfg *config.PluginConfig) error {
	var err error
	table := defaultTable
	switch {
	case sc.format == formatBinary:
		// SeaTunnel's BinaryReadStrategy: a fixed layout, whatever schema
		// says.
		sc.data = binaryFields
	case len(sc.files) == 0 && (!cfg.Has("schema") || schemaEmpty(cfg)):
		// Nothing to read: SeaTunnel's BaseFileSourceConfig.parseCatalogTable
		// returns the table before any format looks at a file, so an empty
		// folder reads zero rows of its simple text table (one content
		// field) without a schema, and of a table of no columns with one
		// that declares none (schema {}, or only its table).
		if cfg.Has("schema") {
			table = schemaTable(cfg)
		} else {
			sc.content = true
			sc.data = []row.Field{{Name: "content", Type: row.String, Nullable: true}}
		}
	case sc.format == formatORC && len(sc.files) > 0:
		if sc.fileSchema == nil {
			if table, sc.data, err = orcSourceSchema(cfg, sc.files); err != nil {
				return err
			}
			if err := sc.keepFileSchema(cfg, table); err != nil {
				return err
			}
		}
		table, sc.data = sc.fileSchema.TableID, sc.fileSchema.Fields
	case sc.format == formatParquet && schemaEmpty(cfg):
		// schema { table = "..." } only names the table of a parquet
		// file's own schema (SeaTunnel's multi-table parquet e2e).
		table = schemaTable(cfg)
		if err := sc.parquetFileSchema(cfg, table); err != nil {
			return err
		}
	case schemaEmpty(cfg):
		// SeaTunnel's ReadonlyConfigParser does not validate the schema:
		// one without fields and columns is a table of no columns, and
		// each record reads as a row of no fields; its excel reader
		// refuses it (ExcelReadStrategy.setCatalogTable).
		if sc.format == formatExcel {
			return cfg.Errorf("schema", "has no fields: excel files need fields { ... } or columns [ ... ] (SeaTunnel: \"Schema information is not set or incorrect Schema settings\")")
		}
		table = schemaTable(cfg)
	case cfg.Has("schema"):
		s, err := config.ParseSchema(cfg.Raw("schema"), schemaTable(cfg), cfg.Where)
		if err != nil {
			return err
		}
		table, sc.data = s.TableID, s.Fields
		if sc.format == formatParquet && len(sc.files) > 0 && sc.fileSchema == nil {
			if err := checkParquetColumns(cfg, sc.files[0].path, sc.data); err != nil {
				return err
			}
			if err := sc.keepFileSchema(cfg, table); err != nil {
				return err
			}
		}
	case sc.format == formatParquet && len(sc.files) > 0:
		if err := sc.parquetFileSchema(cfg, table); err != nil {
			return err
		}
	case sc.format == formatJSON || sc.format == formatXML || sc.format == formatExcel:
		// SeaTunnel's BaseFileSourceConfig.parseCatalogTable gives these
		// formats the simple text table (one string field, content) as if
		// it were the schema: a json line's "content" key, an xml row's
		// content child (or attribute), an excel row's first cell. Not the
		// whole line as for text and csv: an xml row without content is
		// no row, a json line without the key a null.
		sc.data = []row.Field{{Name: "content", Type: row.String, Nullable: true}}
	default:
		if cfg.Has("read_columns") {
			return cfg.Errorf("read_columns", "needs a schema: text and csv files without one are read as a single content field")
		}
		sc.content = true
		sc.data = []row.Field{{Name: "content", Type: row.String, Nullable: true}}
	}

	var out []row.Field
	if cols := cfg.Strings("read_columns"); len(cols) > 0 {
		for _, name := range cols {
			j := -1
			for i, f := range sc.data {
				if f.Name == name {
					j = i
				}
			}
			if j < 0 {
				return cfg.Errorf("read_columns", "%q is not a field of the schema", name)
			}
			sc.proj = append(sc.proj, j)
			out = append(out, sc.data[j])
		}
	} else {
		for i, f := range sc.data {
			sc.proj = append(sc.proj, i)
			out = append(out, f)
		}
	}
	if cfg.Bool("parse_partition_from_path") && len(sc.files) > 0 && sc.format != formatBinary {
		keys, _ := partitionsOf(sc.root, sc.files[0].path)
		for _, k := range keys {
			dup := false
			for _, f := range out {
				dup = dup || f.Name == k
			}
			if !dup {
				sc.partKeys = append(sc.partKeys, k)
				out = append(out, row.Field{Name: k, Type: row.String, Nullable: true})
			}
		}
	}
	if sc.schema, err = row.NewSchema(table, out...); err != nil {
		return cfg.Errorf("schema", "%v", err)
	}
	return nil
}

// parquetFileSchema sets the data fields to the first parquet file's
// columns, read once (by Resolve).
func (sc *sourceConfig) parquetFileSchema(cfg *config.PluginConfig, table string) error {
	if sc.fileSchema == nil {
		var err error
		if sc.data, err = parquetSchemaOf(sc.files[0].path); err != nil {
			return cfg.Errorf("path", "%v", err)
		}
		if err := sc.keepFileSchema(cfg, table); err != nil {
			return err
		}
	}
	sc.data = sc.fileSchema.Fields
	return nil
}

// keepFileSchema keeps the data fields read from (or checked against) the
// first file, for the resolved listing.
func (sc *sourceConfig) keepFileSchema(cfg *config.PluginConfig, table string) error {
	s, err := row.NewSchema(table, sc.data...)
	if err != nil {
		return cfg.Errorf("path", "%s: %v", sc.files[0].path, err)
	}
	sc.fileSchema = s
	return nil
}

// orcSourceSchema is the table and the data fields of an orc source: the
// first file's columns (SeaTunnel reads the schema from the file), their
// types changed by the schema option's where they convert, and the table
// named by schema.table or plugin_output.
func orcSourceSchema(cfg *config.PluginConfig, files []fileInfo) (string, []row.Field, error) {
	table := defaultTable
	var user []row.Field
	if cfg.Has("schema") {
		if !schemaHasColumns(cfg) {
			if t := cfg.Raw("schema").Get("table"); t != nil {
				table = t.String()
			}
		} else {
			s, err := config.ParseSchema(cfg.Raw("schema"), schemaTable(cfg), cfg.Where)
			if err != nil {
				return "", nil, err
			}
			table, user = s.TableID, s.Fields
		}
	}
	data, err := orcSchemaOf(files[0].path, cfg.Strings("read_columns"), user)
	if err != nil {
		key := "path"
		if cfg.Has("read_columns") {
			key = "read_columns"
		}
		return "", nil, cfg.Errorf(key, "%v", err)
	}
	return table, data, nil
}

// schemaHasColumns tells whether the schema option declares fields or
// columns.
func schemaHasColumns(cfg *config.PluginConfig) bool {
	v := cfg.Raw("schema")
	return v != nil && (v.Get("fields") != nil || v.Get("columns") != nil)
}

// schemaEmpty tells whether the schema option is an object that declares
// neither fields nor columns (schema {}, or only its table).
func schemaEmpty(cfg *config.PluginConfig) bool {
	v := cfg.Raw("schema")
	return v != nil && v.Kind == hocon.Object && !schemaHasColumns(cfg)
}

// schemaTable is the table the schema option names: schema.table, else
// plugin_output (result_table_name) if any, else default.default.default
// (SeaTunnel's CatalogTableUtil.buildWithConfig).
func schemaTable(cfg *config.PluginConfig) string {
	if v := cfg.Raw("schema"); v != nil && v.Kind == hocon.Object {
		if t := v.Get("table"); t != nil {
			return t.String()
		}
	}
	if out := strings.TrimSpace(cfg.String("plugin_output")); out != "" {
		return out
	}
	return defaultTable
}

// checkParquetColumns checks at plan time that a parquet file has every
// field of the schema option.
func checkParquetColumns(cfg *config.PluginConfig, path string, want []row.Field) error {
	have, err := parquetSchemaOf(path)
	if err != nil {
		return cfg.Errorf("path", "%v", err)
	}
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || strings.EqualFold(h.Name, w.Name)
		}
		if !found {
			return cfg.Errorf("schema", "field %q is not a column of %s", w.Name, path)
		}
	}
	return nil
}

// source is a configured LocalFile source. It is bounded, as SeaTunnel's:
// the files are listed once.
type source struct {
	cfg *sourceConfig
}

var _ connectors.Source = (*source)(nil)

func (s *source) Tables() []*row.Schema { return []*row.Schema{s.cfg.schema} }

func (s *source) Boundedness() connectors.Boundedness { return connectors.Bounded }

func (s *source) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	return newEnumerator(ctx, s.cfg, state)
}

func (s *source) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return newReader(ctx, s.cfg), nil
}

// dataFields are the data fields the output reads, in output order.
func (sc *sourceConfig) dataFields() []row.Field {
	out := make([]row.Field, len(sc.proj))
	for j, i := range sc.proj {
		out[j] = sc.data[i]
	}
	return out
}

// codec is the compression of the files' streams: "gzip", "lzo" or "".
func (sc *sourceConfig) codec() string {
	switch {
	case sc.gzip:
		return "gzip"
	case sc.lzo:
		return "lzo"
	}
	return ""
}

func (sc *sourceConfig) String() string {
	return fmt.Sprintf("LocalFile(%s %s)", sc.format, sc.root)
}
