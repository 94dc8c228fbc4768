package config

import (
	"sort"
	"strings"
)

// suggest returns the declared key closest to an unknown one, or "": the
// same key with other separators or case (row_num for row.num), or one
// within two edits of a key of four letters or more.
func suggest(unknown string, known map[string]bool) string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' {
				return '.'
			}
			return r
		}, strings.ToLower(s))
	}
	keys := make([]string, 0, len(known))
	for k := range known {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	u := norm(unknown)
	best, bestD := "", 3
	for _, k := range keys {
		n := norm(k)
		if n == u {
			return k
		}
		if len(k) < 4 {
			continue
		}
		if d := editDistance(u, n, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it
// is limit or more.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(c, prev[j], cur[j-1])
			}
			cur[j] = c
			low = min(low, c)
		}
		if low >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
