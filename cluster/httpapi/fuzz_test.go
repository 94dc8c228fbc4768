package httpapi_test

import (
	"net/http"
	"os"
	"testing"
	"time"
)

// FuzzRequestBodies posts bytes from outside to the endpoints that read a
// body: whatever arrives is answered with a 2xx or 4xx and a JSON error,
// never a 5xx, a panic or a hang.
func FuzzRequestBodies(f *testing.F) {
	// The jobs that inputs submit may still be writing checkpoints when the
	// engine shuts down (it does not wait for them), so the storage folder
	// is removed once they are done rather than by TempDir, which fails on
	// a file written during its removal.
	dir, err := os.MkdirTemp("", "stactor-fuzz-http-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		for try := 0; try < 50 && os.RemoveAll(dir) != nil; try++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	s := startIn(f, dir)
	for _, seed := range []string{
		`{"jobId": "nope"}`, `{"jobId": 733584788375666689, "isStopWithSavePoint": true}`, `{"jobId": [1]}`, `{`, ``,
		"source { FakeSource { row.num = 3, schema = { fields { id = bigint } } } }\nsink { Console {} }\n",
		"source { FakeSource { row.num = \"many\" } }\nsink { Console {} }", `{"env": {"parallelism": 0}}`,
		"include \"/etc/passwd\"", "a = ${b}", "source { Sql { query = \"select\" } }\nsink { Console {} }",
	} {
		f.Add(uint8(0), []byte(seed))
		f.Add(uint8(1), []byte(seed))
		f.Add(uint8(2), []byte(seed))
	}
	paths := []string{"/stop-job", "/submit-job?fileName=f.conf", "/submit-job?isStartWithSavePoint=true&jobId=fuzz"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		ts := *s
		ts.t = t // the server's helpers fail the input's test, not f
		code, b := ts.do(http.MethodPost, paths[int(which)%len(paths)], "", string(body))
		if code >= 500 {
			t.Fatalf("%s: %d: %s", paths[int(which)%len(paths)], code, b)
		}
	})
}
