package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The HTTP API's address and credentials come from stactor.yaml's http
// block, from STACTOR_* variables, or, for the address, a plain http key.
func TestHTTPSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "stactor.yaml")
	if err := os.WriteFile(file, []byte("http:\n  address: 127.0.0.1:9999\n  token: admin-t\n  read-token: read-t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSettings()
	if err := s.load(file); err != nil {
		t.Fatal(err)
	}
	a, err := s.httpAuth()
	if err != nil || s.httpAddress() != "127.0.0.1:9999" || a.Token != "admin-t" || a.ReadToken != "read-t" {
		t.Fatalf("from the file: %q %+v %v", s.httpAddress(), a, err)
	}

	t.Setenv("STACTOR_HTTP", "127.0.0.1:7000")
	t.Setenv("STACTOR_HTTP_TOKEN", "env-t")
	s = newSettings()
	if a, _ := s.httpAuth(); s.httpAddress() != "127.0.0.1:7000" || a.Token != "env-t" {
		t.Fatalf("from the environment: %q %+v", s.httpAddress(), a)
	}

	t.Setenv("STACTOR_ENABLE_BASIC_AUTH", "true")
	if _, err := newSettings().httpAuth(); err == nil {
		t.Fatal("basic auth without a user and password was accepted")
	}
}

// NATS's URL is nats.url (--nats), or a plain nats string; its
// credentials come from the nats block.
func TestNATSSettings(t *testing.T) {
	t.Setenv("STACTOR_NATS", "nats://10.0.0.1:4222")
	t.Setenv("STACTOR_NATS_USER", "u")
	t.Setenv("STACTOR_NATS_PASSWORD", "p")
	s := newSettings()
	if got := s.natsURL(); got != "nats://10.0.0.1:4222" {
		t.Fatalf("natsURL = %q", got)
	}
	if a := s.natsAuth(); a.User != "u" || a.Password != "p" {
		t.Fatalf("natsAuth = %+v", a)
	}
	t.Setenv("STACTOR_NATS_URL", "nats://10.0.0.2:4222")
	if got := newSettings().natsURL(); got != "nats://10.0.0.2:4222" {
		t.Fatalf("natsURL with nats.url = %q", got)
	}
}

// Consul's address is consul.address (--consul) or a plain consul string;
// its ACL token and TLS files come from the consul block.
func TestConsulSettings(t *testing.T) {
	t.Setenv("STACTOR_CONSUL", "10.0.0.9:8500")
	t.Setenv("STACTOR_CONSUL_TOKEN", "acl-t")
	t.Setenv("STACTOR_CONSUL_TLS_CA", "/etc/consul/ca.pem")
	c := newSettings().consulSettings()
	if c.Address != "10.0.0.9:8500" || c.Token != "acl-t" || c.CAFile != "/etc/consul/ca.pem" {
		t.Fatalf("consulSettings = %+v", c)
	}
}
