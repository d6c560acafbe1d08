#!/usr/bin/env bash
# cluster.sh — an external cluster for asof on one machine, every piece its own process:
# PostgreSQL (Temporal's persistence and visibility), the upstream Temporal server on it (schema
# set up by temporal-sql-tool), versitygw as the S3 server, all on 127.0.0.1. asof workers and
# clients then run against it as they would against real hosts (docs/deploy.md).
#
#   deploy/cluster/cluster.sh check                     prerequisites only (exit 2 when missing)
#   deploy/cluster/cluster.sh up                        build what is missing, start what is down
#   deploy/cluster/cluster.sh status                    each process: up or down, with its pid
#   deploy/cluster/cluster.sh restart postgres|s3|temporal
#                                                      kill one piece hard, then start it again
#   deploy/cluster/cluster.sh env                       the ASOF_* settings for asof (sh syntax)
#   deploy/cluster/cluster.sh down                      stop everything (data stays)
#   deploy/cluster/cluster.sh destroy                   stop everything and delete the folder
#
# The cluster folder is $ASOF_CLUSTER_DIR, default .asof/cluster in the repository. It holds
# bin/ (the tools, built from this Go module with the Go toolchain when missing), schema/,
# temporal/ (server config), s3/ (buckets and their metadata), logs/, cluster.env (ports, keys
# and the PostgreSQL folder, chosen on the first `up` and kept) and asof.env. PostgreSQL's
# folder is pg/ there, or, as root, /var/tmp/asof-cluster-pg-<id> (pg/ links to it): initdb
# refuses root, so the server runs as the user `postgres`, which must reach its folder, and
# asof makes .asof its owner's only. $ASOF_CLUSTER_PG_DIR overrides. PostgreSQL binaries come
# from $PG_BIN, else the newest /usr/lib/postgresql/*/bin, else initdb on PATH.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MODULE=$REPO/deploy/cluster
DIR=$(realpath -m "${ASOF_CLUSTER_DIR:-$REPO/.asof/cluster}") # absolute: PostgreSQL runs from /
BUCKET=asof
NAMESPACE=${ASOF_CLUSTER_NAMESPACE:-default}

die() { echo "cluster.sh: $*" >&2; exit 1; }
say() { echo "cluster.sh: $*"; }

# pg_bin finds the PostgreSQL server binaries, or prints nothing.
pg_bin() {
	if [ -n "${PG_BIN:-}" ]; then
		[ -x "$PG_BIN/initdb" ] && echo "$PG_BIN"
		return 0
	fi
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
	done
	if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; fi
}

