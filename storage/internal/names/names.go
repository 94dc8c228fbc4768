// Package names is the naming the checkpoint storage backends share: the
// one-to-one escaping of job ids and state names into one element of a
// backend's namespace (a file name, a NATS token), the decimal numbers and
// "pipeline-<p>" elements in keys and paths, and state handles. What a
// backend's names may hold differs, so each backend gives its own Escaper.
package names

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stactor/stactor/storage"
)

// MaxInt32 bounds pipelines and attempts, which travel as int32.
const MaxInt32 = 1<<31 - 1

// An Escaper maps job ids and state names one-to-one onto strings a backend
// can use as one name: the bytes Keep accepts stay, every other byte becomes
// Esc and two upper-case hex digits.
type Escaper struct {
	// Esc introduces an escaped byte; Keep must never keep it.
	Esc byte
	// Keep reports whether byte s[i] stays as it is.
	Keep func(s string, i int) bool
	// MaxLen bounds an escaped name, in bytes.
	MaxLen int
}

// Plain reports whether c is a letter, a digit, '-' or '_': what every
// backend keeps.
func Plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// Escape escapes a non-empty name; a name that is empty or too long once
// escaped is an error wrapping storage.ErrInvalid.
func (e Escaper) Escape(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty name", storage.ErrInvalid)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; e.Keep(s, i) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%c%02X", e.Esc, c)
		}
	}
	if b.Len() > e.MaxLen {
		return "", fmt.Errorf("%w: name %.40q... is too long (%d bytes escaped, at most %d)", storage.ErrInvalid, s, b.Len(), e.MaxLen)
	}
	return b.String(), nil
}

// EscapeJob escapes a job id.
func (e Escaper) EscapeJob(job string) (string, error) {
	esc, err := e.Escape(job)
	if err != nil {
		return "", fmt.Errorf("job id: %w", err)
	}
	return esc, nil
}

// Unescape inverts Escape; ok is false for anything Escape would not have
// produced (so stray entries in a listing are passed over).
func (e Escaper) Unescape(esc string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(esc); i++ {
		if esc[i] != e.Esc {
			b.WriteByte(esc[i])
			continue
		}
		if i+2 >= len(esc) {
			return "", false
		}
		v, err := strconv.ParseUint(esc[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	s := b.String()
	if again, err := e.Escape(s); err != nil || again != esc {
		return "", false
	}
	return s, true
}

// ParseCount parses a non-negative decimal number written by
// strconv.FormatInt, rejecting signs and leading zeros so that one number
// has one spelling (and one key or file).
func ParseCount(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// CheckPipeline is an error wrapping storage.ErrInvalid for a pipeline
// number out of range.
func CheckPipeline(p int) error {
	if p < 0 || p > MaxInt32 {
		return fmt.Errorf("%w: pipeline %d", storage.ErrInvalid, p)
	}
	return nil
}

// Pipeline is a pipeline's element in keys and paths: "pipeline-<p>".
func Pipeline(p int) string { return "pipeline-" + strconv.Itoa(p) }

// ParsePipeline accepts exactly what Pipeline produces.
func ParsePipeline(s string) (int, bool) {
	n, ok := strings.CutPrefix(s, "pipeline-")
	if !ok {
		return 0, false
	}
	v, ok := ParseCount(n)
	if !ok || v > MaxInt32 {
		return 0, false
	}
	return int(v), true
}
