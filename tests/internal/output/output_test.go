package output

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEach(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.csv":                        "1,x\n\n2,y\n",
		"sub/b.csv":                    "3\n",
		".stactor-staging/j/0/t/c.csv": "4,staged\n",
		".hidden.csv":                  "5,hidden\n",
		"sub/.tmp":                     "6\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	if err := Each(dir, func(_ string, id int64) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Fatalf("ids %v, want [1 2 3] (staging and dot files skipped)", ids)
	}
	if err := Each(filepath.Join(dir, "none"), func(string, int64) error { return nil }); err != nil {
		t.Fatalf("a missing dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("x,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Each(dir, func(string, int64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "bad.csv") {
		t.Fatalf("a line without an id: %v, want an error naming bad.csv", err)
	}
}
