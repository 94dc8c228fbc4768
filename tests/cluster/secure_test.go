package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/stactor/stactor/cluster/consul/consultest"
	"github.com/stactor/stactor/internal/testpki"
)

// A cluster with credentials and TLS on every link (DESIGN §11): the HTTP
// API over HTTPS with bearer tokens, NATS over TLS with a client
// certificate and a password, Consul over HTTPS with client certificates
// and ACLs (deny by default) with a token, protoactor remote with mutual
// TLS, and job secrets sealed. A job
// with a password runs across three nodes; a worker is SIGKILLed and every
// row is still committed once. A client without the cluster's certificate
// cannot reach the nodes; a REST call without a token is 401, with the
// read-only one a submit is 403. The password appears in no node log, CLI
// output, REST answer, metric, Consul key or JetStream file.
func TestSecureCluster(t *testing.T) {
	need(t)
	const secret = "s3cr3t-Pw-4711"
	dir := t.TempDir()
	pki := testpki.New(t, dir, "cluster")
	nodeCert, nodeKey := pki.Issue(t, "node")
	natsCert, natsKey := pki.Issue(t, "nats")

	// Consul with ACLs.
	root, err := consultest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := consultest.Binary(root, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	const aclToken = "consul-acl-t0ken"
	agent, err := consultest.Start(bin, consultest.WithNode("stactor-secure-test"), consultest.WithACL(aclToken),
		consultest.WithTLS(pki.File, nodeCert, nodeKey))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Stop()

	// NATS with TLS (client certificates verified) and a password.
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: natsCert, KeyFile: natsKey, CaFile: pki.File, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	natsDir := filepath.Join(dir, "nats")
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: natsDir,
		Username: "stactor", Password: "nats-pa55", TLS: true, TLSVerify: true, TLSConfig: tc, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS did not start")
	}

	c := newCluster(t)
	c.consul, c.consulToken, c.nats = agent.Addr, aclToken, ns.ClientURL()
	c.consulTLS = [3]string{pki.File, nodeCert, nodeKey}
	tlsEnv := []string{
		"STACTOR_REMOTE_TLS_CA=" + pki.File, "STACTOR_REMOTE_TLS_CERT=" + nodeCert, "STACTOR_REMOTE_TLS_KEY=" + nodeKey,
		"STACTOR_NATS_TLS_CA=" + pki.File, "STACTOR_NATS_TLS_CERT=" + nodeCert, "STACTOR_NATS_TLS_KEY=" + nodeKey,
		"STACTOR_NATS_USER=stactor", "STACTOR_NATS_PASSWORD=nats-pa55",
		"STACTOR_CONSUL_TOKEN=" + aclToken,
		"STACTOR_CONSUL_TLS_CA=" + pki.File, "STACTOR_CONSUL_TLS_CERT=" + nodeCert, "STACTOR_CONSUL_TLS_KEY=" + nodeKey,
		"STACTOR_SECRETS_KEY=" + strings.Repeat("ab", 32),
	}
	c.allEnv = append(tlsEnv,
		"STACTOR_HTTP_TOKEN=admin-t0ken", "STACTOR_HTTP_READ_TOKEN=read-t0ken",
		"STACTOR_HTTP_TLS_CERT="+nodeCert, "STACTOR_HTTP_TLS_KEY="+nodeKey)
	for i := 1; i <= 3; i++ {
		c.startNode(fmt.Sprintf("n%d", i), "--http", "127.0.0.1:0")
	}
	leader := c.waitReady(3)

	j := newJob(t, t.TempDir(), 9000, `secret.password = "`+secret+`"`)
	c.submitAsync(j, "secure")
	var victim string
	eventually(t, 60*time.Second, "a worker running the sink chain", func() error {
		for _, id := range c.alive() {
			if id != leader && c.printed(id) >= 500 {
				victim = id
				return nil
			}
		}
		return fmt.Errorf("no worker but the leader %s has printed rows", leader)
	})
	c.kill(victim)

	// The REST API: HTTPS, tokens, roles.
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(pki.File)
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "https://" + c.httpAddrs()[leader]
	call := func(method, path, token, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := call("GET", "/overview", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("GET /overview without a token: %d, want 401", code)
	}
	if code, _ := call("POST", "/submit-job?jobId=nope", "read-t0ken", "source { FakeSource {} }\nsink { Console {} }"); code != http.StatusForbidden {
		t.Fatalf("submit with the read-only token: %d, want 403", code)
	}
	var answers []string
	for _, p := range []string{"/overview", "/running-jobs", "/job-info/secure", "/metrics", "/"} {
		code, body := call("GET", p, "read-t0ken", "")
		if code != http.StatusOK {
			t.Fatalf("GET %s with the read token: %d %s", p, code, body)
		}
		answers = append(answers, body)
	}

	// A client without the cluster's certificate reaches no node.
	noCert := c.cliWithout(20*time.Second, "STACTOR_REMOTE_TLS_", "list")
	if noCert.code == 0 {
		t.Fatalf("stactor list without the cluster's certificate: exit 0\n%s", noCert.stdout)
	}

	st := c.waitState("secure", "FINISHED", 3*time.Minute)
	if len(st.attempts) == 0 || st.attempts[0] < 1 {
		t.Fatalf("the pipeline was not restored after the kill:\n%s", st.text)
	}
	j.checkExactlyOnce(t)

	// The password is nowhere: node logs, the CLI's output, REST answers,
	// Consul KV, JetStream's files.
	where := map[string]string{"stactor status": st.text, "REST answers": strings.Join(answers, "\n")}
	for _, id := range c.ids() {
		where["log of "+id] = readFile(c.nodes[id].log)
	}
	cc := agent.Client // with the token and TLS
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kvs, _, err := cc.KV().List("", (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if len(kvs) == 0 {
		t.Fatal("Consul KV is empty: the job registry was not written")
	}
	for _, kv := range kvs {
		where["Consul key "+kv.Key] = string(kv.Value)
		// A job record keeps its resolved plan as base64 in its JSON.
		var rec struct {
			Resolved []byte `json:"resolved"`
		}
		if json.Unmarshal(kv.Value, &rec) == nil && len(rec.Resolved) > 0 {
			where["resolved plan in Consul key "+kv.Key] = string(rec.Resolved)
		}
	}
	files := 0
	err = filepath.WalkDir(natsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // compacted meanwhile
		}
		files++
		where["JetStream file "+p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no JetStream files: checkpoint storage was not written")
	}
	for what, text := range where {
		if strings.Contains(text, secret) {
			t.Errorf("the password is in the %s", what)
		}
	}
}

// cliWithout runs a CLI command with the cluster's environment less the
// variables that start with prefix.
func (c *testCluster) cliWithout(timeout time.Duration, prefix string, args ...string) result {
	saved := c.allEnv
	defer func() { c.allEnv = saved }()
	var env []string
	for _, e := range saved {
		if !strings.HasPrefix(e, prefix) {
			env = append(env, e)
		}
	}
	c.allEnv = env
	return c.cli(timeout, args...)
}
