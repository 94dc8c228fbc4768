package httpapi

import (
	_ "embed"
	"net/http"
)

// page is the web page: plain HTML and JavaScript that polls the API; it
// loads nothing from elsewhere.
//
//go:embed web/index.html
var page []byte

func servePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'")
	_, _ = w.Write(page)
}
