package jdbc

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The dialects: what the URL's subprotocol selects.
const (
	dialectPostgres = "postgresql"
	dialectMySQL    = "mysql" // MySQL and MariaDB
)

// jdbcURL is a parsed JDBC URL: jdbc:postgresql://host[:port][,host...]/db?k=v,
// jdbc:postgresql:db, jdbc:mysql://host[:port]/db?k=v or jdbc:mariadb://...
type jdbcURL struct {
	raw      string
	scheme   string // postgresql, mysql or mariadb
	dialect  string
	hosts    []string // host:port, in order (failover hosts after the first)
	database string
	params   map[string]string
}

// parseJDBCURL reads a JDBC URL. Query parameters keep their case (JDBC's
// are case-sensitive) and the last of a repeated one wins.
func parseJDBCURL(raw string) (*jdbcURL, error) {
	s := strings.TrimSpace(raw)
	rest, ok := strings.CutPrefix(s, "jdbc:")
	if !ok {
		return nil, fmt.Errorf("%q is not a JDBC URL (want jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb://)", redactURL(raw))
	}
	scheme, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, fmt.Errorf("%q has no subprotocol after jdbc:", redactURL(raw))
	}
	u := &jdbcURL{raw: raw, scheme: strings.ToLower(scheme), params: map[string]string{}}
	defPort := 0
	switch u.scheme {
	case "postgresql":
		u.dialect, defPort = dialectPostgres, 5432
	case "mysql", "mariadb":
		u.dialect, defPort = dialectMySQL, 3306
	default:
		return nil, fmt.Errorf("unsupported database %q in %q (supported: jdbc:postgresql, jdbc:mysql, jdbc:mariadb)", scheme, redactURL(raw))
	}
	rest, query, _ := strings.Cut(rest, "?")
	if u.scheme == "postgresql" && !strings.HasPrefix(rest, "//") {
		// jdbc:postgresql:db and jdbc:postgresql:/ name the local server.
		u.hosts = []string{net.JoinHostPort("localhost", strconv.Itoa(defPort))}
		u.database = strings.TrimPrefix(rest, "/")
	} else {
		hp, ok := strings.CutPrefix(rest, "//")
		if !ok {
			return nil, fmt.Errorf("%q: expected // after jdbc:%s:", redactURL(raw), scheme)
		}
		hostPart, db, _ := strings.Cut(hp, "/")
		if u.database, ok = unescape(db); !ok {
			return nil, fmt.Errorf("%q: bad escape in database name %q", redactURL(raw), db)
		}
		for _, h := range strings.Split(hostPart, ",") {
			hostport, err := splitHost(h, defPort)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", redactURL(raw), err)
			}
			u.hosts = append(u.hosts, hostport)
		}
	}
	if query != "" {
		for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || (u.dialect == dialectMySQL && r == ';') }) {
			k, v, _ := strings.Cut(kv, "=")
			key, ok1 := unescape(k)
			val, ok2 := unescape(v)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%q: bad escape in parameter %q", redactURL(raw), k)
			}
			if key != "" {
				u.params[key] = val
			}
		}
	}
	return u, nil
}

func unescape(s string) (string, bool) {
	v, err := url.QueryUnescape(s)
	return v, err == nil
}

// splitHost reads host, host:port, [v6] or [v6]:port.
func splitHost(h string, defPort int) (string, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return net.JoinHostPort("localhost", strconv.Itoa(defPort)), nil
	}
	host, port := h, strconv.Itoa(defPort)
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 {
			return "", fmt.Errorf("unclosed [ in host %q", h)
		}
		host = h[1:end]
		if p, ok := strings.CutPrefix(h[end+1:], ":"); ok {
			port = p
		} else if h[end+1:] != "" {
			return "", fmt.Errorf("bad host %q", h)
		}
	} else if i := strings.LastIndex(h, ":"); i >= 0 {
		host, port = h[:i], h[i+1:]
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("bad port %q in host %q", port, h)
	}
	if host == "" {
		return "", fmt.Errorf("empty host in %q", h)
	}
	return net.JoinHostPort(host, port), nil
}

// redactURL is the URL with any password parameter masked, for messages.
func redactURL(raw string) string {
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return raw
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		k, _, _ := strings.Cut(p, "=")
		if strings.EqualFold(k, "password") {
			parts[i] = k + "=******"
		}
	}
	return base + "?" + strings.Join(parts, "&")
}

// String is the URL with its password masked.
func (u *jdbcURL) String() string { return redactURL(u.raw) }

// Java driver classes accepted for each dialect (SeaTunnel's appendix),
// and the XA data sources for exactly-once.
var (
	driverClasses = map[string][]string{
		dialectPostgres: {"org.postgresql.Driver"},
		dialectMySQL:    {"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver", "org.mariadb.jdbc.Driver"},
	}
	xaClasses = map[string][]string{
		dialectPostgres: {"org.postgresql.xa.PGXADataSource"},
		dialectMySQL:    {"com.mysql.cj.jdbc.MysqlXADataSource", "com.mysql.jdbc.jdbc2.optional.MysqlXADataSource", "org.mariadb.jdbc.MariaDbDataSource", "org.mariadb.jdbc.MariaDbXADataSource"},
	}
)

// checkClass tells whether a Java class name fits the URL's dialect;
// classes of other databases are named in the error.
func checkClass(what, class string, u *jdbcURL, known map[string][]string) error {
	for _, c := range known[u.dialect] {
		if c == strings.TrimSpace(class) {
			return nil
		}
	}
	for d, cs := range known {
		for _, c := range cs {
			if c == strings.TrimSpace(class) {
				return fmt.Errorf("%s %s is a %s class but the url is jdbc:%s (use %s)", what, class, d, u.scheme, strings.Join(known[u.dialect], " or "))
			}
		}
	}
	return fmt.Errorf("unknown %s %q for jdbc:%s (use %s)", what, class, u.scheme, strings.Join(known[u.dialect], " or "))
}

// sortedParams lists params in key order, for stable DSNs.
func sortedParams(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
