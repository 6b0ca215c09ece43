#!/usr/bin/env bash
# The services test tier: installs and starts throwaway local services on loopback, runs
# `vitest --project services`, and stops everything on exit. Runs as root on a fresh
# Debian machine (CI) or as a user with passwordless sudo. One function per service.
# SQS needs no service here: the tests start the fauxqs emulator in-process on 127.0.0.1
# (test/services/sqs-emulator.ts; docs/local-services.md runs it on its own).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK_DIR="$(mktemp -d /tmp/context-cleaner-services.XXXXXX)"
chmod 755 "$WORK_DIR"
CLEANUPS=()
APT_UPDATED=0

log() { printf '[services] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

cleanup() {
  local status=$?
  for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${CLEANUPS[i]}" || true
  done
  rm -rf "$WORK_DIR"
  exit "$status"
}
trap cleanup EXIT INT TERM

apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- PostgreSQL (Debian's postgresql 15) on 127.0.0.1:${POSTGRES_PORT} -----------------
POSTGRES_PORT="${POSTGRES_PORT:-5433}"
PG_BIN="/usr/lib/postgresql/15/bin"

start_postgres() {
  if [ ! -x "$PG_BIN/initdb" ]; then
    apt_install postgresql
  fi
  local data="$WORK_DIR/postgres"
  mkdir -p "$data"
  as_root chown postgres:postgres "$data"
  as_root chmod 700 "$data"
  as_root su postgres -s /bin/sh -c \
    "$PG_BIN/initdb -D '$data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >/dev/null
  CLEANUPS+=("as_root su postgres -s /bin/sh -c \"$PG_BIN/pg_ctl -D '$data' -m immediate -w stop\" >/dev/null 2>&1")
  as_root su postgres -s /bin/sh -c \
    "$PG_BIN/pg_ctl -D '$data' -l '$data/log' -o \"-p $POSTGRES_PORT -k '$data' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" -w start" >/dev/null
  export TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres"
  log "postgres $("$PG_BIN/postgres" --version | awk '{print $3}') ready at 127.0.0.1:${POSTGRES_PORT}"
}

# --- Redis (Debian's redis-server) on 127.0.0.1:${REDIS_PORT} ---------------------------
# The tests reach it through the real @upstash/redis client and a local REST relay.
REDIS_PORT="${REDIS_PORT:-6380}"

start_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    apt_install redis-server
  fi
  local dir="$WORK_DIR/redis"
  mkdir -p "$dir"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  CLEANUPS+=("kill \$(cat '$dir/redis.pid') 2>/dev/null")
  for _ in $(seq 1 50); do
    if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then break; fi
    sleep 0.1
  done
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null
  export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
  log "redis $(redis-server --version | awk '{print $3}' | cut -d= -f2) ready at 127.0.0.1:${REDIS_PORT}"
}

# --- Chromium (Debian's) for the HTML report test, driven by playwright-core ------------
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    apt_install chromium
  fi
  log "chromium ready at /usr/bin/chromium"
}

start_postgres
start_redis
ensure_chromium

cd "$ROOT"
if [ "$#" -gt 0 ]; then
  # e.g. `bash test/services/run.sh npm run bench:db` runs any command with the services up.
  "$@"
else
  npx vitest run --project services
fi
