package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	drv "github.com/go-sql-driver/mysql"
)

// What MySQL-CDC asks of the server with plain SQL: its flavor, the
// binlog settings and privileges it needs (checked when the job is
// resolved, with what to change), and binlog positions.

// flavorOf is go-mysql's flavor of the server: "mariadb" when VERSION()
// says MariaDB, else "mysql".
func flavorOf(ctx context.Context, db *sql.DB) (string, error) {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", fmt.Errorf("SELECT VERSION(): %w", err)
	}
	if strings.Contains(strings.ToLower(v), "mariadb") {
		return gomysql.MariaDBFlavor, nil
	}
	return gomysql.MySQLFlavor, nil
}

// checkServer checks what binlog capture needs, each failure saying what
// to change: log_bin on, binlog_format ROW, binlog_row_image FULL, the
// REPLICATION SLAVE and REPLICATION CLIENT privileges, and server ids not
// used by the server itself or another replica.
func checkServer(ctx context.Context, db *sql.DB, where string, ids serverIDs) error {
	vars := map[string]string{}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('log_bin', 'binlog_format', 'binlog_row_image', 'server_id')")
	if err != nil {
		return fmt.Errorf("%s: reading the binlog settings: %w", where, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("%s: reading the binlog settings: %w", where, err)
		}
		vars[strings.ToLower(k)] = v
	}
	rows.Close()
	var problems []string
	if v := vars["log_bin"]; !strings.EqualFold(v, "ON") && v != "1" {
		problems = append(problems, fmt.Sprintf("log_bin is %s: start the server with the binlog on (log_bin = mysql-bin in my.cnf, or --log-bin)", orUnset(v)))
	}
	if v := vars["binlog_format"]; !strings.EqualFold(v, "ROW") {
		problems = append(problems, fmt.Sprintf("binlog_format is %s: set binlog_format = ROW (SET GLOBAL binlog_format = 'ROW' and in my.cnf)", orUnset(v)))
	}
	if v, ok := vars["binlog_row_image"]; ok && !strings.EqualFold(v, "FULL") {
		problems = append(problems, fmt.Sprintf("binlog_row_image is %s: set binlog_row_image = FULL (SET GLOBAL binlog_row_image = 'FULL' and in my.cnf)", v))
	}
	if err := checkGrants(ctx, db); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s is not ready for MySQL-CDC:\n  - %s", where, strings.Join(problems, "\n  - "))
	}
	if own := vars["server_id"]; own != "" {
		for id := ids.First; ; id++ {
			if fmt.Sprint(id) == own {
				return fmt.Errorf("%s: server-id %d is the server's own server_id; give MySQL-CDC a server-id (or range) that no server or replica uses", where, id)
			}
			if id == ids.Last {
				break
			}
		}
	}
	return checkReplicas(ctx, db, where, ids)
}

func orUnset(v string) string {
	if v == "" {
		return "not set"
	}
	return v
}

// checkGrants reads the user's grants on *.*: REPLICATION SLAVE is needed
// to read the binlog, REPLICATION CLIENT (MariaDB's BINLOG MONITOR) to
// read binlog positions.
func checkGrants(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS FOR CURRENT_USER()")
	if err != nil {
		return fmt.Errorf("SHOW GRANTS: %w", err)
	}
	defer rows.Close()
	var global []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return fmt.Errorf("SHOW GRANTS: %w", err)
		}
		up := strings.ToUpper(g)
		if strings.Contains(up, " ON *.* ") {
			global = append(global, up)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("SHOW GRANTS: %w", err)
	}
	has := func(privs ...string) bool {
		for _, g := range global {
			if strings.Contains(g, "ALL PRIVILEGES") {
				return true
			}
			for _, p := range privs {
				if strings.Contains(g, p) {
					return true
				}
			}
		}
		return false
	}
	var missing []string
	if !has("REPLICATION SLAVE", "REPLICATION REPLICA") {
		missing = append(missing, "REPLICATION SLAVE")
	}
	if !has("REPLICATION CLIENT", "BINLOG MONITOR") {
		missing = append(missing, "REPLICATION CLIENT")
	}
	if len(missing) > 0 {
		return fmt.Errorf("the user lacks %s: GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO the user", strings.Join(missing, " and "))
	}
	return nil
}

