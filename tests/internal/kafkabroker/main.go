// Command kafkabroker runs franz-go's in-process Kafka broker (kfake) as a
// process of its own for the end-to-end tests, so that a test can SIGKILL
// the stactor binary while the broker lives on, and restart the broker on
// the same port and data directory to fault the job. It listens on
// 127.0.0.1 only, prints "ADDR host:port" on stdout once it serves, and
// stops on SIGTERM or SIGINT (or when stdin closes, so a test that dies
// leaves no broker behind).
//
// With -hold-commit N it holds the N-th EndTxn that commits a transaction:
// it prints "HELD <transactional id>" and answers nothing until SIGUSR1,
// then drops the request (closing the connection) without ending the
// transaction. A test kills the client in between: a crash after a
// checkpoint completed and before its transactions were committed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free one)")
	dataDir := flag.String("data-dir", "", "keep the log here, and reload it on start (empty: memory only)")
	var topics []string
	flag.Func("topic", "name:partitions to create (repeatable)", func(s string) error { topics = append(topics, s); return nil })
	hold := flag.Int("hold-commit", 0, "hold the N-th committing EndTxn until SIGUSR1, then drop it (0: none)")
	flag.Parse()
	if err := run(*port, *dataDir, topics, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "kafkabroker:", err)
		os.Exit(1)
	}
}

func run(port int, dataDir string, topics []string, hold int) error {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port)}
	if dataDir != "" {
		opts = append(opts, kfake.DataDir(dataDir))
	}
	for _, t := range topics {
		name, n, ok := strings.Cut(t, ":")
		parts, err := strconv.Atoi(n)
		if !ok || err != nil || parts < 1 {
			return fmt.Errorf("-topic %q: expected name:partitions", t)
		}
		opts = append(opts, kfake.SeedTopics(int32(parts), name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	if hold > 0 {
		holdCommit(c, hold)
	}
	fmt.Printf("ADDR %s\n", c.ListenAddrs()[0])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	stdin := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdin)
	}()
	select {
	case <-stop:
	case <-stdin:
	}
	return nil
}

// holdCommit holds the n-th committing EndTxn as the package comment says.
func holdCommit(c *kfake.Cluster, n int) {
	release := make(chan struct{})
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() { <-usr1; close(release) }()
	var seen atomic.Int64
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		end := req.(*kmsg.EndTxnRequest)
		if !end.Commit || seen.Add(1) != int64(n) {
			return nil, nil, false
		}
		fmt.Printf("HELD %s\n", end.TransactionalID)
		c.SleepControl(func() { <-release })
		c.DropControl()
		return nil, fmt.Errorf("commit of %s held and dropped", end.TransactionalID), true
	})
}
