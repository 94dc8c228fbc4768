package fake

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
)

// The enumerator's checkpointed state is the same bytes as before it
// moved onto splitenum, written out here from the format itself: version
// 1, discovered, then each pending split length-prefixed (version 1, the
// table, index, rows, pos as uvarints and the year as a varint).
func TestEnumeratorStateBytes(t *testing.T) {
	src := newSource(t, "row.num = 4\nsplit.num = 2\n"+simple, connectors.Batch)
	ctx := newEnumCtx(2)
	en, _ := src.CreateEnumerator(ctx, nil)
	year := time.Now().Year()
	en.Run()
	en.RegisterReader(1) // takes splits 1 and 3; 0 and 2 stay
	state, err := en.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	table := src.tables[0].schema.TableID
	want := []byte{1, 1}
	for _, index := range []uint64{0, 2} {
		s := binary.AppendUvarint([]byte{1}, uint64(len(table)))
		s = append(s, table...)
		s = binary.AppendUvarint(s, index)
		s = binary.AppendUvarint(s, 2) // rows
		s = binary.AppendUvarint(s, 0) // pos
		s = binary.AppendVarint(s, int64(year))
		want = binary.AppendUvarint(want, uint64(len(s)))
		want = append(want, s...)
	}
	if !bytes.Equal(state, want) {
		t.Fatalf("state\n %x\nwant\n %x", state, want)
	}
}
