package natsserver

import "strings"

// validSubject reports whether s is a subject NATS accepts: tokens
// separated by dots, none empty. With wildcards (a subscription's
// subject), a token may be * (any one token) and the last may be > (one
// or more tokens); a publish subject has neither. A token such as a* is
// a literal, as nats-server has it.
func validSubject(s string, wildcards bool) bool {
	if s == "" {
		return false
	}
	for {
		tok, rest, more := strings.Cut(s, ".")
		switch {
		case tok == "":
			return false
		case tok == "*" || tok == ">":
			if !wildcards || tok == ">" && more {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}

// hasEmptyToken reports whether s is empty or has an empty token: a
// publish subject nats-server delivers to no one.
func hasEmptyToken(s string) bool {
	return s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..")
}

// matches reports whether the valid subject matches the valid
// subscription pattern, without allocating.
func matches(pattern, subject string) bool {
	for {
		p, prest, pmore := strings.Cut(pattern, ".")
		if p == ">" {
			return true // subject has at least one token left here
		}
		s, srest, smore := strings.Cut(subject, ".")
		if p != "*" && p != s {
			return false
		}
		if !pmore || !smore {
			return pmore == smore
		}
		pattern, subject = prest, srest
	}
}
