package localfile

import (
	"context"
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/brotli"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/lz4"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/localfile/orc"
	"github.com/stactor/stactor/row"
	"golang.org/x/text/encoding"
)

func init() {
	connectors.RegisterSink(SinkFactory)
}

// SinkFactory makes LocalFile sinks.
var SinkFactory = connectors.SinkFactory{
	Name:    "LocalFile",
	Options: sinkOptions,
	Delivery: connectors.Delivery{Summary: "exactly-once with is_enable_transaction (the default); else at-least-once", Best: connectors.ExactlyOnce,
		Of: func(cfg *config.PluginConfig, _ []*row.Schema) (connectors.Guarantee, string) {
			if cfg.Bool("is_enable_transaction") {
				return connectors.ExactlyOnce, ""
			}
			return connectors.AtLeastOnce, "is_enable_transaction = false writes files as rows arrive; a restore writes some rows again"
		}},
	Create: createSink,
}

// sinkConfig is a LocalFile sink's checked options, shared read-only by
// its writers and committers.
type sinkConfig struct {
	root   string
	format string
	input  *row.Schema
	// cols are the batch columns written, fields their fields.
	cols   []int
	fields []row.Field
	// partCols are the batch columns of partition_by, partNames their names.
	partCols  []int
	partNames []string
	partExpr  string // "" for SeaTunnel's default k0=v0/k1=v1

	// schema_save_mode and data_save_mode, applied by HandleSaveMode
	schemaSaveMode, dataSaveMode string

	transactional bool
	batchSize     int64
	singleFile    bool
	emptyFile     bool
	nameExpr      string
	timeLayout    string // filename_time_format as a Go layout
	timeKey       string // filename_time_format as written: ${yyyy.MM.dd} is a variable too
	ext           string

	// text formats
	gzip     bool
	lzo      bool
	latin1   bool
	charset  encoding.Encoding // another charset than UTF-8 and Latin-1; nil if none
	header   bool
	rowDelim string
	render   *textRender
	// parquet
	pschema *parquet.Schema
	codec   compress.Codec
	// orc
	oschema *orc.Type
	ocodec  orc.Compression
	// xml and excel
	xmlRootTag, xmlRowTag string
	xmlAttr               bool
	nestedDelim           string // field_delimiter: joins a row field's values
	sheetName             string
	times                 timeFormats
}

func createSink(cfg *config.PluginConfig, inputs []*row.Schema, _ []byte, job connectors.JobContext) (connectors.Sink, error) {
	if len(inputs) > 1 {
		return newMultiSink(cfg, inputs)
	}
	sc, err := newSinkConfig(cfg, inputs)
	if err != nil {
		return nil, err
	}
	return &sink{cfg: sc}, nil
}

