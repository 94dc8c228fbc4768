package mysql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// clauseText renders parsed clauses for comparison: op, old name, new
// name, MySQL type, nullability, default, comment, charset, place.
func clauseText(cs []alterClause) string {
	var parts []string
	for _, c := range cs {
		s := c.change.Op.String()
		if c.change.Name != "" {
			s += " " + c.change.Name
		}
		if c.def.Name != "" {
			s += " " + c.def.Name
		}
		if c.def.Type != "" {
			s += " " + c.def.Type
			if !c.def.Nullable {
				s += " NOT NULL"
			}
		}
		if c.change.Default != "" {
			s += " DEFAULT " + c.change.Default
		}
		if c.def.Comment != "" {
			s += " COMMENT " + c.def.Comment
		}
		if c.charset != "" {
			s += " CHARSET " + c.charset
		}
		if c.change.First {
			s += " FIRST"
		}
		if c.change.After != "" {
			s += " AFTER " + c.change.After
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestParseAlter(t *testing.T) {
	for _, c := range []struct{ q, table, want string }{
		// SeaTunnel's MysqlCDCWithSchemaChangeIT scripts (ddl/*.sql).
		{"alter table products ADD COLUMN add_column1 varchar(64) not null default 'yy',ADD COLUMN add_column2 int not null default 1", "shop.products",
			"ADD COLUMN add_column1 varchar(64) NOT NULL DEFAULT 'yy'; ADD COLUMN add_column2 int NOT NULL DEFAULT 1"},
		{"alter table products ADD COLUMN add_column3 float not null default 1.1", "shop.products", "ADD COLUMN add_column3 float NOT NULL DEFAULT 1.1"},
		{"alter table products ADD COLUMN add_column4 timestamp not null default current_timestamp()", "shop.products",
			"ADD COLUMN add_column4 timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP"},
		{"alter table products drop column add_column4", "shop.products", "DROP COLUMN add_column4"},
		{"alter table products drop column add_column1,drop column add_column3", "shop.products", "DROP COLUMN add_column1; DROP COLUMN add_column3"},
		{"alter table products change add_column2 add_column int default 1 not null", "shop.products",
			"CHANGE COLUMN add_column2 add_column int NOT NULL DEFAULT 1"},
		{"alter table products modify name longtext null", "shop.products", "CHANGE COLUMN name name longtext"},
		// Backquotes, a qualified name, comments, positions, several forms.
		{"ALTER TABLE `db`.`my t` ADD `we``ird` INT(11) UNSIGNED NULL COMMENT 'it''s' AFTER `id`, ADD COLUMN b bool FIRST", "db.my t",
			"ADD COLUMN we`ird int(11) unsigned COMMENT it's AFTER id; ADD COLUMN b tinyint(1) FIRST"},
		{"/* x */ ALTER TABLE t ADD COLUMN (a decimal, b double precision not null), ADD INDEX ix (a), ENGINE = InnoDB", "shop.t",
			"ADD COLUMN a decimal(10,0); ADD COLUMN b double NOT NULL"},
		{"alter table t modify column c varchar(10) character set latin1 collate latin1_bin default null comment \"a \\\"q\\\"\" first", "shop.t",
			"CHANGE COLUMN c c varchar(10) DEFAULT NULL COMMENT a \"q\" CHARSET latin1 FIRST"},
		{"ALTER TABLE t RENAME COLUMN a TO b, DROP PRIMARY KEY, ADD PRIMARY KEY (b), ALGORITHM=INPLACE, LOCK=NONE", "shop.t", "RENAME COLUMN a b"},
		{"alter table t add column e enum('x','y''z') not null default 'x', add column n int default -1", "shop.t",
			"ADD COLUMN e enum('x','y''z') NOT NULL DEFAULT 'x'; ADD COLUMN n int DEFAULT -1"},
		{"ALTER TABLE t ADD COLUMN ts datetime(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)", "shop.t",
			"ADD COLUMN ts datetime(3) DEFAULT CURRENT_TIMESTAMP"},
		{"ALTER TABLE t ADD INDEX i (a), COMMENT = 'x', AUTO_INCREMENT = 5", "shop.t", ""},
		// What is not carried.
		{"ALTER TABLE t ALTER COLUMN a SET DEFAULT 1", "shop.t", "error: \"ALTER COLUMN a SET DEFAULT 1\" is not carried"},
		{"ALTER TABLE t RENAME TO u", "shop.t", "error: \"RENAME TO u\" is not carried"},
		{"ALTER TABLE t CONVERT TO CHARACTER SET latin1", "shop.t", "error: \"CONVERT TO CHARACTER SET latin1\" is not carried"},
		{"ALTER TABLE t ADD COLUMN g int AS (a + 1) VIRTUAL", "shop.t", "error: column g: a generated column is not carried"},
		{"ALTER TABLE t ADD COLUMN a int WHATEVER", "shop.t", "error: column a: \"WHATEVER\" is not understood in a column definition"},
		{"ALTER TABLE t ADD COLUMN a int, ", "shop.t", "error: a clause expected after the comma"},
		{"ALTER TABLE t ADD COLUMN 'a' int", "shop.t", "error: a column name expected at \"a int\""},
		{"ALTER TABLE t ADD COLUMN a varchar(10", "shop.t", "error: column a: an unterminated type"},
	} {
		table, cs, isAlter, err := parseAlter(c.q, "shop")
		got := clauseText(cs)
		if err != nil {
			got = "error: " + err.Error()
		}
		if !isAlter || table != c.table || !strings.HasPrefix(got, c.want) || c.want == "" && got != "" {
			t.Errorf("%s:\n got %s %q (alter %v)\nwant %s %q", c.q, table, got, isAlter, c.table, c.want)
		}
	}
	// MariaDB's IF [NOT] EXISTS: a clause that finds nothing to do is
	// left out.
	s := row.MustSchema("shop.t", row.Field{Name: "a", Type: row.Int}, row.Field{Name: "b", Type: row.Int})
	_, cs, _, err := parseAlter("ALTER TABLE t DROP COLUMN IF EXISTS x, ADD COLUMN IF NOT EXISTS a int, ADD COLUMN IF NOT EXISTS c int, "+
		"MODIFY IF EXISTS y int, CHANGE COLUMN IF EXISTS b b2 bigint, DROP IF EXISTS c", "shop")
	if got := clauseText(applicable(s, cs)); err != nil || got != "ADD COLUMN c int; CHANGE COLUMN b b2 bigint; DROP COLUMN c" {
		t.Errorf("IF [NOT] EXISTS: %q (%v)", got, err)
	}
	for _, q := range []string{"CREATE TABLE t (a int)", "ALTER DATABASE d CHARACTER SET latin1", "BEGIN"} {
		if _, _, isAlter, err := parseAlter(q, "shop"); isAlter || err != nil {
			t.Errorf("%s: alter %v, %v", q, isAlter, err)
		}
	}
}

// FuzzParseAlter: any statement parses or fails, never panics, and what
// parses renders.
func FuzzParseAlter(f *testing.F) {
	for _, s := range []string{"alter table products ADD COLUMN add_column1 varchar(64) not null default 'yy',ADD COLUMN add_column2 int",
		"ALTER TABLE `a`.`b` CHANGE `x` y enum('a','b') FIRST", "alter table t drop column a, modify b text /* c */ -- d",
		"ALTER TABLE t ADD (a int default (1 + 2), b bit(3) default b'101')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_, cs, _, err := parseAlter(q, "db")
		if err == nil {
			_ = fmt.Sprint(clauseText(cs))
		}
	})
}
