package natschan

import (
	"fmt"
	"strconv"
	"strings"
)

// Header names of a channel message (see the package doc).
const (
	HeaderAttempt = "Stactor-Attempt"
	HeaderTerm    = "Stactor-Term"
	HeaderFrom    = "Stactor-From"
	HeaderKind    = "Stactor-Kind"
	HeaderSeq     = "Stactor-Seq"
	HeaderBarrier = "Stactor-Barrier"
	HeaderPart    = "Stactor-Part"
	HeaderType    = "Stactor-Type"
)

// Values of HeaderKind.
const (
	KindBatch   = "batch"
	KindEnd     = "end"
	KindBarrier = "barrier"
)

// headerReserve is what a message keeps of max_payload for its headers,
// which NATS counts in it. Our headers take under 300 bytes: "NATS/1.0",
// eight short names, numbers of at most 20 digits and a barrier type of at
// most maxTypeLen bytes.
const headerReserve = 512

// maxTypeLen bounds a barrier's type, so that headers fit headerReserve.
const maxTypeLen = 128

// minPart is the least payload a part may carry; a server whose max_payload
// leaves less is misconfigured for data.
const minPart = 4 << 10

// maxParts bounds the parts of one batch a receiver accepts (1 TiB at the
// default max_payload), so that a corrupt header cannot claim more.
const maxParts = 1 << 20

// validType checks a barrier type: printable ASCII, so that it is a valid
// header value, and short.
func validType(typ string) error {
	if len(typ) > maxTypeLen {
		return fmt.Errorf("barrier type of %d bytes (at most %d)", len(typ), maxTypeLen)
	}
	for i := 0; i < len(typ); i++ {
		if c := typ[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("barrier type %q: byte %#x", typ, c)
		}
	}
	return nil
}

func formatPart(i, n int) string {
	return strconv.Itoa(i) + "/" + strconv.Itoa(n)
}

// parsePart reads "i/n"; an absent header is part 0 of 1.
func parsePart(s string) (i, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || n > maxParts || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("part %q", s)
	}
	return i, n, nil
}
