package jdbc

import (
	"strings"
	"testing"
)

func TestParseJDBCURL(t *testing.T) {
	for _, tc := range []struct {
		in, dialect, hosts, db string
		params                 map[string]string
		err                    string
	}{
		{in: "jdbc:postgresql://localhost/test", dialect: dialectPostgres, hosts: "localhost:5432", db: "test"},
		{in: "jdbc:postgresql://h1:6000,h2/db?sslmode=disable&currentSchema=s1", dialect: dialectPostgres, hosts: "h1:6000,h2:5432", db: "db", params: map[string]string{"sslmode": "disable", "currentSchema": "s1"}},
		{in: "jdbc:postgresql:mydb", dialect: dialectPostgres, hosts: "localhost:5432", db: "mydb"},
		{in: "jdbc:postgresql://[::1]:5433/x", dialect: dialectPostgres, hosts: "[::1]:5433", db: "x"},
		{in: "jdbc:mysql://localhost:3306/test?serverTimezone=GMT%2b8&useUnicode=true", dialect: dialectMySQL, hosts: "localhost:3306", db: "test", params: map[string]string{"serverTimezone": "GMT+8", "useUnicode": "true"}},
		{in: "jdbc:mariadb://db.example/", dialect: dialectMySQL, hosts: "db.example:3306", db: ""},
		{in: "jdbc:mysql://e2e:3306", dialect: dialectMySQL, hosts: "e2e:3306", db: ""},
		{in: "postgresql://x/y", err: "not a JDBC URL"},
		{in: "jdbc:oracle:thin:@localhost:1521/xe", err: `unsupported database "oracle"`},
		{in: "jdbc:mysql://h:99999/db", err: "bad port"},
		{in: "jdbc:mysql:h/db", err: "expected //"},
		{in: "jdbc:mysql://h/db?password=secret&x=%zz", err: "bad escape"},
	} {
		u, err := parseJDBCURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: error shows the password: %v", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if u.dialect != tc.dialect || strings.Join(u.hosts, ",") != tc.hosts || u.database != tc.db {
			t.Errorf("%s: got %s %v %q", tc.in, u.dialect, u.hosts, u.database)
		}
		for k, v := range tc.params {
			if u.params[k] != v {
				t.Errorf("%s: param %s = %q, want %q", tc.in, k, u.params[k], v)
			}
		}
	}
}

func TestCheckDriverClass(t *testing.T) {
	pg, _ := parseJDBCURL("jdbc:postgresql://h/db")
	my, _ := parseJDBCURL("jdbc:mysql://h/db")
	if err := checkClass("driver", "org.postgresql.Driver", pg, driverClasses); err != nil {
		t.Error(err)
	}
	if err := checkClass("driver", "org.mariadb.jdbc.Driver", my, driverClasses); err != nil {
		t.Error(err)
	}
	err := checkClass("driver", "com.mysql.cj.jdbc.Driver", pg, driverClasses)
	if err == nil || !strings.Contains(err.Error(), "is a mysql class but the url is jdbc:postgresql (use org.postgresql.Driver)") {
		t.Error(err)
	}
	err = checkClass("xa_data_source_class_name", "oracle.jdbc.xa.OracleXADataSource", my, xaClasses)
	if err == nil || !strings.Contains(err.Error(), "unknown xa_data_source_class_name") {
		t.Error(err)
	}
}

func TestTablePath(t *testing.T) {
	for _, tc := range []struct{ in, dialect, db, want, err string }{
		{"db.s.t", dialectPostgres, "db", "db.s.t", ""},
		{"s.t", dialectPostgres, "db", "db.s.t", ""},
		{"t", dialectPostgres, "db", "db.public.t", ""},
		{`"My.Schema".t`, dialectPostgres, "db", "db.My.Schema.t", ""},
		{"other.s.t", dialectPostgres, "db", "", "url connects to db"},
		{"d.t", dialectMySQL, "", "d.t", ""},
		{"t", dialectMySQL, "test", "test.t", ""},
		{"t", dialectMySQL, "", "", "names no database"},
		{"a.b.c", dialectMySQL, "x", "", "want database.table"},
	} {
		p, err := parseTablePath(tc.in, tc.dialect, tc.db)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || p.String() != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.in, p, err, tc.want)
		}
	}
}

func FuzzParseJDBCURL(f *testing.F) {
	f.Add("jdbc:postgresql://h1:1,h2/db?a=b")
	f.Add("jdbc:mysql://[::1]:3306/x?y=%20")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := parseJDBCURL(s)
		if err == nil && len(u.hosts) == 0 {
			t.Fatalf("%q: no hosts", s)
		}
	})
}
