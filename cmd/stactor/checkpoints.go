package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/stactor/stactor/monitor/top"
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
the cluster's checkpoint storage on NATS JetStream is read instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var store storage.Storage
			where := s.v.GetString("home")
			if url, _ := cmd.Flags().GetString("nats"); url != "" {
				cluster, _ := cmd.Flags().GetString("cluster")
				opts, err := s.natsAuth().Options()
				if err != nil {
					return &exitError{2, err}
				}
				nc, err := nats.Connect(url, opts...)
				if err != nil {
					return fmt.Errorf("connecting to NATS at %s: %w", url, err)
				}
				defer nc.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				js, err := jetstream.New(ctx, nc, "stactor_"+cluster)
				if err != nil {
					return fmt.Errorf("checkpoint storage of cluster %s on %s: %w", cluster, url, err)
				}
				store, where = js, "cluster "+cluster
			} else {
				local, err := s.store()
				if err != nil {
					return err
				}
				store = local
			}
			if _, err := store.LoadJob(args[0]); err != nil {
				return &exitError{2, fmt.Errorf("no job %s in %s", args[0], where)}
			}
			cps, err := store.List(args[0])
			if err != nil {
				return err
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
	return cmd
}
