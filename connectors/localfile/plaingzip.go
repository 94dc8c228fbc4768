package localfile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/stactor/stactor/config"
)

// Plain files under a gzip codec. SeaTunnel's text, csv and json writers
// know only lzo: with compress_codec gzip they log a warning and write the
// file uncompressed under its .gz name (<name>.gz.txt), and its readers
// read such a file plain too. stactor's writer gzips for real; its reader
// gunzips a file that starts with gzip's magic and reads any other as it
// is, with a plan warning naming the file (placed at compress_codec, or
// archive_compress_codec, when the job is resolved: resolve.go), so files
// SeaTunnel wrote read here as they do in SeaTunnel.

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// startsGzip tells whether the stream br reads starts with gzip's magic;
// it reads nothing off the stream.
func startsGzip(br *bufio.Reader) bool {
	head, _ := br.Peek(len(gzipMagic))
	return bytes.Equal(head, gzipMagic)
}

// warnPlainGzip records, at the option that asks for gzip, a plan
// warning for each listed file of a gunzipping source that is not gzip
// and is read plain. Files inside archives are not looked into at plan
// time (they are read plain too, without a warning).
func warnPlainGzip(ctx context.Context, cfg *config.PluginConfig, sc *sourceConfig, files []fileInfo) error {
	if !sc.gzip || sc.archive != "" {
		return nil
	}
	key := "compress_codec"
	if c := cfg.String(key); c != "gzip" && c != "gz" {
		key = "archive_compress_codec"
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		plain, err := notGzip(f.path)
		if err != nil {
			return cfg.Errorf("path", "%v", err)
		}
		if plain {
			cfg.Warnf(key, "%s is not gzip (it does not start with gzip's magic bytes 1f 8b): it is read uncompressed, as SeaTunnel reads the gzip files its text, csv and json writers write plain", f.path)
		}
	}
	return nil
}

// notGzip tells whether the file at path does not start with gzip's magic.
func notGzip(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(gzipMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return !bytes.Equal(head[:n], gzipMagic), nil
}
