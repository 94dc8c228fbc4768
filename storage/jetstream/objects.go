package jetstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// errGone: the object (or the key) is not stored — never written, or
// deleted, possibly while it was being read.
var errGone = errors.New("gone")

func (s *Store) metaSubject(name string) string {
	return "$O." + s.objBucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name))
}

func (s *Store) chunkSubject(nuid string) string { return "$O." + s.objBucket + ".C." + nuid }

// putObject stores data under name, replacing what was there. The object
// store writes the chunks first and then the meta message that makes them
// the object, so a reader sees the old object or all of the new one.
// A meta message that does not decode would make every later Put of the
// name fail; it is purged and the Put made again.
func (s *Store) putObject(ctx context.Context, name string, data []byte) error {
	_, err := s.obs.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data))
	if errors.Is(err, jetstream.ErrBadObjectMeta) {
		if err := s.deleteObject(ctx, name); err != nil {
			return err
		}
		_, err = s.obs.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data))
	}
	return unacknowledged(err)
}

// unacknowledged says why a write timed out when it did: nats-server
// sends no answer for a message it could not store (it logs the error;
// on "no space left on device" it also disables JetStream until it
// restarts), so a full disk under its store reaches the writer only as
// its timeout.
func unacknowledged(err error) error {
	if errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: JetStream did not acknowledge the write (nats-server does not answer one it could not store, as on a full disk: see its log)", err)
	}
	return err
}

// objectInfo reads an object's meta message. seq is the message's sequence
// (0 when there is none); err is errGone for an object that is absent or
// deleted, a corruptError for a meta message that does not decode.
func (s *Store) objectInfo(ctx context.Context, name string) (info *jetstream.ObjectInfo, seq uint64, err error) {
	m, err := s.objStream.GetLastMsgForSubject(ctx, s.metaSubject(name))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, 0, errGone
	}
	if err != nil {
		return nil, 0, err
	}
	info = &jetstream.ObjectInfo{}
	if err := json.Unmarshal(m.Data, info); err != nil {
		return nil, m.Sequence, corrupt("undecodable object meta: %v", err)
	}
	if info.Deleted {
		return nil, m.Sequence, errGone
	}
	if info.NUID == "" || info.Opts != nil && info.Opts.Link != nil {
		return nil, m.Sequence, corrupt("object meta without chunks")
	}
	return info, m.Sequence, nil
}

// readObject reads an object whole and checks its size and SHA-256 digest.
// It fetches each chunk as a message of the stream, so an object deleted
// (chunks purged) while it is read is errGone at once rather than a wait,
// and a chunk lost while the meta message is still there is corruption.
func (s *Store) readObject(ctx context.Context, name string) ([]byte, error) {
	for range 3 { // an object replaced while read is read again
		info, _, err := s.objectInfo(ctx, name)
		if err != nil {
			return nil, err
		}
		data, err := s.readChunks(ctx, info)
		if !errors.Is(err, errMissingChunk) {
			return data, err
		}
		now, _, err2 := s.objectInfo(ctx, name)
		switch {
		case errors.Is(err2, errGone):
			return nil, errGone
		case err2 != nil:
			return nil, err2
		case now.NUID == info.NUID:
			return nil, corrupt("%v", err)
		}
	}
	return nil, fmt.Errorf("object %s: replaced while read, three times", name)
}

var errMissingChunk = errors.New("missing chunk")

func (s *Store) readChunks(ctx context.Context, info *jetstream.ObjectInfo) ([]byte, error) {
	want, err := jetstream.DecodeObjectDigest(info.Digest)
	if err != nil {
		return nil, corrupt("bad object digest %q", info.Digest)
	}
	subj := s.chunkSubject(info.NUID)
	h := sha256.New()
	data := make([]byte, 0, min(info.Size, 4<<20)) // the meta's size is not trusted yet
	seq := uint64(1)
	for i := range info.Chunks {
		m, err := s.objStream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, fmt.Errorf("%w %d of %d", errMissingChunk, i+1, info.Chunks)
		}
		if err != nil {
			return nil, err
		}
		h.Write(m.Data)
		data = append(data, m.Data...)
		seq = m.Sequence + 1
	}
	if uint64(len(data)) != info.Size {
		return nil, corrupt("%d bytes in the chunks, %d in the object meta", len(data), info.Size)
	}
	if !bytes.Equal(h.Sum(nil), want) {
		return nil, corrupt("object digest mismatch")
	}
	return data, nil
}

// deleteObject removes an object without a trace: its chunks, then its
// meta message and the older ones (not a newer one, should the name have
// been written again meanwhile). A crash in between leaves meta without
// chunks, which reads as corrupt and is deleted again by whoever deleted
// it (its marker goes last). Absent is fine.
func (s *Store) deleteObject(ctx context.Context, name string) error {
	info, seq, err := s.objectInfo(ctx, name)
	if seq == 0 {
		if errors.Is(err, errGone) {
			return nil
		}
		return err
	}
	if info != nil {
		if err := s.objStream.Purge(ctx, jetstream.WithPurgeSubject(s.chunkSubject(info.NUID))); err != nil {
			return err
		}
	}
	return s.objStream.Purge(ctx, jetstream.WithPurgeSubject(s.metaSubject(name)), jetstream.WithPurgeSequence(seq+1))
}

// putMarker announces an object before it is written.
func (s *Store) putMarker(ctx context.Context, key string) error {
	_, err := s.kv.Put(ctx, key, nil)
	return unacknowledged(err)
}

// deleteMarker purges a key up to revision rev (0: all of it). A purge
// leaves no delete marker behind, unlike kv.Delete and kv.Purge, whose
// markers would pile up by one per object ever stored.
func (s *Store) deleteMarker(ctx context.Context, key string, rev uint64) error {
	opts := []jetstream.StreamPurgeOpt{jetstream.WithPurgeSubject("$KV." + s.kvBucket + "." + key)}
	if rev > 0 {
		opts = append(opts, jetstream.WithPurgeSequence(rev+1))
	}
	return s.kvStream.Purge(ctx, opts...)
}

// listKeys returns the keys matching filter with their revisions.
func (s *Store) listKeys(ctx context.Context, filter string) (map[string]uint64, error) {
	w, err := s.kv.WatchFiltered(ctx, []string{filter}, jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	keys := map[string]uint64{}
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, fmt.Errorf("list keys %s: watcher closed", filter)
			}
			if e == nil { // all current values delivered
				return keys, nil
			}
			keys[e.Key()] = max(keys[e.Key()], e.Revision())
		case <-ctx.Done():
			return nil, fmt.Errorf("list keys %s: %w", filter, ctx.Err())
		}
	}
}
