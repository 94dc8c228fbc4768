package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/top"
	"github.com/stactor/stactor/plan"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/jetstream"
)

func newCheckpointsCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoints JOB_ID",
		Short: "List a job's completed checkpoints and savepoints",
		Long: `List the completed checkpoints and savepoints that local storage
(STACTOR_HOME/checkpoints) holds for a job: id, pipeline, type, completion
time, size, and how long each took from trigger to completion. With --nats,
the cluster's checkpoint storage on NATS JetStream is read instead.

With --detail, each checkpoint's diagnosis: per subtask when its barrier
arrived, how long its snapshot, its alignment (waiting for its inputs'
barrier markers) and writing its state took, how much channel state it
recorded and when its ack arrived; each sink's commit time; and the vertex
that delayed the checkpoint most and why (waiting for barriers, writing
state, committing). SLOW marks a checkpoint that took more than twice its
pipeline's median.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, where, closeStore, err := openStore(cmd, s)
			if err != nil {
				return err
			}
			defer closeStore()
			spec, err := store.LoadJob(args[0])
			if err != nil {
				return &exitError{2, fmt.Errorf("no job %s in %s", args[0], where)}
			}
			cps, err := store.List(args[0])
			if err != nil {
				return err
			}
			if detail, _ := cmd.Flags().GetBool("detail"); detail {
				return printDiagnoses(cmd.OutOrStdout(), spec, cps)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPIPELINE\tATTEMPT\tTYPE\tCOMPLETED\tSIZE\tDURATION\tCHANNEL BATCHES")
			for _, cp := range cps {
				fmt.Fprintf(w, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\n", cp.Id, cp.Pipeline, cp.Attempt, cp.Type,
					time.UnixMilli(cp.CompleteUnixMs).Format(time.DateTime+".000"), top.SizeText(cp.SizeBytes),
					time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond, cp.ChannelBatches)
			}
			if len(cps) == 0 {
				fmt.Fprintln(w, "(none)")
			}
			return w.Flush()
		},
	}
	cmd.Flags().String("nats", "", "read a cluster's checkpoints from NATS JetStream at this URL")
	cmd.Flags().String("cluster", "stactor", "cluster name (with --nats)")
	cmd.Flags().Bool("detail", false, "diagnose each checkpoint: per subtask timings, commit times, and the vertex that delayed it and why")
	return cmd
}

// printDiagnoses prints checkpoint.DiagnoseAll of the job's checkpoints,
// with the vertex names of the plan it was resolved with.
func printDiagnoses(out io.Writer, spec *messages.JobSpec, cps []*messages.CompletedCheckpoint) error {
	var topo checkpoint.Topology
	if spec.Resolved != nil {
		if p, err := plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved); err == nil {
			topo = checkpoint.TopologyOf(p)
		}
	}
	if len(cps) == 0 {
		fmt.Fprintln(out, "(no checkpoints)")
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }
	for i, d := range checkpoint.DiagnoseAll(cps, topo) {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out, d.Summary())
		if len(d.Subtasks) == 0 {
			fmt.Fprintln(out, "  (no timings recorded)")
			continue
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  SUBTASK\tBARRIER AT\tSNAPSHOT\tALIGNMENT\tSTATE WRITE\tACK AT\tSTATE\tCHANNEL STATE")
		for _, s := range d.Subtasks {
			fmt.Fprintf(w, "  %s #%d\t+%s\t%s\t%s\t%s\t+%s\t%s\t%d batches, %s\n", s.Name, s.Subtask, ms(s.Barrier), ms(s.Snapshot),
				ms(s.Alignment), ms(s.StateWrite), ms(s.Ack), top.SizeText(s.StateBytes), s.ChannelBatches, top.SizeText(s.ChannelBytes))
		}
		for _, c := range d.Commits {
			fmt.Fprintf(w, "  commit %s\t\t\t\t\t+%s\t\t\n", c.Vertex, ms(c.Took))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// openStore opens the checkpoint storage a command reads: local storage
// (STACTOR_HOME/checkpoints), or with --nats URL the cluster's on NATS
// JetStream (--cluster names it). where says which, for errors.
func openStore(cmd *cobra.Command, s *settings) (store storage.Storage, where string, closeStore func(), err error) {
	url, _ := cmd.Flags().GetString("nats")
	if url == "" {
		local, err := s.store()
		if err != nil {
			return nil, "", nil, err
		}
		return local, s.v.GetString("home"), func() {}, nil
	}
	cluster, _ := cmd.Flags().GetString("cluster")
	opts, err := s.natsAuth().Options()
	if err != nil {
		return nil, "", nil, &exitError{2, err}
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, "", nil, fmt.Errorf("connecting to NATS at %s: %w", url, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := jetstream.New(ctx, nc, "stactor_"+cluster)
	if err != nil {
		nc.Close()
		return nil, "", nil, fmt.Errorf("checkpoint storage of cluster %s on %s: %w", cluster, url, err)
	}
	return js, "cluster " + cluster, nc.Close, nil
}
