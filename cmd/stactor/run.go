package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/cluster/httpapi"
	"github.com/stactor/stactor/cluster/node"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

type runFlags struct {
	file    string
	vars    []string
	name    string
	jobID   string
	master  string
	check   bool
	restore string
	nats    string
	http    string
	// acceptDuplicates: a restore may fall back past a corrupt or missing
	// completed checkpoint, writing its committed rows again.
	acceptDuplicates bool
}

func newRunCmd(s *settings) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [-c] FILE",
		Short: "Run a job file in this process, on the embedded engine",
		Long: `Run a SeaTunnel-style job file (HOCON or JSON) to completion in this
process. Variables ${name} and ${name:default} are filled from -i name=value
and then from the environment. Ctrl-C or SIGTERM takes a savepoint and stops the job
(SAVEPOINT_DONE, exit 130; continue it with --restore ID); a second one
cancels at once, a third exits at once. --restore ID also continues a job
whose process was killed, from its latest checkpoint, with the plan and
variables it was resolved with; --restore ID -c FILE re-resolves FILE.`,
		Example: `  stactor run configs/examples/fake_to_console.conf
  stactor run -c job.conf -i dt=2024-01-01 -n nightly
  stactor run --restore 1733100000000000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f.file != "" && f.file != args[0] {
					return &exitError{2, fmt.Errorf("give the job file once: -c %s or %s", f.file, args[0])}
				}
				f.file = args[0]
			}
			if f.file == "" && f.restore == "" {
				return &exitError{2, errors.New("no job file: stactor run -c FILE")}
			}
			if f.master != "" && f.master != "local" {
				return &exitError{2, fmt.Errorf("-m %s: only local is supported by run (use stactor submit for a cluster)", f.master)}
			}
			return runJob(cmd, s, f)
		},
	}
	cmd.Flags().StringVarP(&f.file, "config", "c", "", "job file")
	cmd.Flags().StringArrayVarP(&f.vars, "variable", "i", nil, "variable name=value for ${name} in the job file (repeatable)")
	cmd.Flags().StringVarP(&f.name, "name", "n", "", "job name (overrides env's job.name)")
	cmd.Flags().StringVar(&f.jobID, "job-id", "", "job id (default: generated)")
	cmd.Flags().StringVarP(&f.master, "master", "m", "", "accepted for SeaTunnel compatibility: local")
	cmd.Flags().BoolVar(&f.check, "check", false, "check the job file and print its plan, without running it")
	cmd.Flags().StringVarP(&f.restore, "restore", "r", "", "continue job ID from its latest savepoint or checkpoint")
	cmd.Flags().BoolVar(&f.acceptDuplicates, "accept-duplicates", false, "with --restore: fall back past a completed checkpoint that is corrupt or missing, writing again the rows it committed (duplicates in the output)")
	cmd.Flags().StringVar(&f.nats, "nats", "", "NATS URL for the job's taps and metrics (stactor tap, stactor top); default: serve one on loopback; none: no taps or metrics")
	cmd.Flags().String("cluster", "stactor", "subject prefix stactor.NAME of the taps and metrics")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) { _ = s.v.BindPFlag("cluster", cmd.Flags().Lookup("cluster")) }
	cmd.Flags().StringVar(&f.http, "http", "", "serve the HTTP API, /metrics and the web page for this job at host:port (loopback unless http.token is set)")
	return cmd
}

func parseVars(kvs []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("-i %q: expected name=value", kv)
		}
		vars[strings.TrimSpace(k)] = v
	}
	return vars, nil
}

func runJob(cmd *cobra.Command, s *settings, f runFlags) error {
	log, err := s.logger()
	if err != nil {
		return &exitError{2, err}
	}
	opts, err := s.taskOptions()
	if err != nil {
		return &exitError{2, err}
	}
	vars, err := parseVars(f.vars)
	if err != nil {
		return &exitError{2, err}
	}
	jobID := f.jobID
	if f.restore != "" {
		if jobID != "" && jobID != f.restore {
			return &exitError{2, fmt.Errorf("--job-id %s and --restore %s disagree", jobID, f.restore)}
		}
		jobID = f.restore
	}
	generated := jobID == ""
	if generated {
		jobID = strconv.FormatInt(time.Now().UnixNano()/1000, 10)
	}
	// This process is the job's client (DESIGN §2): it reads the file and
	// its includes and fills the variables; the JobMaster resolves the
	// rest. A restore without a file continues the plan the job was
	// resolved with, variables included.
	var tree *messages.Hocon
	if f.file != "" {
		src, err := os.ReadFile(f.file)
		if err != nil {
			return &exitError{2, fmt.Errorf("cannot read job file: %w", err)}
		}
		t, job, err := config.ParseForSubmit(f.file, src, vars)
		if err != nil {
			return &exitError{2, err}
		}
		tree = t
		if f.check {
			if f.name != "" {
				job.Name = f.name
			}
			ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout(s))
			defer cancel()
			p, err := plan.Resolve(ctx, job, jobID)
			if err != nil {
				return &exitError{2, err}
			}
			for _, w := range p.Warnings {
				log.Warn().Msg(w.String())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: OK (%s job %q)\n%s", f.file, job.Mode, job.Name, p.String())
			var gs []string
			for _, g := range p.Guarantees() {
				gs = append(gs, g.String())
			}
			printGuarantees(cmd.OutOrStdout(), gs)
			return nil
		}
	} else if f.check {
		return &exitError{2, errors.New("--check needs the job file: -c FILE")}
	}
	out := cmd.OutOrStdout()

	cpc, err := s.checkpointConfig()
	if err != nil {
		return &exitError{2, err}
	}
	store, err := s.jobStore()
	if err != nil {
		return err
	}
	var unlock func()
	for tries := 0; ; tries++ {
		_, loadErr := store.LoadJob(jobID)
		if generated && tries < 1000 && loadErr == nil {
			jobID = nextID(jobID) // runs started in the same microsecond
			continue
		}
		if f.restore != "" && loadErr != nil {
			return &exitError{2, fmt.Errorf("--restore %s: no such job in %s: %w", f.restore, s.v.GetString("home"), loadErr)}
		}
		if f.restore == "" && loadErr == nil {
			// Running it afresh would write again what it committed.
			return &exitError{2, fmt.Errorf("--job-id %s: the job exists in %s; continue it with stactor run --restore %s, or give another id", jobID, s.v.GetString("home"), jobID)}
		}
		// One process runs a job at a time: a second run, a restore of a
		// job that still runs, or two restores at once are refused here.
		unlock, err = s.lockJob(jobID)
		if generated && tries < 1000 && errors.Is(err, localfile.ErrJobRunning) {
			jobID = nextID(jobID)
			continue
		}
		if err != nil {
			return &exitError{2, err}
		}
		break
	}
	defer unlock()
	if f.restore == "" {
		if err := store.SaveJob(&messages.JobSpec{JobId: jobID, File: f.file, Vars: vars, Name: f.name, Tree: tree}); err != nil {
			// Saved before anything runs, so --restore finds the job
			// however early this process dies; the JobMaster replaces it
			// with the resolved plan.
			return fmt.Errorf("saving job %s: %w", jobID, err)
		}
	}
	lw, err := s.localWorker()
	if err != nil {
		return &exitError{2, err}
	}
	tapOpts, err := s.tapOptions()
	if err != nil {
		return &exitError{2, err}
	}
	mon, err := startLocalMonitor(s, f.nats, jobID)
	if err != nil {
		return err
	}
	defer mon.close()
	ecfg := engine.Config{Task: opts, Checkpoint: cpc, Store: store, Log: log, ResolveTimeout: resolveTimeout(s),
		NoProgressTimeout: s.v.GetDuration("watchdog.no-progress-timeout"), CancelTimeout: s.v.GetDuration("task.cancel-timeout"),
		LocalTags: lw.tags, LocalSlots: lw.slots, LocalMemoryMB: lw.memoryMB, SlotMemoryMB: lw.slotMemoryMB,
		AcceptDuplicates: f.acceptDuplicates}
	mon.wire(&ecfg, s, tapOpts, log)
	eng, err := engine.Start(ecfg)
	if err != nil {
		return err
	}
	defer eng.Stop()
	if f.http != "" {
		stop, err := serveLocalHTTP(cmd, s, eng, store, f.http)
		if err != nil {
			return &exitError{2, err}
		}
		defer stop()
	}
	// The JobMaster logs the resolve warnings in this process.
	if err := eng.Submit(&messages.SubmitJob{JobId: jobID, File: f.file, Tree: tree, Vars: vars, Name: f.name, Restore: f.restore != ""}); err != nil {
		return &exitError{2, err}
	}
	if mon != nil {
		// Once the job is accepted: a refused one prints only its error.
		fmt.Fprintf(os.Stderr, "stactor: taps and metrics of job %s on %s (stactor tap %s; stactor top)\n", jobID, mon.url, jobID)
	}

	// Handled for the rest of the run, the statistics print included.
	stop := interrupts(jobID, func() { eng.Savepoint(jobID) }, func() { eng.Cancel(jobID) })
	defer stop()
	done := make(chan *messages.JobStatus, 1)
	waitErr := make(chan error, 1)
	go func() {
		st, err := eng.Wait(jobID, 0)
		if err != nil {
			waitErr <- err
			return
		}
		done <- st
	}()

	prog := newProgress(os.Stderr, isTerminal(os.Stderr), s.v.GetDuration("progress-interval"), jobID)
	tick := time.NewTicker(prog.every())
	defer tick.Stop()
	var final *messages.JobStatus
	for final == nil {
		select {
		case st := <-done:
			final = st
		case err := <-waitErr:
			return err
		case <-tick.C:
			if st, err := eng.Status(jobID); err == nil {
				prog.show(st)
			}
		}
	}
	prog.clear()
	printStatistics(out, final)
	switch final.State {
	case state.JobFinished:
		return nil
	case state.JobCanceled:
		return &exitError{130, fmt.Errorf("job %s was canceled", jobID)}
	case state.JobSavepointDone:
		fmt.Fprintf(os.Stderr, "stactor: job %s stopped with a savepoint (SAVEPOINT_DONE); continue it with:\n  stactor run --restore %s\n", jobID, jobID)
		return &exitError{130, nil}
	default:
		return &exitError{1, fmt.Errorf("job %s %s: %s", jobID, strings.ToLower(final.State), final.Error)}
	}
}

// nextID is the generated job id after id.
func nextID(id string) string {
	n, _ := strconv.ParseInt(id, 10, 64)
	return strconv.FormatInt(n+1, 10)
}

// resolveTimeout is the job.resolve-timeout setting.
func resolveTimeout(s *settings) time.Duration { return s.v.GetDuration("job.resolve-timeout") }

// printStatistics prints SeaTunnel's Job Statistic Information block
// (StringFormatUtils.formatTable: a 47-star border, "%-26s: %19s" rows).
func printStatistics(w io.Writer, st *messages.JobStatus) {
	start := time.UnixMilli(st.StartUnixMs)
	end := time.UnixMilli(st.EndUnixMs)
	if st.EndUnixMs == 0 {
		end = time.Now()
	}
	fmt.Fprint(w, formatTable("Job Statistic Information",
		"Start Time", start.Format(time.DateTime),
		"End Time", end.Format(time.DateTime),
		"Total Time(s)", strconv.FormatInt(int64(end.Sub(start)/time.Second), 10),
		"Total Read Count", strconv.FormatInt(st.ReadRows, 10),
		"Total Write Count", strconv.FormatInt(st.WriteRows, 10),
		"Total Failed Count", strconv.FormatInt(st.FailedRows, 10)))
}

const tableWidth = 47

func formatTable(title string, kv ...string) string {
	var b strings.Builder
	border := strings.Repeat("*", tableWidth)
	b.WriteString("\n" + border + "\n")
	b.WriteString(strings.Repeat(" ", max(0, (tableWidth-len(title))/2)) + title + "\n")
	b.WriteString(border + "\n")
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "%-26s: %19s\n", kv[i], kv[i+1])
	}
	b.WriteString(border + "\n")
	return b.String()
}

// localWorkerSettings is what the local worker of stactor run has of a
// cluster node's worker settings: tags (k=v,k=v, or a map in
// stactor.yaml) for a job's tag_filter, slot-num when dynamic-slot is off,
// and with dynamic slots the memory it cuts into slots of slot.memory:
// the engine setting memory if set, else the machine's (engine.Config
// LocalMemoryMB: only memory is counted locally).
type localWorkerSettings struct {
	tags                   map[string]string
	slots                  int
	memoryMB, slotMemoryMB int64
}

func (s *settings) localWorker() (localWorkerSettings, error) {
	var lw localWorkerSettings
	if raw := s.v.Get("tags"); raw != nil {
		if _, isText := raw.(string); isText {
			t, err := parseTags(s.v.GetString("tags"))
			if err != nil {
				return lw, err
			}
			lw.tags = t
		} else {
			lw.tags = s.v.GetStringMapString("tags")
		}
	}
	if !s.v.GetBool("dynamic-slot") {
		if lw.slots = s.v.GetInt("slot-num"); lw.slots < 1 {
			return lw, fmt.Errorf("engine setting slot-num must be at least 1 with dynamic-slot off, got %d", lw.slots)
		}
		return lw, nil
	}
	if lw.slotMemoryMB = s.v.GetInt64("slot.memory"); lw.slotMemoryMB < 1 {
		return lw, fmt.Errorf("engine setting slot.memory must be at least 1 (MiB), got %d", lw.slotMemoryMB)
	}
	if s.v.IsSet("memory") {
		if lw.memoryMB = s.v.GetInt64("memory"); lw.memoryMB < 1 {
			return lw, fmt.Errorf("engine setting memory must be at least 1 (MiB), got %d", lw.memoryMB)
		}
	} else {
		lw.memoryMB = machineMemoryMB()
	}
	return lw, nil
}

// machineMemoryMB is MemTotal of /proc/meminfo in MiB; 0 (no bound) where
// it cannot be read.
func machineMemoryMB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb >> 10
		}
	}
	return 0
}

// printGuarantees prints what each pipeline of a job, as written,
// guarantees about delivery (plan.Guarantees).
func printGuarantees(w io.Writer, gs []string) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintln(w, "delivery guarantee:")
	for _, g := range gs {
		fmt.Fprintln(w, "  "+g)
	}
}

// serveLocalHTTP serves the HTTP API of stactor run --http: the same
// handler as a node's, over the local engine's coordinator, with
// /update-tags changing the local worker's tags.
func serveLocalHTTP(cmd *cobra.Command, s *settings, eng *engine.Engine, store storage.Storage, addr string) (func(), error) {
	auth, err := s.httpAuth()
	if err != nil {
		return nil, err
	}
	log, _ := s.logger()
	slot := resources.Profile{CPU: s.v.GetFloat64("slot.cpu"), MemoryMB: s.v.GetInt64("slot.memory")}
	h := httpapi.New(httpapi.NewActorCoordinator(eng.System.Root, eng.Coordinator, eng.Resources, slot), store,
		httpapi.WithVersion(version), httpapi.WithNodeID("local"), httpapi.WithLogger(log), httpapi.WithAuth(auth),
		httpapi.WithTagger(func(_ context.Context, tags map[string]string) error {
			eng.SetLocalTags(tags)
			return nil
		}))
	tlsFiles := node.HTTPTLS{Cert: s.v.GetString("http.tls.cert"), Key: s.v.GetString("http.tls.key"), ClientCA: s.v.GetString("http.tls.client-ca")}
	l, err := node.ServeLocal(addr, auth, tlsFiles, h, log)
	if err != nil {
		return nil, err
	}
	scheme := "http"
	if tlsFiles.Cert != "" {
		scheme = "https"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "stactor: HTTP API and web page at %s://%s/\n", scheme, l.Addr())
	return l.Stop, nil
}
