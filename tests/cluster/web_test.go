package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is Debian's headless browser (tools/test-deps.sh installs the
// chromium package); "" when none is found.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestWebPageInBrowser loads the leader's web page in headless Chromium,
// driven through the DevTools protocol (chromedp), against a running job,
// as a user watches one: the jobs table lists it RUNNING and its read
// count rises between two of the page's polls; a click on it opens its
// detail, whose DAG has a box per vertex with its counts and a
// backpressure bar, and whose checkpoint table fills; a click on a
// checkpoint opens its diagnosis (the vertex that delayed it, each
// subtask's timings). The page is saved as a PNG
// (STACTOR_WEB_SCREENSHOT names the file, else it goes in the test's temp
// dir; the path is logged) so that it can be looked at.
func TestWebPageInBrowser(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("no Chromium (Debian package chromium; go tool task deps installs it)")
	}
	c := newCluster(t)
	for i := 1; i <= 2; i++ {
		c.startNode(fmt.Sprintf("n%d", i), "--http", "127.0.0.1:0")
	}
	leader := c.waitReady(2)
	base := "http://" + c.httpAddrs()[leader]
	j := newJob(t, c.dir, 40000)
	c.submitAsync(j, "webjob")

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox, // root in CI; the page is our own
		chromedp.WindowSize(1400, 1100),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()

	const row = `#jobs tr.job`
	readCount := func() (int64, error) {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row+` td:nth-child(6)`)))
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(strings.NewReplacer(",", "", ".", "", " ", "", "\u00a0", "", "–", "").Replace(strings.TrimSpace(s)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read column %q: %w", s, err)
		}
		return n, nil
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(row+` td.RUNNING`)),
	); err != nil {
		t.Fatalf("the page did not list the job RUNNING: %v", err)
	}
	first, err := readCount()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the read count to rise on the page", func() error {
		n, err := readCount()
		if err != nil {
			return err
		}
		if n <= first {
			return fmt.Errorf("read %d, first %d", n, first)
		}
		t.Logf("read count on the page rose from %d to %d", first, n)
		return nil
	})

	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(row)),
		chromedp.WaitVisible(chromedp.CSS(`#detail`)),
		chromedp.WaitVisible(chromedp.CSS(`#d-dag svg rect`)),
		chromedp.WaitVisible(chromedp.CSS(`#d-checkpoints tr`)),
	); err != nil {
		t.Fatalf("opening the job: %v", err)
	}
	count := func(expr string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return n
	}
	// LocalFile → Filter → LocalFile and Console: four vertices, each with
	// its backpressure once its subtasks report.
	if v, cp := count(`document.querySelectorAll("#d-dag svg g").length`), count(`document.querySelectorAll("#d-checkpoints tr").length`); v != 4 || cp == 0 {
		t.Fatalf("the job's detail shows %d vertices and %d checkpoints, want 4 and some", v, cp)
	}
	eventually(t, 20*time.Second, "every vertex to show its backpressure", func() error {
		if n := count(`[...document.querySelectorAll("#d-dag svg text")].filter(e => e.textContent.startsWith("bp ")).length`); n != 4 {
			return fmt.Errorf("%d of 4 vertices show backpressure", n)
		}
		return nil
	})

	// A checkpoint, opened: its diagnosis names the vertex that delayed it
	// and lists each subtask's timings.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#d-checkpoints tr.cp`)),
		chromedp.WaitVisible(chromedp.CSS(`#d-diagnosis-table tbody tr`)),
	); err != nil {
		t.Fatalf("opening a checkpoint: %v", err)
	}
	delayed, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#d-diagnosis p`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(delayed, "Delayed by ") {
		t.Fatalf("the checkpoint's diagnosis says %q", delayed)
	}
	// Each of the job's subtasks (2 + 3 + 3 + 3, the sinks fused with the
	// Filter: 2 source and 3 chain subtasks) has a row.
	if n := count(`document.querySelectorAll("#d-diagnosis-table tbody tr").length`); n < 5 {
		t.Fatalf("the diagnosis lists %d rows, want a row per subtask (5) and commits", n)
	}
	t.Logf("checkpoint diagnosis on the page: %s", delayed)

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("STACTOR_WEB_SCREENSHOT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "stactor-web.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the page: %s (%d bytes)", path, len(shot))
}
