# SPDX-License-Identifier: BSD-2-Clause
# pg-lib.sh - a PostgreSQL of the test's own, for the tests of
# StateDatabase; sourced after tap.sh and workdir_make.
#
# pg_start makes a cluster in "$T"/pg with initdb, run by pg_ctl as an
# unprivileged user (postgres, or nobody) when the test runs as root,
# listening on a unix socket in that folder only (no TCP), with one
# superuser "pa" whose password is $PG_PASSWORD (scram-sha-256); it sets
# PG_CONNINFO, and the server is stopped when the test ends.  It returns
# 1 when PostgreSQL is not installed: the test then skips.  pg_need
# does that for a test that needs the server, and fails the test when the
# server does not start.
# pg_stop and pg_restart stop and start the same server; pg_sql runs SQL.

PG_PASSWORD=pw-$$-not-to-be-seen

pg_bindir() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && PG_BIN=$d
	done
	[ -n "$PG_BIN" ]
}

pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$PG_USER" -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	pg_bindir || return 1
	PG_DIR=$T/pg
	PG_USER=postgres
	id postgres >/dev/null 2>&1 || PG_USER=nobody
	mkdir -p "$PG_DIR" && chmod 755 "$T" || return 1
	printf '%s\n' "$PG_PASSWORD" >"$PG_DIR/pwfile"
	[ "$(id -u)" -eq 0 ] && chown -R "$PG_USER" "$PG_DIR"
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U pa \
	    --auth=scram-sha-256 --pwfile="$PG_DIR/pwfile" \
	    >"$PG_DIR/initdb.log" 2>&1 || return 2
	rm -f "$PG_DIR/pwfile"
	PG_CONNINFO="host=$PG_DIR dbname=postgres user=pa password=$PG_PASSWORD"
	pg_restart || return 2
	trap 'pg_stop; workdir_release' 0
}

pg_need() {
	pg_start
	case $? in
	1)	skip "PostgreSQL" "skipped: PostgreSQL is not installed"
		tap_end
		exit 0 ;;
	2)	setup 1 "a PostgreSQL of our own" "$T/pg/initdb.log" ;;
	esac
}

pg_restart() {
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -l "$PG_DIR/server.log" \
	    -o "-k $PG_DIR -c listen_addresses=''" start >/dev/null 2>&1
}

pg_stop() {
	[ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ] &&
	    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop \
	    >/dev/null 2>&1
	return 0
}

pg_sql() {
	PGPASSWORD=$PG_PASSWORD "$PG_BIN/psql" -X -q -t -A -h "$PG_DIR" \
	    -U pa -d postgres -c "$1"
}
