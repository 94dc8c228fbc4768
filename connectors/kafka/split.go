package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stactor/stactor/connectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// split is one partition of one table of the source, with its position:
// Offset is the next offset to read, End the offset a BATCH job stops at
// (-1: none). Offsets count every record of the log, the transaction
// markers a read_committed consumer never sees included.
type split struct {
	Table     int    `json:"table"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	End       int64  `json:"end"`
}

func (s *split) ref() partitionRef { return partitionRef{s.Topic, s.Partition} }

func (s *split) id() string { return fmt.Sprintf("%d:%s-%d", s.Table, s.Topic, s.Partition) }

// finished: a BATCH split read to its end.
func (s *split) finished() bool { return s.End >= 0 && s.Offset >= s.End }

func (s *split) encode() connectors.Split {
	b, _ := json.Marshal(s) // a struct of plain fields always encodes
	return connectors.Split{ID: s.id(), Data: b}
}

func decodeSplit(cs connectors.Split) (*split, error) {
	var s split
	if err := json.Unmarshal(cs.Data, &s); err != nil {
		return nil, fmt.Errorf("Kafka split %s: %w", cs.ID, err)
	}
	return &s, nil
}

// startSplits are the splits of table ti's partitions, at the offsets its
// start_mode says, and, in BATCH, ending at the end offsets seen now (the
// last stable offsets under read_committed).
func startSplits(ctx context.Context, adm *kadm.Client, sc *sourceConfig, ti int, parts []partitionRef) ([]*split, error) {
	t := sc.tables[ti]
	topics := topicsOf(parts)
	if len(topics) == 0 {
		return nil, nil
	}
	lookup := func(what string, l kadm.ListedOffsets, err error) (func(partitionRef) (int64, error), error) {
		if err != nil {
			return nil, fmt.Errorf("listing %s offsets: %w", what, err)
		}
		return func(p partitionRef) (int64, error) {
			o, ok := l.Lookup(p.Topic, p.Partition)
			if !ok {
				return 0, fmt.Errorf("no %s offset of %s", what, p)
			}
			if o.Err != nil {
				return 0, fmt.Errorf("%s offset of %s: %w", what, p, o.Err)
			}
			return o.Offset, nil
		}, nil
	}
	l, err := adm.ListStartOffsets(ctx, topics...)
	earliest, err := lookup("earliest", l, err)
	if err != nil {
		return nil, err
	}
	l, err = adm.ListEndOffsets(ctx, topics...)
	latest, err := lookup("latest", l, err)
	if err != nil {
		return nil, err
	}
	var start func(partitionRef) (int64, error)
	switch t.startMode {
	case startEarliest:
		start = earliest
	case startLatest:
		start = latest
	case startTimestamp:
		l, err := adm.ListOffsetsAfterMilli(ctx, t.timestamp, topics...)
		after, err := lookup("timestamp", l, err)
		if err != nil {
			return nil, err
		}
		start = func(p partitionRef) (int64, error) {
			o, err := after(p)
			if err == nil && o < 0 {
				return latest(p) // nothing at or after the time yet
			}
			return o, err
		}
	case startSpecific:
		known := map[partitionRef]bool{}
		for _, p := range parts {
			known[p] = true
		}
		// As SeaTunnel: the partitions named in start_mode.offsets are the
		// ones read.
		parts = parts[:0]
		for p := range t.offsets {
			if !known[p] {
				return nil, fmt.Errorf("start_mode.offsets: %s is not a partition of the topics read", p)
			}
			parts = append(parts, p)
		}
		sortRefs(parts)
		start = func(p partitionRef) (int64, error) { return t.offsets[p], nil }
	default: // group_offsets
		committed, err := adm.FetchOffsets(ctx, t.group)
		if errors.Is(err, kerr.GroupIDNotFound) {
			committed, err = nil, nil // a group that never committed
		}
		if err != nil {
			return nil, fmt.Errorf("fetching the offsets of consumer group %q: %w", t.group, err)
		}
		start = func(p partitionRef) (int64, error) {
			if o, ok := committed.Lookup(p.Topic, p.Partition); ok && o.Err == nil && o.At >= 0 {
				return o.At, nil
			}
			switch sc.client.offsetReset {
			case "latest":
				return latest(p)
			case "none":
				return 0, fmt.Errorf("consumer group %q has no offset for %s and auto.offset.reset is none", t.group, p)
			}
			return earliest(p)
		}
	}
	end := func(partitionRef) (int64, error) { return -1, nil }
	if sc.bounded {
		what, l, err := "last stable", kadm.ListedOffsets(nil), error(nil)
		if sc.client.readUncommitted {
			what = "latest"
			l, err = adm.ListEndOffsets(ctx, topics...)
		} else {
			l, err = adm.ListCommittedOffsets(ctx, topics...)
		}
		if end, err = lookup(what, l, err); err != nil {
			return nil, err
		}
	}
	var out []*split
	for _, p := range parts {
		s := &split{Table: ti, Topic: p.Topic, Partition: p.Partition}
		if s.Offset, err = start(p); err != nil {
			return nil, err
		}
		lo, err := earliest(p)
		if err != nil {
			return nil, err
		}
		s.Offset = max(s.Offset, lo)
		if s.End, err = end(p); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func topicsOf(parts []partitionRef) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		if !seen[p.Topic] {
			seen[p.Topic] = true
			out = append(out, p.Topic)
		}
	}
	return out
}