func findField(s *row.Schema, name string) int {
	for i, f := range s.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func newSinkConfig(cfg *config.PluginConfig, inputs []*row.Schema) (*sinkConfig, error) {
	if len(inputs) != 1 {
		return nil, cfg.Errorf("plugin_input", "LocalFile writes one table, got %d", len(inputs))
	}
	in := inputs[0]
	// ${table_name} and the other table placeholders name the input table
	// (TablePlaceholderProcessor), so each table of a job can have its own
	// folder.
	path := replaceTablePlaceholders(cfg.String("path"), in)
	sc := &sinkConfig{root: localPath(path), format: cfg.String("file_format_type"), input: in}
	if strings.TrimSpace(path) == "" {
		return nil, cfg.Errorf("path", "must not be empty")
	}
	if sc.format == formatBinary {
		if err := checkBinaryInput(cfg, in); err != nil {
			return nil, err
		}
	}
	sc.schemaSaveMode, sc.dataSaveMode = cfg.String("schema_save_mode"), cfg.String("data_save_mode")

	// Columns, as FileSinkConfig: sink_columns (all by default, matched
	// case-insensitively), partition fields among them, and dropped from
	// the files unless is_partition_field_write_in_file.
	var names []string
	if cols := cfg.Strings("sink_columns"); len(cols) > 0 {
		names = cols
	} else {
		names = in.Names()
	}
	partitioned := cfg.Bool("have_partition") || (!cfg.Has("have_partition") && len(cfg.Strings("partition_by")) > 0)
	if partitioned {
		for _, p := range cfg.Strings("partition_by") {
			i := findField(in, p)
			if i < 0 {
				return nil, cfg.Errorf("partition_by", "%q is not a field of %s", p, in.TableID)
			}
			inCols := false
			for _, n := range names {
				inCols = inCols || strings.EqualFold(n, p)
			}
			if !inCols {
				return nil, cfg.Errorf("partition_by", "partition field %q must be one of sink_columns", p)
			}
			sc.partCols = append(sc.partCols, i)
			sc.partNames = append(sc.partNames, p)
		}
		if len(sc.partCols) == 0 {
			return nil, cfg.Errorf("partition_by", "have_partition needs partition_by")
		}
		if e := cfg.String("partition_dir_expression"); strings.TrimSpace(e) != "" {
			sc.partExpr = e
		}
	}
	for _, n := range names {
		i := findField(in, n)
		if i < 0 {
			return nil, cfg.Errorf("sink_columns", "%q is not a field of %s", n, in.TableID)
		}
		isPart := false
		for _, p := range sc.partCols {
			isPart = isPart || p == i
		}
		if isPart && !cfg.Bool("is_partition_field_write_in_file") {
			continue
		}
		sc.cols = append(sc.cols, i)
		sc.fields = append(sc.fields, in.Fields[i])
	}
	if len(sc.cols) == 0 {
		return nil, cfg.Errorf("sink_columns", "no column left to write")
	}

	sc.transactional = cfg.Bool("is_enable_transaction")
	if sc.batchSize = cfg.Int("batch_size"); sc.batchSize <= 0 {
		return nil, cfg.Errorf("batch_size", "must be positive")
	}
	sc.singleFile = cfg.Bool("single_file_mode")
	sc.emptyFile = cfg.Bool("create_empty_file_when_no_data")
	sc.nameExpr = "${transactionId}"
	if cfg.Bool("custom_filename") {
		sc.nameExpr = replaceTablePlaceholders(cfg.String("file_name_expression"), in)
		if strings.TrimSpace(sc.nameExpr) == "" {
			sc.nameExpr = "${transactionId}"
		}
		if sc.transactional && !strings.Contains(sc.nameExpr, "${transactionId}") {
			return nil, cfg.Errorf("file_name_expression", "must contain ${transactionId} when is_enable_transaction is true")
		}
	}
	sc.timeKey = cfg.String("filename_time_format")
	var err error
	if sc.timeLayout, err = javaLayout(sc.timeKey); err != nil {
		return nil, cfg.Errorf("filename_time_format", "%v", err)
	}

	codec := cfg.String("compress_codec")
	sc.nestedDelim = "\u0001"
	if d := cfg.String("field_delimiter"); cfg.Has("field_delimiter") && d != "" {
		sc.nestedDelim = d
	}
	if sc.times, err = timeFormatsOf(cfg); err != nil {
		return nil, err
	}
	switch sc.format {
	case formatXML:
		if !cfg.Has("xml_use_attr_format") {
			return nil, cfg.Errorf("xml_use_attr_format", "must be set when file_format_type is xml (SeaTunnel's FileSinkConfig requires it)")
		}
		sc.xmlAttr = cfg.Bool("xml_use_attr_format")
		sc.xmlRootTag, sc.xmlRowTag = cfg.String("xml_root_tag"), cfg.String("xml_row_tag")
		for _, k := range []string{"xml_root_tag", "xml_row_tag"} {
			if err := checkXMLName(cfg.String(k)); err != nil {
				return nil, cfg.Errorf(k, "%v", err)
			}
		}
		for _, f := range sc.fields {
			if err := checkXMLName(f.Name); err != nil {
				return nil, cfg.Errorf("sink_columns", "field %q cannot be written to xml: %v", f.Name, err)
			}
		}
	case formatExcel:
		sc.sheetName = cfg.String("sheet_name")
		if sc.sheetName == "" {
			sc.sheetName = "Sheet1"
		}
		if err := validSheetName(sc.sheetName); err != nil {
			return nil, cfg.Errorf("sheet_name", "%v", err)
		}
	}
	switch {
	case sc.format == formatBinary || sc.format == formatExcel:
		if codec != "none" {
			return nil, cfg.Errorf("compress_codec", "%s files are not compressed (none)", sc.format)
		}
		if sc.format == formatExcel {
			// excel's cells render rows' nested dates as text does
			sc.render = newTextRender(sc.nestedDelim, sc.times, false, "MINIMAL")
		}
	case sc.format == formatORC:
		c, ok := orcCodecs[codec]
		if !ok {
			return nil, cfg.Errorf("compress_codec", "%s is not supported for orc (none, zlib, snappy, lz4; gzip, zstd and brotli name the files but do not compress them, as in SeaTunnel)", codec)
		}
		sc.ocodec = c
		if sc.oschema, err = orcWriteSchema(sc.fields); err != nil {
			return nil, cfg.Errorf("file_format_type", "%v", err)
		}
	case sc.format == formatParquet:
		switch codec {
		case "none":
			sc.codec = &uncompressed.Codec{}
		case "snappy":
			sc.codec = &snappy.Codec{}
		case "gzip":
			sc.codec = &gzip.Codec{}
		case "zstd":
			sc.codec = &zstd.Codec{}
		case "lz4":
			sc.codec = &lz4.Codec{}
		case "brotli":
			sc.codec = &brotli.Codec{}
		default:
			return nil, cfg.Errorf("compress_codec", "%s is not supported for parquet (none, snappy, gzip, zstd, lz4, brotli)", codec)
		}
		if sc.pschema, err = writeSchema(sc.fields); err != nil {
			return nil, cfg.Errorf("file_format_type", "%v", err)
		}
	default:
		switch codec {
		case "none":
		case "gzip":
			sc.gzip = true
		case "lzo":
			sc.lzo = true
		default:
			return nil, cfg.Errorf("compress_codec", "%s is not supported for %s files (none, gzip or lzo)", codec, sc.format)
		}
		if sc.latin1, sc.charset, err = encodingOf(cfg); err != nil {
			return nil, err
		}
		sc.header = cfg.Bool("enable_header_write") && (sc.format == formatText || sc.format == formatCSV)
		sc.rowDelim = cfg.String("row_delimiter")
		if sc.format == formatXML {
			sc.rowDelim = "\n"
		}
		delim := "\u0001"
		if sc.format == formatCSV {
			delim = ","
		}
		if d := cfg.String("field_delimiter"); cfg.Has("field_delimiter") && d != "" {
			delim = d
		}
		sc.render = newTextRender(delim, sc.times, sc.format == formatCSV, cfg.String("csv_string_quote_mode"))
	}
	sc.ext = fileSuffix(sc.format, codec, cfg.String("filename_extension"))
	return sc, nil
}

// sink is a configured LocalFile sink. Its per-writer Committer renames
// staged files into place on the node that wrote them (DESIGN §8).
type sink struct {
	cfg *sinkConfig
}

var (
	_ connectors.WriterNodeCommitter = (*sink)(nil)
	_ connectors.StaleAborter        = (*committer)(nil)
)

// CommitsOnWriterNode: with transactions, the files are staged on the disk
// of the node that wrote them and only that node can rename them into
// place (on a shared filesystem that node can too). Without transactions
// there is nothing to commit.
func (s *sink) CommitsOnWriterNode() bool { return s.cfg.transactional }

func (s *sink) CreateWriter(_ context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	return newWriter(s.cfg, task, states)
}

func (s *sink) CreateCommitter() (connectors.Committer, error) {
	return &committer{root: s.cfg.root}, nil
}

func (sc *sinkConfig) String() string { return fmt.Sprintf("LocalFile(%s %s)", sc.format, sc.root) }
