package split

import "regexp"

// javaSplit appends to dst the parts of s as Java's s.split(sep, limit)
// returns them for limit > 0: at most limit parts, the last holding the
// rest of s; trailing empty parts are kept; a zero-width match at the very
// start yields no leading empty part; s without any match is one part.
func javaSplit(dst []string, sep *regexp.Regexp, s string, limit int) []string {
	index, start := 0, len(dst)
	for _, m := range sep.FindAllStringIndex(s, -1) {
		if len(dst)-start >= limit-1 {
			break
		}
		if m[0] == 0 && m[1] == 0 {
			continue
		}
		dst = append(dst, s[index:m[0]])
		index = m[1]
	}
	if index == 0 {
		return append(dst, s)
	}
	return append(dst, s[index:])
}
