// Command kafkabroker runs franz-go's in-process Kafka broker (kfake) as a
// process of its own for the end-to-end tests, so that a test can SIGKILL
// the stactor binary while the broker lives on, and restart the broker on
// the same port and data directory to fault the job. It listens on
// 127.0.0.1 only, prints "ADDR host:port" on stdout once it serves, and
// stops on SIGTERM or SIGINT (or when stdin closes, so a test that dies
// leaves no broker behind).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free one)")
	dataDir := flag.String("data-dir", "", "keep the log here, and reload it on start (empty: memory only)")
	var topics []string
	flag.Func("topic", "name:partitions to create (repeatable)", func(s string) error { topics = append(topics, s); return nil })
	flag.Parse()
	if err := run(*port, *dataDir, topics); err != nil {
		fmt.Fprintln(os.Stderr, "kafkabroker:", err)
		os.Exit(1)
	}
}

func run(port int, dataDir string, topics []string) error {
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
