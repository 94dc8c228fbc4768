package lzop

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
)

// The lzop container: a magic, a header (versions, method, flags, mode,
// mtime, name, checksum), then blocks of (uncompressed length, compressed
// length, checksums, data), ended by a block of length 0. A block whose
// compressed length equals its length is stored as it is.

var magic = []byte{0x89, 'L', 'Z', 'O', 0x00, '\r', '\n', 0x1a, '\n'}

// header flags
const (
	fAdler32D   = 0x00000001
	fAdler32C   = 0x00000002
	fExtraField = 0x00000040
	fCRC32D     = 0x00000100
	fCRC32C     = 0x00000200
	fMultipart  = 0x00000400
	fFilter     = 0x00000800
	fHCRC32     = 0x00001000
)

// methods of LZO1X that lzop writes
const (
	methodLZO1X1   = 1
	methodLZO1X115 = 2
	methodLZO1X999 = 3
)

// BlockSize is the uncompressed size of the blocks the Writer writes
// (lzop's default, 256 KiB).
const BlockSize = 256 << 10

// maxBlock bounds a block's size as read, against corrupt lengths.
const maxBlock = 64 << 20

// ErrFormat reports a stream that is not an lzop file.
var ErrFormat = errors.New("lzop: not an lzop file")

// Reader decompresses an lzop stream.
type Reader struct {
	r     *bufio.Reader
	flags uint32
	buf   []byte // the current block's data, unread part
	cbuf  []byte
	err   error
}

// NewReader reads the lzop header of r.
func NewReader(r io.Reader) (*Reader, error) {
	z := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	if err := z.header(); err != nil {
		return nil, err
	}
	return z, nil
}

func (z *Reader) header() error {
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(z.r, m); err != nil || !bytes.Equal(m, magic) {
		return ErrFormat
	}
	// The header checksum covers everything from the version to the name.
	var h bytes.Buffer
	var err error
	read := func(n int) []byte {
		b := make([]byte, n)
		if err == nil {
			if _, rerr := io.ReadFull(z.r, b); rerr != nil {
				err = fmt.Errorf("%w: short header", ErrFormat)
			}
			h.Write(b)
		}
		return b
	}
	u16 := func() uint16 { return binary.BigEndian.Uint16(read(2)) }
	u32 := func() uint32 { return binary.BigEndian.Uint32(read(4)) }
	version := u16()
	u16() // the LZO library's version
	if version >= 0x0940 {
		u16() // the version needed to extract
	}
	method := read(1)[0]
	if version >= 0x0940 {
		read(1) // level
	}
	z.flags = u32()
	if z.flags&fFilter != 0 {
		u32()
	}
	u32() // mode
	u32() // mtime
	if version >= 0x0940 {
		u32() // mtime, high word
	}
	read(int(read(1)[0])) // the name
	if err != nil {
		return err
	}
	if version < 0x0900 {
		return fmt.Errorf("%w: version %#x is too old", ErrFormat, version)
	}
	switch method {
	case methodLZO1X1, methodLZO1X115, methodLZO1X999:
	default:
		return fmt.Errorf("%w: compression method %d is not LZO1X", ErrFormat, method)
	}
	if z.flags&fMultipart != 0 {
		return fmt.Errorf("%w: multipart archives are not supported", ErrFormat)
	}
	if z.flags&fFilter != 0 {
		return fmt.Errorf("%w: filters are not supported", ErrFormat)
	}
	sum := h.Bytes()
	var want [4]byte
	if _, err := io.ReadFull(z.r, want[:]); err != nil {
		return fmt.Errorf("%w: short header", ErrFormat)
	}
	if checksum(z.flags&fHCRC32 != 0, sum) != binary.BigEndian.Uint32(want[:]) {
		return fmt.Errorf("%w: header checksum mismatch", ErrFormat)
	}
	if z.flags&fExtraField != 0 {
		var lb [4]byte
		if _, err := io.ReadFull(z.r, lb[:]); err != nil {
			return fmt.Errorf("%w: short extra field", ErrFormat)
		}
		if _, err := io.CopyN(io.Discard, z.r, int64(binary.BigEndian.Uint32(lb[:]))+4); err != nil {
			return fmt.Errorf("%w: short extra field", ErrFormat)
		}
	}
	return nil
}

