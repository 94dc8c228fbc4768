package natschan

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultPrefix is the subject prefix when none is configured (DESIGN §8).
const DefaultPrefix = "stactor"

// Scope is one attempt of one pipeline of a job, started by the leader of
// one term: the channels of a Sender and a Receiver that talk to each other
// have the same Scope.
type Scope struct {
	Job      string
	Term     uint64 // the leader's term (0 on one machine)
	Attempt  int32
	Pipeline int32
}

// Subject is the subject of channel edge → subtask in scope s:
// <prefix>.data.<job>.<term>.<attempt>.<pipeline>.<edge>.<subtask>. The job
// id is escaped into a single token (see EscapeToken), so no job id can add
// tokens or wildcards. (DESIGN §8 lists the subject without the term; §6
// asks for the term in every subject, so it is a token of its own before
// the attempt.)
func Subject(prefix string, s Scope, edge, subtask int32) (string, error) {
	base, err := scopeSubject(prefix, s)
	if err != nil {
		return "", err
	}
	if edge < 0 || subtask < 0 {
		return "", fmt.Errorf("%w: edge %d, subtask %d", ErrSubject, edge, subtask)
	}
	return base + "." + strconv.FormatInt(int64(edge), 10) + "." + strconv.FormatInt(int64(subtask), 10), nil
}

// receiveSubject is every edge's subject to subtask in scope s.
func receiveSubject(prefix string, s Scope, subtask int32) (string, error) {
	base, err := scopeSubject(prefix, s)
	if err != nil {
		return "", err
	}
	if subtask < 0 {
		return "", fmt.Errorf("%w: subtask %d", ErrSubject, subtask)
	}
	return base + ".*." + strconv.FormatInt(int64(subtask), 10), nil
}

func scopeSubject(prefix string, s Scope) (string, error) {
	if err := validPrefix(prefix); err != nil {
		return "", err
	}
	if s.Job == "" {
		return "", fmt.Errorf("%w: empty job id", ErrSubject)
	}
	if s.Attempt < 0 || s.Pipeline < 0 {
		return "", fmt.Errorf("%w: attempt %d, pipeline %d", ErrSubject, s.Attempt, s.Pipeline)
	}
	return prefix + ".data." + EscapeToken(s.Job) + "." + strconv.FormatUint(s.Term, 10) + "." + strconv.FormatInt(int64(s.Attempt), 10) +
		"." + strconv.FormatInt(int64(s.Pipeline), 10), nil
}

// validPrefix accepts one or more dot-separated tokens of letters, digits,
// '-' and '_': no wildcards, no whitespace, no '$' system subjects.
func validPrefix(p string) error {
	if p == "" {
		return fmt.Errorf("%w: empty prefix", ErrSubject)
	}
	for tok := range strings.SplitSeq(p, ".") {
		if tok == "" {
			return fmt.Errorf("%w: prefix %q has an empty token", ErrSubject, p)
		}
		for i := 0; i < len(tok); i++ {
			if !plain(tok[i]) {
				return fmt.Errorf("%w: prefix %q: character %q (use letters, digits, '-', '_' and dots)", ErrSubject, p, tok[i])
			}
		}
	}
	return nil
}

func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// EscapeToken makes s one subject token: letters, digits, '-' and '_' stay,
// every other byte becomes %XX (upper-case hex). Distinct strings escape to
// distinct tokens; a string of plain characters is unchanged, so ordinary
// job ids read the same in subjects.
func EscapeToken(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// edgeOf reads the edge token of a data subject: the second to last.
func edgeOf(subject string) (int32, bool) {
	last := strings.LastIndexByte(subject, '.')
	if last < 0 {
		return 0, false
	}
	prev := strings.LastIndexByte(subject[:last], '.')
	e, err := strconv.ParseInt(subject[prev+1:last], 10, 32)
	if err != nil || e < 0 {
		return 0, false
	}
	return int32(e), true
}
