package jdbc

import "testing"

func TestStatements(t *testing.T) {
	tbl := &sinkTable{Target: tablePath{Database: "d", Schema: "s", Table: "t"}, Columns: []string{"id", "k2", "v"}, Key: []string{"id", "k2"}}
	pg, my := dialectSQL{name: dialectPostgres}, dialectSQL{name: dialectMySQL}
	for _, tc := range []struct{ got, want string }{
		{insertSQL(pg, tbl, 2, false), `INSERT INTO "s"."t" ("id", "k2", "v") VALUES ($1,$2,$3),($4,$5,$6)`},
		{insertSQL(pg, tbl, 1, true), `INSERT INTO "s"."t" ("id", "k2", "v") VALUES ($1,$2,$3) ON CONFLICT ("id", "k2") DO UPDATE SET "v" = EXCLUDED."v"`},
		{insertSQL(my, tbl, 1, true), "INSERT INTO `d`.`t` (`id`, `k2`, `v`) VALUES (?,?,?) ON DUPLICATE KEY UPDATE `v` = VALUES(`v`)"},
		{deleteSQL(pg, tbl, 2), `DELETE FROM "s"."t" WHERE ("id", "k2") IN (($1,$2),($3,$4))`},
		{deleteSQL(my, &sinkTable{Target: tbl.Target, Columns: tbl.Columns, Key: []string{"id"}}, 2), "DELETE FROM `d`.`t` WHERE `id` IN (?,?)"},
		{insertSQL(pg, &sinkTable{Target: tbl.Target, Columns: []string{"id"}, Key: []string{"id"}}, 1, true), `INSERT INTO "s"."t" ("id") VALUES ($1) ON CONFLICT ("id") DO NOTHING`},
		{numberPlaceholders(`insert into x values (?, '?', "a?b", ?)`), `insert into x values ($1, '?', "a?b", $2)`},
		{dialectSQL{name: dialectPostgres}.quote(`we"ird`), `"we""ird"`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

func TestXIDs(t *testing.T) {
	task := testTask
	task.Term, task.Attempt, task.SubtaskIndex = 7, 12, 3
	x := xidOf(task, "abc123", 42)
	prefix := xidPrefix(task.JobID, "abc123", task.Pipeline)
	if len(x) > 64 {
		t.Errorf("xid %q longer than MySQL's 64 bytes", x)
	}
	if a, ok := xidAttempt(x, prefix); !ok || a != 12 {
		t.Errorf("attempt of %q: %d %v", x, a, ok)
	}
	if _, ok := xidAttempt(x, xidPrefix("other-job", "abc123", task.Pipeline)); ok {
		t.Errorf("another job's prefix matched %q", x)
	}
	task2 := task
	task2.Attempt = 13
	if xidOf(task2, "abc123", 42) == x || xidOf(task, "abc124", 42) == x || xidOf(task, "abc123", 43) == x {
		t.Error("xids collide")
	}
}