# as_pg runs a command as the database owner: `postgres` when we are root, else ourselves.
as_pg() {
	# From /, which postgres can enter (pg_ctl and psql warn about a working dir they cannot).
	if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

check() {
	local missing=()
	PGB=$(pg_bin)
	[ -n "$PGB" ] || missing+=("PostgreSQL server binaries (initdb, pg_ctl, postgres): install them (Debian/Ubuntu: apt-get install postgresql) or set PG_BIN to their folder")
	if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
		missing+=("user postgres (running as root, and initdb refuses root): create it, or run as another user")
	fi
	command -v go >/dev/null || [ -x "$DIR/bin/temporal-server" ] || missing+=("the Go toolchain (to build temporal-server, temporal-sql-tool and versitygw)")
	if [ ${#missing[@]} -gt 0 ]; then
		echo "cluster.sh: cannot bring up the external cluster here:" >&2
		printf '  - %s\n' "${missing[@]}" >&2
		return 2
	fi
}

# free_port prints a TCP port on 127.0.0.1 that nothing listens on now, below 32768: Temporal's
# SQL schema stores membership ports as smallint, and a higher one makes the server exit
# ("unable to initialize membership heartbeats ... out of range for type smallint").
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
	done
	die "no free port found on 127.0.0.1"
}

# settings loads cluster.env, choosing ports and secrets on first use.
settings() {
	mkdir -p "$DIR/logs" "$DIR/run"
	if [ ! -f "$DIR/cluster.env" ]; then
		local f=$DIR/cluster.env.tmp
		{
			echo "# written by deploy/cluster/cluster.sh on the first 'up'; ports and keys stay fixed across restarts"
			echo "PG_PORT=$(free_port)"
			echo "PG_PASSWORD=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
			echo "S3_PORT=$(free_port)"
			echo "S3_ACCESS=asof$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
			echo "S3_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
			local svc
			for svc in FRONTEND FRONTEND_HTTP FRONTEND_MEMBER HISTORY HISTORY_MEMBER MATCHING MATCHING_MEMBER WORKER WORKER_MEMBER; do
				echo "T_${svc}=$(free_port)"
			done
		} >"$f"
		chmod 600 "$f"
		mv "$f" "$DIR/cluster.env"
	fi
	# shellcheck disable=SC1091
	. "$DIR/cluster.env"
	if [ -z "${PG_DIR:-}" ]; then
		# As root, PostgreSQL runs as `postgres`, which must reach its folder: outside this one,
		# since asof makes its data dir (.asof) its owner's only. Chosen once, kept in cluster.env.
		PG_DIR=${ASOF_CLUSTER_PG_DIR:-$DIR/pg}
		if [ -z "${ASOF_CLUSTER_PG_DIR:-}" ] && [ "$(id -u)" = 0 ]; then
			PG_DIR=/var/tmp/asof-cluster-pg-$(printf %s "$DIR" | cksum | cut -d' ' -f1)
		fi
		echo "PG_DIR=$PG_DIR" >>"$DIR/cluster.env"
	fi
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

wait_port() { # wait_port PORT SECONDS WHAT LOG [PIDFILE]
	local end=$((SECONDS + $2))
	until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
		[ -z "${5:-}" ] || pid_alive "$5" || die "$3 exited; the end of $4:
$(tail -n 5 "$4" | cut -c1-400)"
		[ $SECONDS -lt "$end" ] || die "$3 did not listen on 127.0.0.1:$1 within $2 s; see $4"
		sleep 0.2
	done
}

# ---- tools -------------------------------------------------------------------------------

tools() {
	mkdir -p "$DIR/bin"
	local name pkg
	for name in temporal-server temporal-sql-tool versitygw; do
		[ -x "$DIR/bin/$name" ] && continue
		case $name in
		temporal-server) pkg=go.temporal.io/server/cmd/server ;;
		temporal-sql-tool) pkg=go.temporal.io/server/cmd/tools/sql ;;
		versitygw) pkg=github.com/versity/versitygw/cmd/versitygw ;;
		esac
		say "building $name from $pkg (deploy/cluster/go.mod)$([ $name = temporal-server ] && echo '; minutes, the first time')"
		(cd "$MODULE" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} nice -n 10 go build -o "$DIR/bin/$name" "$pkg") ||
			die "building $name failed (above); the versions are pinned in deploy/cluster/go.mod"
	done
	if [ ! -d "$DIR/schema/temporal" ]; then
		local src
		src=$(cd "$MODULE" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql/v12
		[ -d "$src/temporal/versioned" ] || die "no PostgreSQL schema at $src (go mod download in deploy/cluster?)"
		mkdir -p "$DIR/schema"
		cp -r "$src/temporal" "$src/visibility" "$DIR/schema/"
		chmod -R u+w "$DIR/schema"
	fi
}

# ---- PostgreSQL ----------------------------------------------------------------------------

