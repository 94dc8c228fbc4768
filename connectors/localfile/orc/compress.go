package orc

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// defaultBlockSize is the compression chunk size ORC writers use, and the
// one assumed when a compressed file does not say.
const defaultBlockSize = 256 << 10

// maxBlockSize bounds the chunk size a file may claim, so that a damaged
// postscript cannot make the reader allocate without limit.
const maxBlockSize = 64 << 20

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockSize))
})

var zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
})

// maxStreamBytes bounds what one stream may decompress to.
const maxStreamBytes = 1 << 30

// decompress decodes a compressed stream: chunks, each with a 3-byte
// header of (length*2 + isOriginal), little endian.
func decompress(kind Compression, blockSize int, src []byte) ([]byte, error) {
	if kind == None {
		return src, nil
	}
	var out, scratch []byte
	for len(src) > 0 {
		if len(out) > maxStreamBytes {
			return nil, fmt.Errorf("stream decompresses to more than %d bytes", maxStreamBytes)
		}
		if len(src) < 3 {
			return nil, fmt.Errorf("truncated compression chunk header")
		}
		h := int(src[0]) | int(src[1])<<8 | int(src[2])<<16
		n, original := h>>1, h&1 == 1
		src = src[3:]
		if n > len(src) {
			return nil, fmt.Errorf("compression chunk of %d bytes past the end of its stream (%d left)", n, len(src))
		}
		chunk := src[:n]
		src = src[n:]
		if original {
			out = append(out, chunk...)
			continue
		}
		var err error
		if out, scratch, err = decompressChunk(kind, blockSize, out, scratch, chunk); err != nil {
			return nil, fmt.Errorf("%s chunk: %w", kind, err)
		}
	}
	return out, nil
}

// decompressChunk appends the decoding of one chunk to out; a chunk never
// decodes to more than blockSize bytes.
func decompressChunk(kind Compression, blockSize int, out, scratch, chunk []byte) ([]byte, []byte, error) {
	out, err := decodeChunk(kind, blockSize, out, &scratch, chunk)
	return out, scratch, err
}

func decodeChunk(kind Compression, blockSize int, out []byte, scratch *[]byte, chunk []byte) ([]byte, error) {
	switch kind {
	case Zlib:
		r := flate.NewReader(bytes.NewReader(chunk))
		defer r.Close()
		start := len(out)
		buf := bytes.NewBuffer(out)
		if _, err := io.Copy(buf, io.LimitReader(r, int64(blockSize)+1)); err != nil {
			return nil, err
		}
		out = buf.Bytes()
		if len(out)-start > blockSize {
			return nil, fmt.Errorf("decodes to more than the block size %d", blockSize)
		}
		return out, nil
	case Snappy:
		n, err := snappy.DecodedLen(chunk)
		if err != nil {
			return nil, err
		}
		if n > blockSize {
			return nil, fmt.Errorf("decodes to %d bytes, more than the block size %d", n, blockSize)
		}
		dst, err := snappy.Decode(make([]byte, n), chunk)
		if err != nil {
			return nil, err
		}
		return append(out, dst...), nil
	case LZ4:
		if len(*scratch) < blockSize {
			*scratch = make([]byte, blockSize)
		}
		dst := (*scratch)[:blockSize]
		n, err := lz4.UncompressBlock(chunk, dst)
		if err != nil {
			return nil, err
		}
		return append(out, dst[:n]...), nil
	case Zstd:
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		dst, err := d.DecodeAll(chunk, nil)
		if err != nil {
			return nil, err
		}
		if len(dst) > blockSize {
			return nil, fmt.Errorf("decodes to %d bytes, more than the block size %d", len(dst), blockSize)
		}
		return append(out, dst...), nil
	case LZO:
		return nil, fmt.Errorf("LZO-compressed ORC files are not supported (NONE, ZLIB, SNAPPY, LZ4, ZSTD)")
	}
	return nil, fmt.Errorf("unknown compression kind %d", int(kind))
}

// compress appends the chunks of src to dst; a chunk that does not shrink
// is stored as it is (isOriginal).
func compress(kind Compression, blockSize int, dst, src []byte) ([]byte, error) {
	if kind == None {
		return append(dst, src...), nil
	}
	var zw *flate.Writer
	for len(src) > 0 {
		chunk := src[:min(blockSize, len(src))]
		src = src[len(chunk):]
		var c []byte
		switch kind {
		case Zlib:
			var buf bytes.Buffer
			if zw == nil {
				var err error
				if zw, err = flate.NewWriter(&buf, flate.DefaultCompression); err != nil {
					return nil, err
				}
			} else {
				zw.Reset(&buf)
			}
			zw.Write(chunk)
			if err := zw.Close(); err != nil {
				return nil, err
			}
			c = buf.Bytes()
		case Snappy:
			c = snappy.Encode(nil, chunk)
		case LZ4:
			c = make([]byte, lz4.CompressBlockBound(len(chunk)))
			n, err := lz4.CompressBlock(chunk, c, nil)
			if err != nil {
				return nil, err
			}
			c = c[:n] // 0: incompressible
			if n == 0 {
				c = nil
			}
		case Zstd:
			e, err := zstdEncoder()
			if err != nil {
				return nil, err
			}
			c = e.EncodeAll(chunk, nil)
		default:
			return nil, fmt.Errorf("cannot write %s compression", kind)
		}
		if c == nil || len(c) >= len(chunk) {
			h := len(chunk)*2 + 1
			dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
			dst = append(dst, chunk...)
			continue
		}
		h := len(c) * 2
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
		dst = append(dst, c...)
	}
	return dst, nil
}
