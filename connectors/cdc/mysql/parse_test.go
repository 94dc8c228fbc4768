package mysql

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestParseServerIDs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"5400", "5400-5400"},
		{" 5400-5408 ", "5400-5408"},
		{"0", "error"},
		{"abc", "error"},
		{"10-9", "error"},
		{"5400-", "error"},
		{"4294967296", "error"},
	} {
		ids, err := parseServerIDs(c.in, 4)
		got := fmt.Sprintf("%d-%d", ids.First, ids.Last)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("%q: %s (%v), want %s", c.in, got, err, c.want)
		}
	}
	// Connections of one process never share an id: a third waits for
	// one of two to be released.
	ids, _ := parseServerIDs("5400-5401", 1)
	ctx := context.Background()
	a, relA, err := ids.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, relB, _ := ids.acquire(ctx)
	if a != 5400 || b != 5401 {
		t.Fatalf("ids %d %d", a, b)
	}
	got := make(chan uint32)
	go func() {
		c, rel, _ := ids.acquire(ctx)
		defer rel()
		got <- c
	}()
	select {
	case c := <-got:
		t.Fatalf("a third connection got id %d while both were held", c)
	case <-time.After(50 * time.Millisecond):
	}
	relB()
	if c := <-got; c != 5401 {
		t.Fatalf("third connection got %d, want the released 5401", c)
	}
	relA()
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	one, _ := parseServerIDs("6000", 1)
	_, rel, _ := one.acquire(ctx)
	if _, _, err := one.acquire(short); err == nil {
		t.Error("acquired a held id")
	}
	rel()
	random, err := parseServerIDs("", 8)
	if err != nil || random.First < 6500 || random.Count() != 8 {
		t.Errorf("random ids %+v %v", random, err)
	}
}

func TestOffsets(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"binlog.000009:500", "binlog.000010:4", -1},
		{"binlog.000010:4", "binlog.000010:4", 0},
		{"binlog.000010:400", "binlog.000010:39", 1},
		{"gtid:0-1-5", "binlog.000001:4", -1},
	} {
		a, err := parseOffset(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := parseOffset(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Compare(b); got != c.want {
			t.Errorf("%s vs %s: %d, want %d", c.a, c.b, got, c.want)
		}
		if a.String() != c.a {
			t.Errorf("%q round trips to %q", c.a, a.String())
		}
	}
	for _, bad := range []string{"nofile", "f:x", ":3"} {
		if _, err := parseOffset(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestDDLTable(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"ALTER TABLE kv ADD COLUMN x INT", "db.kv"},
		{"alter online ignore table `shop`.`kv` drop column x", "shop.kv"},
		{"/* c */ ALTER TABLE shop.kv ADD x INT", "shop.kv"},
		{"TRUNCATE kv", "db.kv"},
		{"TRUNCATE TABLE shop.kv", "shop.kv"},
		{"DROP TABLE IF EXISTS `kv`", "db.kv"},
		{"RENAME TABLE kv TO kv2", "db.kv"},
		{"CREATE TABLE kv (k INT)", ""},
		{"ALTER DATABASE db CHARACTER SET utf8mb4", ""},
		{"INSERT INTO kv VALUES (1)", ""},
	} {
		got, _ := ddlTable(c.q, "db")
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.q, got, c.want)
		}
	}
}

func TestTypeArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"enum('a','b c','it''s')", "[a b c it's]"},
		{"set('x,y','z')", "[x,y z]"},
		{"decimal(10,2)", "[10 2]"},
		{"int", "[]"},
	} {
		if got := fmt.Sprint(typeArgs(c.in)); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}