pg_start() {
	PGB=$(pg_bin)
	[ -n "$PGB" ] || die "PostgreSQL not found (cluster.sh check says why)"
	local pg=$PG_DIR
	mkdir -p "$pg"
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$pg"
		chmod 700 "$pg"
		runuser -u postgres -- test -w "$pg" ||
			die "user postgres cannot write $pg (a parent folder is closed to it?): set ASOF_CLUSTER_PG_DIR to a folder it can reach"
		[ -e "$DIR/pg" ] || ln -s "$pg" "$DIR/pg"
	fi
	if [ ! -f "$pg/data/PG_VERSION" ]; then
		say "initdb $pg/data"
		local pw=$pg/.pw
		echo "$PG_PASSWORD" >"$pw"
		[ "$(id -u)" = 0 ] && chown postgres: "$pw"
		as_pg "$PGB/initdb" -D "$pg/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
			--pwfile="$pw" -E UTF8 --locale=C >"$DIR/logs/initdb.log" 2>&1 ||
			{ rm -f "$pw"; die "initdb failed; see $DIR/logs/initdb.log"; }
		rm -f "$pw"
	fi
	as_pg mkdir -p "$pg/run"
	if as_pg "$PGB/pg_ctl" -D "$pg/data" status >/dev/null 2>&1; then
		say "postgres already running (port $PG_PORT)"
		return 0
	fi
	as_pg "$PGB/pg_ctl" -D "$pg/data" -l "$pg/postgres.log" -w -t 60 \
		-o "-p $PG_PORT -k $pg/run -c listen_addresses=127.0.0.1" start >/dev/null ||
		die "postgres did not start; see $pg/postgres.log"
	say "postgres up on 127.0.0.1:$PG_PORT"
}

# pg_stop stops PostgreSQL: mode fast (clean) or immediate (no checkpoint: crash recovery on the
# next start, as after a power cut).
pg_stop() {
	PGB=$(pg_bin)
	[ -n "$PGB" ] && [ -f "$PG_DIR/data/PG_VERSION" ] || return 0
	if as_pg "$PGB/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
		as_pg "$PGB/pg_ctl" -D "$PG_DIR/data" -m "$1" -w stop >/dev/null
	fi
}

psql_pg() { as_pg "$PGB/psql" -X -q -h "$PG_DIR/run" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 "$@"; }

