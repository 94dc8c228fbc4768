package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteSection(t *testing.T) {
	p := filepath.Join(t.TempDir(), "RESULTS.md")
	if err := os.WriteFile(p, []byte("# Results\n\nhand notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ name, body, want string }{
		{"a", "first", "# Results\n\nhand notes\n\n<!-- begin a -->\nfirst\n<!-- end a -->\n"},
		{"b", "other\n", "# Results\n\nhand notes\n\n<!-- begin a -->\nfirst\n<!-- end a -->\n\n<!-- begin b -->\nother\n<!-- end b -->\n"},
		{"a", "second", "# Results\n\nhand notes\n\n<!-- begin a -->\nsecond\n<!-- end a -->\n\n<!-- begin b -->\nother\n<!-- end b -->\n"},
	}
	for i, s := range steps {
		if err := WriteSection(p, s.name, s.body); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != s.want {
			t.Fatalf("step %d:\n%s\nwant:\n%s", i, got, s.want)
		}
	}
	os.WriteFile(p, []byte("<!-- begin a -->\nno end\n"), 0o644)
	if err := WriteSection(p, "a", "x"); err == nil {
		t.Fatal("a section with one marker was overwritten")
	}
}

func TestStatisticsAndProgress(t *testing.T) {
	out := []byte(`
***********************************************
           Job Progress Information
***********************************************
Read Count So Far         :              135168
Write Count So Far        :               32768
***********************************************
           Job Statistic Information
***********************************************
Total Read Count          :            20000000
Total Write Count         :             9999999
Total Failed Count        :                   0
`)
	st := Statistics(out)
	if st["Read Count"] != 20000000 || st["Write Count"] != 9999999 || st["Failed Count"] != 0 {
		t.Fatalf("Statistics: %v", st)
	}
	if r, w, ok := Progress(out); !ok || r != 135168 || w != 32768 {
		t.Fatalf("Progress: %d %d %v", r, w, ok)
	}
	if Statistics([]byte("nothing")) != nil {
		t.Fatal("Statistics of no block is not nil")
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Rate(12_345_678), "12.35 M/s"}, {Rate(45_600), "45.6 k/s"}, {Rate(5), "5.0 /s"},
		{Count(40_000_000), "40 M"}, {Count(500_000), "500 k"}, {Count(32), "32"}, {Count(135_168), "135168"},
		{MB(3 << 20), "3.0 MiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("Median = %v", m)
	}
	if m := MedianDuration([]time.Duration{4, 1, 3, 2}); m != 2 {
		t.Errorf("MedianDuration = %v", m)
	}
	tb := &Table{Header: []string{"a", "bb"}}
	tb.Add("xyz", "1")
	if want := "| a   | bb |\n| --- | -- |\n| xyz | 1  |\n"; tb.String() != want {
		t.Errorf("Table:\n%s", tb.String())
	}
}

func TestRun(t *testing.T) {
	res, err := Run(Spec{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !strings.Contains(string(res.Output), "out") || !strings.Contains(string(res.Output), "err") || res.MaxRSS <= 0 {
		t.Fatalf("%+v", res)
	}
	res, err = Run(Spec{Path: "/bin/sleep", Args: []string{"30"}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Wall > 10*time.Second {
		t.Fatalf("sleep was not killed at the timeout: %+v", res)
	}
	res, err = Run(Spec{Path: "/bin/sleep", Args: []string{"30"}, StopAfter: 100 * time.Millisecond, Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal.String() != "interrupt" || res.StopLatency > 5*time.Second || res.Killed {
		t.Fatalf("sleep did not end on SIGINT: %+v", res)
	}
	res, err = Run(Spec{Path: "/bin/sleep", Args: []string{"0.5"}, SampleEvery: 50 * time.Millisecond, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) == 0 || res.Samples[0].RSS <= 0 || res.PeakAnon() <= 0 || res.PeakAnon() > res.MaxRSS {
		t.Fatalf("RSS samples missing or above the peak: %+v", res.Samples)
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	data := bytes.Repeat([]byte("0123456789abcdef"), 10_000) // 160 kB: three writes
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Install(src, dst); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("installed %d bytes (want %d), mode %v", len(got), len(data), fi.Mode())
	}
	if err := Install(filepath.Join(dir, "missing"), dst); err == nil {
		t.Fatal("installing a missing file: no error")
	}
}
