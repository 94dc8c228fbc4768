package consul

import (
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"
)

// ClientSettings are how a node or the CLI reaches its Consul agent
// (DESIGN §11), as engine settings rather than Consul's own environment
// variables: the agent's address, an ACL token, and TLS (the CA that signed
// the agent's certificate, and a client certificate for an agent that
// verifies incoming connections). A CA or a certificate makes the
// connection HTTPS.
type ClientSettings struct {
	Address  string // host:port
	Token    string // ACL token
	CAFile   string
	CertFile string
	KeyFile  string
}

// NewClient is a Consul API client with s. Consul's own CONSUL_*
// variables still apply where s leaves a setting empty.
func NewClient(s ClientSettings) (*api.Client, error) {
	cfg := api.DefaultConfig()
	if s.Address != "" {
		cfg.Address = s.Address
	}
	if s.Token != "" {
		cfg.Token = s.Token
	}
	if (s.CertFile == "") != (s.KeyFile == "") {
		return nil, errors.New("consul.tls.cert and consul.tls.key go together")
	}
	if s.CAFile != "" || s.CertFile != "" {
		cfg.Scheme = "https"
		cfg.TLSConfig = api.TLSConfig{CAFile: s.CAFile, CertFile: s.CertFile, KeyFile: s.KeyFile}
	}
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("consul at %s: %w", cfg.Address, err)
	}
	return c, nil
}
