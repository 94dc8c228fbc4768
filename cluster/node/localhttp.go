package node

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/cluster/httpapi"
)

// LocalHTTP is the HTTP server of a local engine (stactor run --http):
// the same API, /metrics and page as a node's, under the same rules —
// loopback only without credentials, HTTPS with HTTPTLS.
type LocalHTTP struct {
	srv  *http.Server
	addr string
	done chan struct{}
}

// ServeLocal listens on addr and serves h. The error names what to
// configure when addr is beyond loopback without credentials.
func ServeLocal(addr string, auth httpapi.Auth, t HTTPTLS, h http.Handler, log zerolog.Logger) (*LocalHTTP, error) {
	if err := checkExposure(addr, auth); err != nil {
		return nil, err
	}
	tlsCfg, err := t.config()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	l := &LocalHTTP{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsCfg}, addr: ln.Addr().String(), done: make(chan struct{})}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error().Err(err).Str("address", addr).Msg("HTTP server stopped")
		}
	}()
	return l, nil
}

// Addr is the address the server listens on (port 0 resolved).
func (l *LocalHTTP) Addr() string { return l.addr }

// Stop closes the server and waits for it.
func (l *LocalHTTP) Stop() {
	_ = l.srv.Close()
	<-l.done
}

// checkExposure refuses an API beyond loopback without credentials
// (DESIGN §11).
func checkExposure(addr string, auth httpapi.Auth) error {
	if !auth.Enabled() && !loopback(addr) {
		return fmt.Errorf("--http %s listens beyond loopback, and the API takes jobs: configure credentials (http.token / STACTOR_HTTP_TOKEN, http.read-token, or enable-basic-auth with basic-auth-username and basic-auth-password), or bind it to 127.0.0.1", addr)
	}
	return nil
}
