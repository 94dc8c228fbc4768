package httpapi

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Auth is who may use the API (DESIGN §11). With none configured every
// request is let in, and the node serves on loopback only (cluster/node
// refuses any other address). Two roles: admin may do everything; read
// may only read (GET, HEAD: the API, /metrics, the page) and gets 403 on
// submit, stop and every other change. Credentials are bearer tokens
// (Authorization: Bearer T) — Token for admin, ReadToken for read — or
// HTTP basic auth with BasicUser and BasicPassword (SeaTunnel's
// enable-basic-auth), which is admin. Comparisons take constant time, and
// a failed attempt is logged with its address and path, never the
// credential.
type Auth struct {
	Token         string
	ReadToken     string
	BasicUser     string
	BasicPassword string
}

// Enabled tells whether any credential is configured.
func (a Auth) Enabled() bool {
	return a.Token != "" || a.ReadToken != "" || a.BasicUser != "" || a.BasicPassword != ""
}

// WithAuth makes the handler require a's credentials.
func WithAuth(a Auth) Option { return func(x *Handler) { x.auth = a } }

type role int

const (
	roleNone role = iota
	roleRead
	roleAdmin
)

// roleOf is the role r's credentials give (roleNone without, or with a
// wrong one).
func (a Auth) roleOf(r *http.Request) role {
	h := r.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(h, "Bearer "); ok {
		tok = strings.TrimSpace(tok)
		switch {
		case a.Token != "" && equal(tok, a.Token):
			return roleAdmin
		case a.ReadToken != "" && equal(tok, a.ReadToken):
			return roleRead
		}
		return roleNone
	}
	if user, pass, ok := r.BasicAuth(); ok && a.BasicUser != "" {
		// Both compared, whatever the first gives, so the time says nothing.
		u, p := equal(user, a.BasicUser), equal(pass, a.BasicPassword)
		if u && p {
			return roleAdmin
		}
	}
	return roleNone
}

func equal(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// authorize answers 401 or 403 and returns false when r may not go on.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) bool {
	if !h.auth.Enabled() {
		return true
	}
	got := h.auth.roleOf(r)
	if got == roleNone {
		challenge := `Bearer realm="stactor"`
		if h.auth.BasicUser != "" {
			challenge += `, Basic realm="stactor"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		what := "no credentials"
		if r.Header.Get("Authorization") != "" {
			what = "wrong credentials"
		}
		h.log.Warn().Str("remote", r.RemoteAddr).Str("method", r.Method).Str("path", r.URL.Path).Msgf("HTTP API: %s", what)
		fail(w, http.StatusUnauthorized, "authentication required: %s (use a bearer token or basic auth)", what)
		return false
	}
	if got == roleRead && r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.log.Warn().Str("remote", r.RemoteAddr).Str("method", r.Method).Str("path", r.URL.Path).Msg("HTTP API: a read-only credential asked to change something")
		fail(w, http.StatusForbidden, "%s %s needs the admin role; this credential may only read", r.Method, r.URL.Path)
		return false
	}
	return true
}
