package top

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stactor/stactor/messages"
)

// View is what a frame shows and how large it may be.
type View struct {
	Source   string // the NATS server and prefix, for the title
	Subtasks bool   // a table of subtasks under each job's vertices
	Width    int    // columns; lines are cut to it (0: no limit)
	Height   int    // lines; the frame is cut to it (0: no limit)
	Keys     bool   // show the keys line (interactive)
}

// Render draws one frame of jobs at now.
func Render(w io.Writer, jobs []*messages.JobMetrics, now time.Time, v View) error {
	var lines []string
	title := fmt.Sprintf("stactor top  %s  %s  %s", v.Source, now.Format(time.DateTime), plural(len(jobs), "job"))
	if v.Keys {
		title += "   q quit, s subtasks"
	}
	lines = append(lines, title, "")
	if len(jobs) == 0 {
		lines = append(lines, "no job has published metrics here in the last "+Forget.String()+" (a running job publishes every metrics.interval, 2 s by default)")
	}
	for _, j := range jobs {
		lines = append(lines, jobLines(j, now, v.Subtasks)...)
		lines = append(lines, "")
	}
	if v.Height > 0 && len(lines) > v.Height {
		lines = lines[:v.Height]
	}
	var b strings.Builder
	for _, l := range lines {
		if v.Width > 0 && len(l) > v.Width {
			l = l[:v.Width]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func jobLines(j *messages.JobMetrics, now time.Time, subtasks bool) []string {
	head := fmt.Sprintf("JOB %s %q %s   read %s rows %s/s   written %s rows %s/s   snapshot %s ago",
		j.JobId, j.Name, j.State, count(j.ReadRows), rate(j.ReadRowsPerSecond), count(j.WriteRows), rate(j.WriteRowsPerSecond),
		age(now, j.UnixMs))
	out := []string{head}
	out = append(out, table("  ", func(tw io.Writer) {
		fmt.Fprintln(tw, "PIPELINE\tSTATE\tATTEMPT\tCHECKPOINTS\tLAST CHECKPOINT\tAGE\tDURATION\tSIZE\tCHANNEL BATCHES")
		for _, p := range j.Pipelines {
			last, ago, dur, size, ch := "-", "-", "-", "-", "-"
			if p.LastCheckpointId > 0 {
				last = fmt.Sprintf("#%d %s", p.LastCheckpointId, p.LastCheckpointType)
				ago = age(now, p.LastCheckpointUnixMs)
				dur = (time.Duration(p.LastCheckpointDurationMs) * time.Millisecond).String()
				size = SizeText(p.LastCheckpointSizeBytes)
				ch = strconv.FormatInt(p.LastCheckpointChannelBatches, 10)
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Pipeline, p.State, p.Attempt, p.CheckpointsCompleted, last, ago, dur, size, ch)
		}
	})...)
	out = append(out, table("  ", func(tw io.Writer) {
		fmt.Fprintln(tw, "VERTEX\tPIPELINE\tPAR\tROWS IN\tIN/S\tROWS OUT\tOUT/S\tBUSY\tIDLE\tBACKPRESSURED")
		for _, vm := range j.Vertices {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", vm.Name, vm.Pipeline, vm.Parallelism,
				count(vm.RowsIn), rate(vm.RowsInPerSecond), count(vm.RowsOut), rate(vm.RowsOutPerSecond),
				pct(vm.BusyMsPerSecond), pct(vm.IdleMsPerSecond), pct(vm.BackpressuredMsPerSecond))
		}
	})...)
	if subtasks && len(j.Subtasks) > 0 {
		out = append(out, table("  ", func(tw io.Writer) {
			fmt.Fprintln(tw, "SUBTASK\tSTATE\tROWS IN\tIN/S\tROWS OUT\tOUT/S\tBUSY\tIDLE\tBACKPRESSURED\tQUEUED IN\tQUEUED OUT\tIN FLIGHT")
			for _, s := range j.Subtasks {
				fmt.Fprintf(tw, "p%d/a%d %s #%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", s.Pipeline, s.Attempt, s.Name, s.Subtask, s.State,
					count(s.RowsIn), rate(s.RowsInPerSecond), count(s.RowsOut), rate(s.RowsOutPerSecond),
					pct(s.BusyMsPerSecond), pct(s.IdleMsPerSecond), pct(s.BackpressuredMsPerSecond), s.InputQueue, s.OutputQueue, s.InFlight)
			}
		})...)
	}
	return out
}

// table lays out what fill writes as aligned columns, each line indented.
func table(indent string, fill func(io.Writer)) []string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fill(tw)
	_ = tw.Flush()
	var out []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out = append(out, indent+strings.TrimRight(l, " "))
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// count is a number of rows: 950, 12.3k, 4.56M, 7.89G.
func count(n int64) string {
	f := float64(n)
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(f/1e9, 'f', 2, 64) + "G"
	case n >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 2, 64) + "M"
	case n >= 1e4:
		return strconv.FormatFloat(f/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func rate(r float64) string { return count(int64(r + 0.5)) }

// pct is a time in ms per second as a share.
func pct(ms float64) string { return strconv.Itoa(int(ms/10+0.5)) + "%" }

func age(now time.Time, unixMs int64) string {
	if unixMs <= 0 {
		return "-"
	}
	d := now.Sub(time.UnixMilli(unixMs))
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Truncate(time.Second).String()
}

// SizeText is a size in bytes as top (and stactor checkpoints) show it.
func SizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
