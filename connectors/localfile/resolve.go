package localfile

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Resolve lists the files, once per job on the master (DESIGN §2): the
// folder walk, the archives' entries, the plain-gzip check (which opens
// every listed file) and the schema of the first parquet or orc file run
// here, and the listing with that schema travels in the resolved plan, so
// Create — on the master and again for every subtask — does not list or
// open anything to know what to read. The planner's
// warnings come from the plugin's config: a table's warnings (a
// tables_configs entry is validated into a config of its own) are kept
// in it.

// listingVersion is the version of the resolved bytes' layout: this byte,
// then the listing as JSON, deflated. Every DeployTask carries the plan, so
// the listing is kept small: a folder's paths share their prefixes, which
// deflate stores as back-references.
const listingVersion = 2

// listing is the resolved form of a LocalFile source: per table (the
// block's, or one per tables_configs entry, in order) the files read.
type listing struct {
	Tables []listedTable `json:"tables"`
}

type listedTable struct {
	Files []listedFile `json:"files"`
	// Schema is the first file's table and data fields (parquet, orc;
	// row.EncodeSchema), absent for the other formats.
	Schema []byte `json:"schema,omitempty"`
}

type listedFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

func resolveSource(ctx context.Context, cfg *config.PluginConfig, _ connectors.JobContext) ([]byte, error) {
	tables, err := tableConfigs(cfg)
	if err != nil {
		return nil, err
	}
	var l listing
	for _, tcfg := range tables {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sc, err := checkSourceOptions(tcfg)
		if err != nil {
			return nil, err
		}
		files, err := listTable(tcfg, sc)
		if err != nil {
			return nil, err
		}
		if err := warnPlainGzip(ctx, tcfg, sc, files); err != nil {
			return nil, err
		}
		cfg.KeepWarnings(tcfg)
		sc.files = files
		if err := sc.resolveSchema(tcfg); err != nil {
			return nil, err
		}
		lt := listedTable{Files: make([]listedFile, len(files))}
		for i, f := range files {
			lt.Files[i] = listedFile{Path: f.path, Size: f.size}
		}
		if sc.fileSchema != nil {
			lt.Schema = row.EncodeSchema(sc.fileSchema)
		}
		l.Tables = append(l.Tables, lt)
	}
	return encodeListing(l)
}

func encodeListing(l listing) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte(listingVersion)
	zw, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(zw).Encode(l); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// resolvedTable is what Resolve found for one table.
type resolvedTable struct {
	files  []fileInfo
	schema *row.Schema // sourceConfig.fileSchema; nil if none
}

// errNotResolved says Create got no listing: the plan was not resolved
// by this connector's Resolve (a plan written by an older stactor).
var errNotResolved = errors.New("the resolved plan has no file listing for this source (LocalFile lists its files when the job is resolved): submit the job again")

// decodeListing is the files of each table of a resolved LocalFile source.
func decodeListing(b []byte) ([]resolvedTable, error) {
	if len(b) == 0 {
		return nil, errNotResolved
	}
	if b[0] != listingVersion {
		return nil, fmt.Errorf("the resolved file listing is of version %d, this stactor reads %d: submit the job again", b[0], listingVersion)
	}
	var l listing
	zr := flate.NewReader(bytes.NewReader(b[1:]))
	defer zr.Close()
	if err := json.NewDecoder(zr).Decode(&l); err != nil {
		return nil, fmt.Errorf("the resolved file listing: %w", err)
	}
	out := make([]resolvedTable, len(l.Tables))
	for t, lt := range l.Tables {
		out[t].files = make([]fileInfo, len(lt.Files))
		for i, f := range lt.Files {
			out[t].files[i] = fileInfo{path: f.Path, size: f.Size}
		}
		if lt.Schema != nil {
			s, err := row.DecodeSchema(lt.Schema)
			if err != nil {
				return nil, fmt.Errorf("the resolved file listing: table %d's schema: %w", t, err)
			}
			out[t].schema = s
		}
	}
	return out, nil
}
