package engine

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// RemoteTLS secures protoactor remote, the gRPC links between nodes
// (DESIGN §11): every node presents Cert (with Key) and accepts only peers
// whose certificate CA signed, both ways. The certificates must name the
// addresses the nodes are reached at (an IP SAN for an IP address). Empty:
// plaintext.
type RemoteTLS struct {
	CA, Cert, Key string // PEM files
}

// Enabled tells whether TLS is configured.
func (t RemoteTLS) Enabled() bool { return t.CA != "" || t.Cert != "" || t.Key != "" }

// options are remote's server and dial options for t.
func (t RemoteTLS) options() ([]remote.ConfigOption, error) {
	if !t.Enabled() {
		return nil, nil
	}
	if t.CA == "" || t.Cert == "" || t.Key == "" {
		return nil, errors.New("remote TLS needs remote.tls.ca, remote.tls.cert and remote.tls.key")
	}
	pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("remote.tls.cert / remote.tls.key: %w", err)
	}
	pem, err := os.ReadFile(t.CA)
	if err != nil {
		return nil, fmt.Errorf("remote.tls.ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("remote.tls.ca %s: no PEM certificate in it", t.CA)
	}
	server := &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	client := &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}
	return []remote.ConfigOption{
		remote.WithServerOptions(grpc.Creds(credentials.NewTLS(server))),
		remote.WithDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(client))),
	}, nil
}

// RemoteConfig is protoactor remote's configuration on host:port with t.
func RemoteConfig(host string, port int, t RemoteTLS) (*remote.Config, error) {
	opts, err := t.options()
	if err != nil {
		return nil, err
	}
	return remote.Configure(host, port, opts...), nil
}
