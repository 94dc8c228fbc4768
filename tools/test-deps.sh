#!/usr/bin/env bash
# Installs the Debian packages whose programs the tests start or call,
# where they are missing: PostgreSQL and MariaDB servers (the database
# tests start private ones of their own in temp dirs; the machine's own
# servers are never used), PostGIS (SeaTunnel's PostgreSQL e2e job files
# read geometry columns), kcat (an independent Kafka client that checks
# what the Kafka connector wrote) and protoc (only for `go tool task
# proto`). Needs apt-get and root; elsewhere it says what is missing and
# the tests that need it skip with the same message.
set -euo pipefail

have_pg() {
  command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}
have() { command -v "$1" >/dev/null 2>&1; }
have_postgis() { compgen -G '/usr/share/postgresql/*/extension/postgis.control' >/dev/null; }
# pg_major is the installed server's major version (Debian's default when
# none is installed yet), for the PostGIS package of that version.
pg_major() {
  local d
  for d in /usr/lib/postgresql/*/bin/initdb; do
    [ -x "$d" ] && { basename "$(dirname "$(dirname "$d")")"; return; }
  done
  apt-cache depends postgresql 2>/dev/null | sed -n 's/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -1
}

missing=()
have_pg || missing+=(postgresql)
have mariadbd || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
have kcat || missing+=(kcat)
if ! have_postgis && have apt-cache; then
  v=$(pg_major)
  [ -n "$v" ] && missing+=("postgresql-$v-postgis-3")
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! have apt-get; then
  echo "test-deps: missing ${missing[*]}; install these Debian packages (apt-get install ${missing[*]}) or the tests that need them skip" >&2
  exit 0
fi
echo "test-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The packages' own services are not used (and not started where there is
# no init system); the tests run their own servers.
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
