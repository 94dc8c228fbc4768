package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/cluster/httpapi"
)

// webServer is the node's HTTP server (--http): the API, /metrics and the
// web page of package httpapi, served while the node leads; other nodes
// redirect to the leader.
type webServer struct {
	srv       *http.Server
	advertise string        // host:port, in the node's Consul metadata
	done      chan struct{} // closed when Serve has returned
}

// startHTTP listens on cfg.HTTP, if set, and serves the API. HTTPAddr is
// then the address other nodes and clients reach it at: an unspecified
// host (":8080", "0.0.0.0:8080") becomes the host of the node's actor
// system address, port 0 the port it got. Needs the actor system and the
// Consul client.
func (n *Node) startHTTP() error {
	if n.cfg.HTTP == "" {
		return nil
	}
	if err := checkExposure(n.cfg.HTTP, n.cfg.HTTPAuth); err != nil {
		return err
	}
	tlsCfg, err := n.cfg.HTTPTLS.config()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", n.cfg.HTTP)
	if err != nil {
		return fmt.Errorf("--http %s: %w", n.cfg.HTTP, err)
	}
	adv, err := advertised(ln.Addr().(*net.TCPAddr), n.cfg.HTTP, n.sys.Address())
	if err != nil {
		ln.Close()
		return err
	}
	addr := n.sys.Address()
	var tagger httpapi.Tagger
	if n.cfg.Has("worker") {
		tagger = func(ctx context.Context, tags map[string]string) error {
			reg := n.tagReg.Load()
			if reg == nil {
				return fmt.Errorf("%w: node %s is not registered in Consul yet", httpapi.ErrUnavailable, n.cfg.ID)
			}
			err := reg.UpdateTags(ctx, tags)
			if errors.Is(err, consul.ErrBadTags) {
				return &httpapi.BadTagsError{Err: err}
			}
			return err
		}
	}
	h := httpapi.New(
		httpapi.NewActorCoordinator(n.sys.Root, actor.NewPID(addr, "coordinator"), actor.NewPID(addr, "resources"), n.cfg.Resources.Slot),
		n.cfg.Engine.Store,
		httpapi.WithLeadership(leadership{n}),
		httpapi.WithMembers(func(ctx context.Context) ([]consul.Member, error) {
			return consul.Members(ctx, n.client, n.cfg.Cluster)
		}),
		httpapi.WithVersion(n.cfg.Version), httpapi.WithNodeID(n.cfg.ID), httpapi.WithLogger(n.log), httpapi.WithAuth(n.cfg.HTTPAuth),
		httpapi.WithTagger(tagger))
	w := &webServer{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsCfg}, advertise: adv, done: make(chan struct{})}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	go func() {
		defer close(w.done)
		if err := w.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			n.log.Error().Err(err).Str("address", n.cfg.HTTP).Msg("HTTP server stopped")
		}
	}()
	n.web = w
	n.log.Info().Str("url", n.HTTPScheme()+"://"+adv+"/").Bool("auth", n.cfg.HTTPAuth.Enabled()).Msg("HTTP API listening")
	return nil
}

// HTTPScheme is https when the API is served over TLS, http otherwise.
func (n *Node) HTTPScheme() string {
	if n.cfg.HTTPTLS.Cert != "" {
		return "https"
	}
	return "http"
}

// HTTPTLS are the HTTPS settings of the API: a certificate and its key
// (PEM files), and a CA whose client certificates the API then requires.
type HTTPTLS struct {
	Cert, Key, ClientCA string
}

func (t HTTPTLS) config() (*tls.Config, error) {
	if t.Cert == "" && t.Key == "" && t.ClientCA == "" {
		return nil, nil
	}
	if t.Cert == "" || t.Key == "" {
		return nil, fmt.Errorf("HTTPS needs both http.tls.cert and http.tls.key")
	}
	pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("http.tls.cert / http.tls.key: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if t.ClientCA != "" {
		pem, err := os.ReadFile(t.ClientCA)
		if err != nil {
			return nil, fmt.Errorf("http.tls.client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("http.tls.client-ca %s: no PEM certificate in it", t.ClientCA)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// loopback tells whether host:port addr listens on loopback only: a
// loopback IP, or localhost. An empty or unspecified host is every
// interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HTTPAddr is the address the node's HTTP API is reached at ("" without
// --http).
func (n *Node) HTTPAddr() string {
	if n.web == nil {
		return ""
	}
	return n.web.advertise
}

// stopHTTP stops the HTTP server, letting requests under way finish for up
// to 5 seconds.
func (n *Node) stopHTTP() {
	if n.web == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.web.srv.Shutdown(ctx); err != nil {
		_ = n.web.srv.Close()
	}
	<-n.web.done
}

// advertised is the address to publish for a listener bound to got (asked
// for as asked): its port, and the asked host, or the actor system's host
// when none or an unspecified one was asked for.
func advertised(got *net.TCPAddr, asked, actorAddr string) (string, error) {
	host, _, err := net.SplitHostPort(asked)
	if err != nil {
		return "", fmt.Errorf("--http %q: want host:port: %w", asked, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if host, _, err = net.SplitHostPort(actorAddr); err != nil {
			return "", fmt.Errorf("the node's address %q: %w", actorAddr, err)
		}
	}
	return net.JoinHostPort(host, fmt.Sprint(got.Port)), nil
}

// leadership tells the API whether the node leads, and where the leader's
// HTTP API is when it does not.
type leadership struct{ n *Node }

var _ httpapi.Leadership = leadership{}

func (l leadership) Leading() bool {
	l.n.mu.Lock()
	defer l.n.mu.Unlock()
	return l.n.master != nil
}

func (l leadership) LeaderHTTP(ctx context.Context) (string, error) {
	n := l.n
	id, _, _, err := consul.CurrentLeader(ctx, n.client, n.cfg.Cluster)
	if errors.Is(err, consul.ErrNoLeader) {
		return "", fmt.Errorf("%w: no node leads cluster %q now (an election may be under way)", httpapi.ErrNoLeader, n.cfg.Cluster)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %v", httpapi.ErrNoLeader, err)
	}
	if id == n.cfg.ID {
		return "", fmt.Errorf("%w: this node holds the leadership but its coordinator is not running (starting or stopping)", httpapi.ErrNoLeader)
	}
	ms, err := consul.Members(ctx, n.client, n.cfg.Cluster)
	if err != nil {
		return "", fmt.Errorf("%w: %v", httpapi.ErrNoLeader, err)
	}
	for _, m := range ms {
		if m.ID != id {
			continue
		}
		if m.HTTP == "" {
			return "", fmt.Errorf("%w: the leader %s serves no HTTP API (it was started without --http)", httpapi.ErrNoLeader, id)
		}
		return m.HTTP, nil
	}
	return "", fmt.Errorf("%w: the leader %s is not a registered member", httpapi.ErrNoLeader, id)
}
