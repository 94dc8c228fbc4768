package localfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"
)

// The enumerator's checkpointed state is the same bytes as before it
// moved onto splitenum, written out here from the format itself: version
// 1, discovered, then each pending split length-prefixed (version 1, the
// path, start, end, pos, line and owner as varints). A restore of an
// older checkpoint depends on it.
func TestEnumeratorStateBytes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, filepath.Join(dir, name), name+"\n")
	}
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = text")
	ec := newEnumCtx(2)
	en, _ := src.CreateEnumerator(ec, nil)
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	en.RegisterReader(1) // takes b.txt; a.txt and c.txt (owner 0) stay
	state, err := en.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 1}
	for _, name := range []string{"a.txt", "c.txt"} {
		path := filepath.Join(dir, name)
		s := binary.AppendUvarint([]byte{1}, uint64(len(path)))
		s = append(s, path...)
		for _, v := range []int64{0, -1, 0, 0, 0} { // start, end (to EOF), pos, line, owner
			s = binary.AppendVarint(s, v)
		}
		want = binary.AppendUvarint(want, uint64(len(s)))
		want = append(want, s...)
	}
	if !bytes.Equal(state, want) {
		t.Fatalf("state\n %x\nwant\n %x", state, want)
	}
	// and a restore from those bytes deals the rest to reader 0
	ec2 := newEnumCtx(2, 0)
	en2, err := src.CreateEnumerator(ec2, want)
	if err != nil {
		t.Fatal(err)
	}
	en2.Open(context.Background())
	en2.Run()
	if len(ec2.assigned[0]) != 2 || filepath.Base(ec2.assigned[0][1].ID) != "c.txt" || ec2.noMore[0] != 1 {
		t.Fatalf("restored: %v, no more %v", ec2.assigned, ec2.noMore)
	}
}