pg_databases() {
	if [ -z "$(psql_pg -tAc "SELECT 1 FROM pg_roles WHERE rolname='temporal'" postgres)" ]; then
		psql_pg -c "CREATE ROLE temporal LOGIN" postgres
	fi
	# The password is cluster.env's, also after that file was lost and written anew.
	psql_pg -c "ALTER ROLE temporal PASSWORD '$PG_PASSWORD'" postgres
	local db
	for db in temporal temporal_visibility; do
		if [ -z "$(psql_pg -tAc "SELECT 1 FROM pg_database WHERE datname='$db'" postgres)" ]; then
			psql_pg -c "CREATE DATABASE $db OWNER temporal" postgres
			say "database $db created"
		fi
	done
	# Schemas: temporal-sql-tool, as Temporal's docs and images do it. update-schema is a no-op
	# at the newest version; setup-schema -v 0.0 only once per database.
	for db in temporal:temporal temporal_visibility:visibility; do
		local name=${db%%:*} dir=${db#*:}
		local sql=("$DIR/bin/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u temporal --pw "$PG_PASSWORD" --db "$name")
		if [ ! -f "$PG_DIR/$name.schema-set-up" ]; then
			"${sql[@]}" setup-schema -v 0.0 >>"$DIR/logs/schema.log" 2>&1 || die "setup-schema on $name failed; see $DIR/logs/schema.log"
			touch "$PG_DIR/$name.schema-set-up"
		fi
		"${sql[@]}" update-schema -d "$DIR/schema/$dir/versioned" >>"$DIR/logs/schema.log" 2>&1 ||
			die "update-schema on $name failed; see $DIR/logs/schema.log"
	done
	say "schemas of temporal and temporal_visibility up to date"
}

# ---- Temporal ------------------------------------------------------------------------------

temporal_config() {
	mkdir -p "$DIR/temporal"
	cat >"$DIR/temporal/dynamicconfig.yaml" <<EOF
# Written by cluster.sh. Search attributes are read fresh, as the embedded server does.
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
limit.maxIDLength:
  - value: 255
EOF
	local sqlblock
	sqlblock() {
		cat <<EOF
      sql:
        pluginName: "postgres12"
        databaseName: "$1"
        connectAddr: "127.0.0.1:$PG_PORT"
        connectProtocol: "tcp"
        user: "temporal"
        password: "$PG_PASSWORD"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: "1h"
EOF
	}
	umask 077
	{
		cat <<EOF
# Written by cluster.sh from go.temporal.io/server's config/development-postgres12.yaml:
# PostgreSQL persistence and visibility, every port on 127.0.0.1, no archival, no metrics port.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
$(sqlblock temporal 20)
    postgres-visibility:
$(sqlblock temporal_visibility 4)
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
    rpc:
      grpcPort: $T_FRONTEND
      membershipPort: $T_FRONTEND_MEMBER
      bindOnLocalHost: true
      httpPort: $T_FRONTEND_HTTP
  matching:
    rpc:
      grpcPort: $T_MATCHING
      membershipPort: $T_MATCHING_MEMBER
      bindOnLocalHost: true
  history:
    rpc:
      grpcPort: $T_HISTORY
      membershipPort: $T_HISTORY_MEMBER
      bindOnLocalHost: true
  worker:
    rpc:
      grpcPort: $T_WORKER
      membershipPort: $T_WORKER_MEMBER
      bindOnLocalHost: true
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:$T_FRONTEND"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "$DIR/temporal/dynamicconfig.yaml"
  pollInterval: "10s"
EOF
	} >"$DIR/temporal/config.yaml"
	umask 022
}

temporal_start() {
	if pid_alive "$DIR/run/temporal.pid"; then
		say "temporal already running (127.0.0.1:$T_FRONTEND)"
		return 0
	fi
	temporal_config
	setsid nohup "$DIR/bin/temporal-server" --config-file "$DIR/temporal/config.yaml" --allow-no-auth start \
		>>"$DIR/logs/temporal.log" 2>&1 </dev/null &
	echo $! >"$DIR/run/temporal.pid"
	wait_port "$T_FRONTEND" 90 "temporal-server" "$DIR/logs/temporal.log" "$DIR/run/temporal.pid"
	say "temporal up on 127.0.0.1:$T_FRONTEND (logs/temporal.log)"
}

asof_bin() {
	if [ -n "${ASOF_BIN:-}" ]; then echo "$ASOF_BIN"; return; fi
	local b
	for b in "$REPO/bin/asof-lean" "$REPO/bin/asof"; do
		[ -x "$b" ] && { echo "$b"; return; }
	done
	command -v asof || die "no asof binary: run make build-lean (or set ASOF_BIN)"
}

namespace() {
	# The upstream server starts with no namespace; asof's own command registers it (and is a
	# no-op once it exists).
	if ! "$(asof_bin)" namespace create --temporal "127.0.0.1:$T_FRONTEND" --namespace "$NAMESPACE" --timeout 2m; then
		pid_alive "$DIR/run/temporal.pid" || echo "cluster.sh: temporal-server has exited; its last fatal error:
$(grep '"level":"fatal"' "$DIR/logs/temporal.log" | tail -n 1 | cut -c1-400)" >&2
		die "could not register namespace $NAMESPACE; see $DIR/logs/temporal.log"
	fi
}

# ---- S3 (versitygw) ------------------------------------------------------------------------

s3_start() {
	if pid_alive "$DIR/run/s3.pid"; then
		say "versitygw already running (127.0.0.1:$S3_PORT)"
		return 0
	fi
	# A bucket of the posix backend is a folder under the root; metadata lives in the sidecar
	# folder, which must lie outside the root.
	mkdir -p "$DIR/s3/data/$BUCKET" "$DIR/s3/meta"
	chmod 700 "$DIR/s3/data" "$DIR/s3/meta"
	ROOT_ACCESS_KEY=$S3_ACCESS ROOT_SECRET_KEY=$S3_SECRET setsid nohup "$DIR/bin/versitygw" \
		--port "127.0.0.1:$S3_PORT" posix --sidecar "$DIR/s3/meta" "$DIR/s3/data" \
		>>"$DIR/logs/versitygw.log" 2>&1 </dev/null &
	echo $! >"$DIR/run/s3.pid"
	wait_port "$S3_PORT" 30 "versitygw" "$DIR/logs/versitygw.log" "$DIR/run/s3.pid"
	say "versitygw up on 127.0.0.1:$S3_PORT, bucket $BUCKET in $DIR/s3/data (logs/versitygw.log)"
}

# ---- commands ------------------------------------------------------------------------------

kill_pid() { # kill_pid NAME SIGNAL
	local f=$DIR/run/$1.pid
	if pid_alive "$f"; then
		local pid
		pid=$(cat "$f")
		kill "-$2" "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid" 2>/dev/null || true; sleep 0.2; }
	fi
	rm -f "$f"
}

env_lines() {
	cat <<EOF
export ASOF_TEMPORAL=127.0.0.1:$T_FRONTEND
export ASOF_NAMESPACE=$NAMESPACE
export ASOF_STORE=s3://$BUCKET
export ASOF_S3_ENDPOINT=http://127.0.0.1:$S3_PORT
export ASOF_S3_ACCESS_KEY_ID=$S3_ACCESS
export ASOF_S3_SECRET_ACCESS_KEY=$S3_SECRET
EOF
}

status_line() { # status_line NAME PIDFILE ADDR
	if pid_alive "$2"; then echo "  $1 up, pid $(cat "$2"), $3"; else echo "  $1 down"; fi
}

cmd=${1:-}
case $cmd in
check)
	check || exit 2
	say "ok: PostgreSQL in $PGB"
	;;
