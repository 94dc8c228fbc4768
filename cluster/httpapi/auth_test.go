package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/cluster/httpapi"
)

// With credentials configured: none is 401, a wrong one is 401, the read
// token reads but gets 403 on submit and stop, the admin token and basic
// auth may do both; a failed attempt is logged without the credential.
func TestAuthRoles(t *testing.T) {
	var logged bytes.Buffer
	s := start(t, httpapi.WithAuth(httpapi.Auth{Token: "admin-t0ken", ReadToken: "read-t0ken", BasicUser: "ops", BasicPassword: "pa55"}),
		httpapi.WithLogger(zerolog.New(&logged)))
	req := func(method, path, auth, body string) int {
		t.Helper()
		r, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		res, err := s.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode == http.StatusUnauthorized && !strings.Contains(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("%s %s: 401 without a WWW-Authenticate challenge", method, path)
		}
		return res.StatusCode
	}
	const job = "source { FakeSource { row.num = 3, schema = { fields { id = bigint } } } }\nsink { Console {} }"
	for _, c := range []struct {
		method, path, auth string
		want               int
	}{
		{"GET", "/overview", "", http.StatusUnauthorized},
		{"GET", "/metrics", "", http.StatusUnauthorized},
		{"GET", "/", "", http.StatusUnauthorized},
		{"GET", "/overview", "Bearer n0t-the-t0ken", http.StatusUnauthorized},
		{"GET", "/overview", "Basic b3BzOndyb25n", http.StatusUnauthorized}, // ops:wrong
		{"GET", "/overview", "Bearer read-t0ken", http.StatusOK},
		{"GET", "/metrics", "Bearer read-t0ken", http.StatusOK},
		{"POST", "/submit-job?jobId=r1", "Bearer read-t0ken", http.StatusForbidden},
		{"POST", "/stop-job", "Bearer read-t0ken", http.StatusForbidden},
		{"POST", "/submit-job?jobId=a1", "Bearer admin-t0ken", http.StatusOK},
		{"POST", "/submit-job?jobId=b1", "Basic b3BzOnBhNTU=", http.StatusOK}, // ops:pa55
		{"GET", "/overview", "Basic b3BzOnBhNTU=", http.StatusOK},
	} {
		if got := req(c.method, c.path, c.auth, job); got != c.want {
			t.Errorf("%s %s with %q: %d, want %d", c.method, c.path, c.auth, got, c.want)
		}
	}
	// The two jobs submitted must end before the test does: their
	// checkpoints are written under the test's folder.
	for _, id := range []string{"a1", "b1"} {
		deadline := time.Now().Add(60 * time.Second)
		for {
			r, _ := http.NewRequest("GET", s.URL+"/job-info/"+id, nil)
			r.Header.Set("Authorization", "Bearer admin-t0ken")
			res, err := s.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), `"FINISHED"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s did not finish: %s", id, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, secret := range []string{"n0t-the-t0ken", "read-t0ken", "admin-t0ken", "pa55", "b3BzOnBhNTU", "b3BzOndyb25n"} {
		if strings.Contains(logged.String(), secret) {
			t.Fatalf("the log shows a credential (%s):\n%s", secret, logged.String())
		}
	}
	if !strings.Contains(logged.String(), "wrong credentials") || !strings.Contains(logged.String(), "read-only credential") {
		t.Fatalf("failed attempts not logged:\n%s", logged.String())
	}
}

// Without credentials configured the API is open (the node binds it to
// loopback only).
func TestNoAuthIsOpen(t *testing.T) {
	s := start(t)
	if code, b := s.do("GET", "/overview", "", ""); code != http.StatusOK {
		t.Fatalf("GET /overview: %d %s", code, b)
	}
}

// A job from the network may not include files: include "/dev/zero",
// "/etc/shadow" or a FIFO is refused at once with a 400 that quotes none of
// the file.
func TestSubmittedIncludesAreRefused(t *testing.T) {
	s := start(t)
	fifo := t.TempDir() + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", "/etc/shadow", "/etc/passwd", fifo} {
		done := make(chan struct{})
		var code int
		var body []byte
		go func() {
			defer close(done)
			code, body = s.do("POST", "/submit-job?jobId=inc", "text/plain", `include "`+path+`"`+"\nsource { FakeSource {} }\nsink { Console {} }")
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("include %s: no answer within 5 s", path)
		}
		if code != http.StatusBadRequest || !strings.Contains(string(body), "include is not allowed") {
			t.Fatalf("include %s: %d %s", path, code, body)
		}
		if strings.Contains(string(body), "root:") {
			t.Fatalf("include %s: the answer quotes the file: %s", path, body)
		}
	}
}
