package consul_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/cluster/consul/consultest"
	"github.com/stactor/stactor/internal/testpki"
)

// An agent with ACLs on (deny by default): a client with the token from
// the settings registers and reads; one without is refused.
func TestClientACLToken(t *testing.T) {
	need(t)
	bin, err := consulBinary()
	if err != nil {
		t.Fatal(err)
	}
	agent, err := consultest.Start(bin, consultest.WithNode("acl-test"), consultest.WithACL("root-t0ken"))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	with, err := consul.NewClient(consul.ClientSettings{Address: agent.Addr, Token: "root-t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := with.KV().Put(&api.KVPair{Key: "stactor/acl-test", Value: []byte("x")}, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	without, err := consul.NewClient(consul.ClientSettings{Address: agent.Addr})
	if err != nil {
		t.Fatal(err)
	}
	_, err = without.KV().Put(&api.KVPair{Key: "stactor/acl-test", Value: []byte("y")}, (&api.WriteOptions{}).WithContext(ctx))
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("without a token: %v, want a 403", err)
	}
	if _, err := consul.NewClient(consul.ClientSettings{CertFile: "c.pem"}); err == nil {
		t.Fatal("a certificate without its key was taken")
	}
}

// An agent serving HTTPS only, verifying client certificates: a client
// with the CA and a certificate from the settings reaches it; one without
// a certificate is refused.
func TestClientTLS(t *testing.T) {
	need(t)
	bin, err := consulBinary()
	if err != nil {
		t.Fatal(err)
	}
	pki := testpki.New(t, t.TempDir(), "consul")
	cert, key := pki.Issue(t, "agent")
	agent, err := consultest.Start(bin, consultest.WithNode("tls-test"), consultest.WithTLS(pki.File, cert, key))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Stop()
	ok, err := consul.NewClient(consul.ClientSettings{Address: agent.Addr, CAFile: pki.File, CertFile: cert, KeyFile: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ok.Status().Leader(); err != nil {
		t.Fatalf("with the CA and a certificate: %v", err)
	}
	noCert, err := consul.NewClient(consul.ClientSettings{Address: agent.Addr, CAFile: pki.File})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noCert.Status().Leader(); err == nil {
		t.Fatal("a client without a certificate reached an agent that verifies them")
	}
}