up)
	check || exit 2
	settings
	tools
	pg_start
	pg_databases
	temporal_start
	namespace
	s3_start
	(umask 077 && env_lines >"$DIR/asof.env")
	say "cluster up in $DIR. Point asof at it (also in $DIR/asof.env; keys are secrets):"
	env_lines | sed 's/^/  /'
	;;
down)
	[ -f "$DIR/cluster.env" ] || { say "no cluster in $DIR"; exit 0; }
	settings
	kill_pid s3 TERM
	kill_pid temporal TERM
	pg_stop fast
	say "cluster down (data kept in $DIR)"
	;;
destroy)
	[ -f "$DIR/cluster.env" ] || { rm -rf "$DIR"; say "removed $DIR"; exit 0; }
	"$0" down
	settings
	rm -rf "$PG_DIR" "$DIR"
	say "removed $DIR"
	;;
restart)
	settings
	case ${2:-} in
	postgres)
		pg_stop immediate
		pg_start
		;;
	s3)
		kill_pid s3 KILL
		s3_start
		;;
	temporal)
		kill_pid temporal KILL
		temporal_start
		;;
	*) die "restart what? postgres, s3 or temporal" ;;
	esac
	;;
status)
	[ -f "$DIR/cluster.env" ] || { say "no cluster in $DIR"; exit 3; }
	settings
	PGB=$(pg_bin)
	echo "cluster in $DIR:"
	if [ -n "$PGB" ] && as_pg "$PGB/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
		echo "  postgres up, 127.0.0.1:$PG_PORT"
	else
		echo "  postgres down"
	fi
	status_line temporal "$DIR/run/temporal.pid" "127.0.0.1:$T_FRONTEND"
	status_line versitygw "$DIR/run/s3.pid" "127.0.0.1:$S3_PORT"
	;;
env)
	[ -f "$DIR/cluster.env" ] || die "no cluster in $DIR (run: deploy/cluster/cluster.sh up)"
	settings
	env_lines
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	[ -z "$cmd" ] || die "unknown command $cmd"
	exit 2
	;;
esac
