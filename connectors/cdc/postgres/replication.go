package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/stactor/stactor/connectors/cdc"
)

// statusEvery bounds the time between two standby status updates, so the
// server's wal_sender_timeout (60 s by default) never ends the stream.
const statusEvery = 10 * time.Second

// Stream follows the slot with logical replication from from. It answers
// keepalives and confirms (flush position) only what Commit recorded: the
// LSN of a completed checkpoint. A keepalive outside a transaction is a
// heartbeat: the server has sent every transaction whose commit record
// starts before its WAL position.
func (d *dialect) Stream(ctx context.Context, from cdc.Offset, emit func(cdc.Event) error) error {
	start, err := parseLSN(from)
	if err != nil {
		return err
	}
	rc, err := d.replicationConn(ctx)
	if err != nil {
		return err
	}
	defer rc.Close(context.Background())
	opts := pglogrepl.StartReplicationOptions{PluginArgs: []string{"proto_version '1'", fmt.Sprintf("publication_names '%s'", d.r.Publication)}}
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err = pglogrepl.StartReplication(ctx, rc, d.r.Slot, start, opts)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55006" { // the slot is active (a peek, or a predecessor not gone yet)
			break
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return fmt.Errorf("starting replication from slot %q at %s: %w", d.r.Slot, start, err)
	}
	dec := newDecoder(d.tables)
	if d.o.SchemaChanges {
		dec.follow = func(ti int, m *pglogrepl.RelationMessage) (*capTable, error) { return d.describeAgain(ctx, ti, m) }
	}
	heartbeat := d.o.Heartbeat
	nextStatus := time.Now()
	lastBeat := time.Time{}
	var sent uint64
	for {
		if now := time.Now(); !now.Before(nextStatus) {
			if err := d.status(ctx, rc, &sent, true); err != nil {
				return err
			}
			nextStatus = now.Add(min(heartbeat, statusEvery))
		}
		rctx, cancel := context.WithDeadline(ctx, nextStatus)
		msg, err := rc.ReceiveMessage(rctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if pgconn.Timeout(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("replication from slot %q: %w", d.r.Slot, err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("replication from slot %q: %s (%s)", d.r.Slot, m.Message, m.Code)
		case *pgproto3.CopyData:
			if len(m.Data) == 0 {
				continue
			}
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return err
				}
				if ka.ReplyRequested {
					nextStatus = time.Now()
				}
				// The keepalive's position is where decoding has read to:
				// a transaction whose commit record starts there may still
				// come, so the heartbeat is one byte before it.
				if !dec.inTx && ka.ServerWALEnd > start && time.Since(lastBeat) >= heartbeat/2 {
					lastBeat = time.Now()
					if err := emit(cdc.Event{Table: -1, Tx: cdc.Offset((ka.ServerWALEnd - 1).String()), End: true}); err != nil {
						return err
					}
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(m.Data[1:])
				if err != nil {
					return err
				}
				if err := dec.feed(x.WALData, emit); err != nil {
					return err
				}
			}
		}
	}
}

// status sends a standby status update with the committed LSN.
func (d *dialect) status(ctx context.Context, rc *pgconn.PgConn, sent *uint64, force bool) error {
	// Before any commit c is 0, InvalidXLogRecPtr: the server confirms
	// nothing (the slot keeps its position) but still answers.
	c := d.committed.Load()
	if !force && c == *sent {
		return nil
	}
	*sent = c
	// ReplyRequested: the server answers with a keepalive, the heartbeat
	// of an idle stream.
	err := pglogrepl.SendStandbyStatusUpdate(ctx, rc, pglogrepl.StandbyStatusUpdate{WALWritePosition: pglogrepl.LSN(c), ReplyRequested: true})
	if err != nil {
		return fmt.Errorf("confirming %s to slot %q: %w", pglogrepl.LSN(c), d.r.Slot, err)
	}
	return nil
}

// replicationConn opens a replication connection (replication=database).
func (d *dialect) replicationConn(ctx context.Context) (*pgconn.PgConn, error) {
	cfg, err := d.conn.PGConfig()
	if err != nil {
		return nil, err
	}
	pcfg := cfg.Config.Copy()
	pcfg.RuntimeParams["replication"] = "database"
	var rc *pgconn.PgConn
	for i := 0; i <= d.o.MaxRetries; i++ {
		if rc, err = pgconn.ConnectConfig(ctx, pcfg); err == nil {
			return rc, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("replication connection to %s: %w", d.conn.Where(), err)
}