func (z *Reader) u32() (uint32, error) {
	var b [4]byte
	if _, err := io.ReadFull(z.r, b[:]); err != nil {
		return 0, fmt.Errorf("lzop: truncated block: %w", io.ErrUnexpectedEOF)
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// next reads the next block; io.EOF after the last.
func (z *Reader) next() error {
	ulen, err := z.u32()
	if err != nil {
		return err
	}
	if ulen == 0 {
		return io.EOF
	}
	clen, err := z.u32()
	if err != nil {
		return err
	}
	if ulen > maxBlock || clen > maxBlock || clen > ulen {
		return fmt.Errorf("lzop: corrupt block lengths %d and %d", ulen, clen)
	}
	var dsum, csum uint32
	hasD, hasC := z.flags&(fAdler32D|fCRC32D) != 0, false
	if hasD {
		if dsum, err = z.u32(); err != nil {
			return err
		}
	}
	if clen < ulen && z.flags&(fAdler32C|fCRC32C) != 0 {
		hasC = true
		if csum, err = z.u32(); err != nil {
			return err
		}
	}
	if cap(z.cbuf) < int(clen) {
		z.cbuf = make([]byte, clen)
	}
	data := z.cbuf[:clen]
	if _, err := io.ReadFull(z.r, data); err != nil {
		return fmt.Errorf("lzop: truncated block: %w", io.ErrUnexpectedEOF)
	}
	if hasC && checksum(z.flags&fCRC32C != 0, data) != csum {
		return fmt.Errorf("lzop: compressed block checksum mismatch")
	}
	if clen < ulen {
		if data, err = Decompress(data, int(ulen)); err != nil {
			return err
		}
	} else {
		data = append([]byte(nil), data...)
	}
	if hasD && checksum(z.flags&fCRC32D != 0, data) != dsum {
		return fmt.Errorf("lzop: block checksum mismatch")
	}
	z.buf = data
	return nil
}

func checksum(crc bool, b []byte) uint32 {
	if crc {
		return crc32.ChecksumIEEE(b)
	}
	return adler32.Checksum(b)
}

// Read reads uncompressed data.
func (z *Reader) Read(p []byte) (int, error) {
	for len(z.buf) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		if err := z.next(); err != nil {
			z.err = err
			return 0, err
		}
	}
	n := copy(p, z.buf)
	z.buf = z.buf[n:]
	return n, nil
}

// Writer compresses to an lzop stream: LZO1X blocks of BlockSize with
// Adler-32 checksums of the uncompressed data, as lzop writes by default.
type Writer struct {
	w      io.Writer
	buf    []byte
	cbuf   []byte
	err    error
	closed bool
}

// NewWriter writes the lzop header to w.
func NewWriter(w io.Writer) *Writer {
	z := &Writer{w: w, buf: make([]byte, 0, BlockSize)}
	var h []byte
	h = binary.BigEndian.AppendUint16(h, 0x1030) // lzop 1.03
	h = binary.BigEndian.AppendUint16(h, 0x2080) // LZO 2.08
	h = binary.BigEndian.AppendUint16(h, 0x0940) // needed to extract
	h = append(h, methodLZO1X1, 5)
	h = binary.BigEndian.AppendUint32(h, fAdler32D)
	h = binary.BigEndian.AppendUint32(h, 0o100644) // mode
	h = binary.BigEndian.AppendUint32(h, 0)        // mtime
	h = binary.BigEndian.AppendUint32(h, 0)
	h = append(h, 0) // no name
	out := append(append([]byte(nil), magic...), h...)
	out = binary.BigEndian.AppendUint32(out, adler32.Checksum(h))
	_, z.err = w.Write(out)
	return z
}

// Write buffers p, writing full blocks.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(z.buf[len(z.buf):BlockSize], p)
		z.buf = z.buf[:len(z.buf)+k]
		p = p[k:]
		if len(z.buf) == BlockSize {
			if err := z.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (z *Writer) flush() error {
	if len(z.buf) == 0 {
		return nil
	}
	z.cbuf = Compress(z.cbuf[:0], z.buf)
	data := z.cbuf
	if len(data) >= len(z.buf) {
		data = z.buf // stored
	}
	var h [12]byte
	binary.BigEndian.PutUint32(h[0:], uint32(len(z.buf)))
	binary.BigEndian.PutUint32(h[4:], uint32(len(data)))
	binary.BigEndian.PutUint32(h[8:], adler32.Checksum(z.buf))
	if _, z.err = z.w.Write(h[:]); z.err == nil {
		_, z.err = z.w.Write(data)
	}
	z.buf = z.buf[:0]
	return z.err
}

// Close writes the last block and the end marker; it does not close the
// underlying writer.
func (z *Writer) Close() error {
	if z.closed {
		return z.err
	}
	z.closed = true
	if err := z.flush(); err != nil {
		return err
	}
	if z.err == nil {
		_, z.err = z.w.Write([]byte{0, 0, 0, 0})
	}
	return z.err
}