// checkReplicas fails when another replica of the server uses one of the
// ids (when the user may list them). Replicas registered by MySQL-CDC itself (host "stactor") are not
// counted: the server drops a replica's old connection when the same id
// connects again, which is what a restored job does after a crash.
func checkReplicas(ctx context.Context, db *sql.DB, where string, ids serverIDs) error {
	rows, err := db.QueryContext(ctx, "SHOW REPLICAS")
	if err != nil {
		rows, err = db.QueryContext(ctx, "SHOW SLAVE HOSTS")
	}
	var me *drv.MySQLError
	if errors.As(err, &me) && me.Number == 1227 {
		// MariaDB 10.5+ lists replicas only to REPLICATION MASTER ADMIN,
		// which capture does not need: the check is skipped, and an id in
		// use shows when the server drops a connection for it.
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: listing replicas (SHOW SLAVE HOSTS): %w", where, err)
	}
	defer rows.Close()
	list, err := showRows(rows)
	if err != nil {
		return fmt.Errorf("%s: listing replicas: %w", where, err)
	}
	for _, r := range list {
		var id uint64
		fmt.Sscan(r["server_id"], &id)
		if host := r["host"]; id >= uint64(ids.First) && id <= uint64(ids.Last) && host != "stactor" {
			return fmt.Errorf("%s: server-id %d is in use by the replica at host %q (SHOW SLAVE HOSTS); give MySQL-CDC a server-id that no other replica uses", where, id, host)
		}
	}
	return nil
}

// showRows reads the rows of a SHOW statement by lower-case column name.
func showRows(rows *sql.Rows) ([]map[string]string, error) {
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]sql.NullString, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []map[string]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make(map[string]string, len(names))
		for i, n := range names {
			r[strings.ToLower(n)] = vals[i].String
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// currentOffset is the binlog's end now (SHOW MASTER STATUS, or SHOW
// BINARY LOG STATUS where MySQL 8.4 renamed it), with the executed GTID
// set when the server has one.
func currentOffset(ctx context.Context, q queryer, flavor string) (Offset, error) {
	rows, err := q.QueryContext(ctx, "SHOW MASTER STATUS")
	if isSyntax(err) {
		rows, err = q.QueryContext(ctx, "SHOW BINARY LOG STATUS")
	}
	if err != nil {
		return Offset{}, fmt.Errorf("SHOW MASTER STATUS: %w", explainSQL(err))
	}
	list, err := showRows(rows)
	if err != nil {
		return Offset{}, fmt.Errorf("SHOW MASTER STATUS: %w", err)
	}
	if len(list) == 0 {
		return Offset{}, errors.New("SHOW MASTER STATUS returns nothing: the server's binlog is off (start it with --log-bin)")
	}
	o := Offset{File: list[0]["file"], GTIDs: strings.ReplaceAll(list[0]["executed_gtid_set"], "\n", "")}
	var p uint32
	fmt.Sscan(list[0]["position"], &p)
	o.Pos = p
	if flavor == gomysql.MariaDBFlavor {
		var g sql.NullString
		if err := q.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&g); err == nil {
			o.GTIDs = g.String
		}
	}
	return o, nil
}

// earliestOffset is the start of the oldest binlog file the server has.
func earliestOffset(ctx context.Context, q queryer) (Offset, error) {
	rows, err := q.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return Offset{}, fmt.Errorf("SHOW BINARY LOGS: %w", explainSQL(err))
	}
	list, err := showRows(rows)
	if err != nil {
		return Offset{}, fmt.Errorf("SHOW BINARY LOGS: %w", err)
	}
	if len(list) == 0 {
		return Offset{}, errors.New("SHOW BINARY LOGS returns nothing: the server's binlog is off")
	}
	return Offset{File: list[0]["log_name"], Pos: 4}, nil
}

// queryer is a pool or one session.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func isSyntax(err error) bool {
	var me *drv.MySQLError
	return errors.As(err, &me) && me.Number == 1064
}

func explainSQL(err error) error {
	var me *drv.MySQLError
	if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1045) {
		return fmt.Errorf("the user lacks the REPLICATION CLIENT privilege (GRANT REPLICATION CLIENT ON *.* TO the user): %w", err)
	}
	return err
}
