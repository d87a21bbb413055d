#!/usr/bin/env bash
# A cluster on this machine: nginx in front of N service nodes, all on one PostgreSQL and one
# Redis. See deploy/README.md for the ports, the variables and the health approach.
#
#   deploy/cluster.sh start N    PostgreSQL and Redis (started if not running), N nodes, nginx, the health poller
#   deploy/cluster.sh status     each node's pid and /readyz, nginx, the upstream list; exit 1 if anything is down
#   deploy/cluster.sh stop       the poller, the nodes (SIGTERM: they drain), nginx; PostgreSQL and Redis
#                                only if this script started them
#
# Every variable of the service (docs/operations.md) given in the environment reaches the nodes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$ROOT/.cache/cluster}
CLUSTER_HOST=${CLUSTER_HOST:-127.0.0.1}
CLUSTER_PORT=${CLUSTER_PORT:-8800}
CLUSTER_NODE_PORT=${CLUSTER_NODE_PORT:-8801}
HEALTH_INTERVAL=${HEALTH_INTERVAL:-1}
NGINX_BIN=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}
# nginx reads NGINX itself (sockets inherited across a binary upgrade): never pass one on.
unset NGINX
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/vectorize_cluster}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
export REDIS_PREFIX=${REDIS_PREFIX:-vectorize-cluster:}
export TRUST_PROXY=${TRUST_PROXY:-loopback}
export PUBLIC_URL=${PUBLIC_URL:-http://localhost:$CLUSTER_PORT}

say() { printf 'cluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

node_count() { cat "$CLUSTER_DIR/nodes" 2>/dev/null || echo 0; }
node_port() { echo $((CLUSTER_NODE_PORT + $1 - 1)); }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
readyz() { curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$1/readyz" || true; }

ensure_postgres() {
  local host port
  host=$(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname || "127.0.0.1")' "$DATABASE_URL")
  port=$(node -e 'const u = new URL(process.argv[1]); console.log(u.port || 5432)' "$DATABASE_URL")
  if ! pg_isready -h "$host" -p "$port" -q; then
    [ "$host" = 127.0.0.1 ] || [ "$host" = localhost ] || die "PostgreSQL at $host:$port does not answer (DATABASE_URL)"
    command -v pg_ctlcluster >/dev/null || die "PostgreSQL does not answer at $host:$port and pg_ctlcluster is missing (apt-get install postgresql)"
    say "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
    touch "$CLUSTER_DIR/started-postgres"
    for _ in $(seq 1 30); do pg_isready -h "$host" -p "$port" -q && break; sleep 1; done
    pg_isready -h "$host" -p "$port" -q || die "PostgreSQL did not start"
  fi
  # The nodes migrate the database at start; it must exist.
  local db admin
  db=$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).pathname.slice(1)))' "$DATABASE_URL")
  admin=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/postgres"; console.log(u.toString())' "$DATABASE_URL")
  if [ "$(psql "$admin" -tAc "select 1 from pg_database where datname = '$db'")" != 1 ]; then
    say "creating database $db"
    psql "$admin" -qc "create database \"$db\"" >/dev/null
  fi
}

ensure_redis() {
  local host port
  host=$(node -e 'console.log(new URL(process.argv[1]).hostname || "127.0.0.1")' "$REDIS_URL")
  port=$(node -e 'console.log(new URL(process.argv[1]).port || 6379)' "$REDIS_URL")
  if ! redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then
    [ "$host" = 127.0.0.1 ] || [ "$host" = localhost ] || die "Redis at $host:$port does not answer (REDIS_URL)"
    command -v redis-server >/dev/null || die "Redis does not answer at $host:$port and redis-server is missing (apt-get install redis-server)"
    say "starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$port" --save "" --appendonly no \
      --dir "$CLUSTER_DIR" --logfile "$CLUSTER_DIR/redis.log" --pidfile "$CLUSTER_DIR/redis.pid"
    touch "$CLUSTER_DIR/started-redis"
    for _ in $(seq 1 30); do redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && break; sleep 1; done
    redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 || die "Redis did not start"
  fi
}

# The upstream list: every node whose /readyz answers 200; nodes that do not are marked `down`,
# unless none answers, in which case all are listed and nginx's passive checks decide.
write_upstreams() {
  local n i port lines="" ready=0
  n=$(node_count)
  for i in $(seq 1 "$n"); do
    port=$(node_port "$i")
    if [ "$(readyz "$port")" = 200 ]; then
      ready=$((ready + 1))
      lines+="server 127.0.0.1:$port max_fails=1 fail_timeout=5s;"$'\n'
    else
      lines+="server 127.0.0.1:$port max_fails=1 fail_timeout=5s down;"$'\n'
    fi
  done
  [ "$ready" -gt 0 ] || lines=${lines// down;/;}
  printf '%s' "$lines" >"$CLUSTER_DIR/upstreams.next"
  if cmp -s "$CLUSTER_DIR/upstreams.next" "$CLUSTER_DIR/upstreams.conf"; then
    rm -f "$CLUSTER_DIR/upstreams.next"
    return 1
  fi
  mv "$CLUSTER_DIR/upstreams.next" "$CLUSTER_DIR/upstreams.conf"
}

health_loop() {
  while true; do
    if write_upstreams && alive "$CLUSTER_DIR/nginx.pid"; then
      say "upstreams changed: $(grep -c down "$CLUSTER_DIR/upstreams.conf" || true) down; reloading nginx"
      "$NGINX_BIN" -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf" -s reload
    fi
    sleep "$HEALTH_INTERVAL"
  done
}

write_nginx_conf() {
  local user=""
  # As root, nginx's workers would run as nobody, who cannot read this tree.
  if [ "$(id -u)" = 0 ]; then user="user $(id -un) $(id -gn);"; fi
  mkdir -p "$CLUSTER_DIR/tmp"
  sed -e "/^ *#/!s|@LISTEN@|$CLUSTER_HOST:$CLUSTER_PORT|" -e "/^ *#/!s|@UPSTREAMS@|$CLUSTER_DIR/upstreams.conf|" \
    "$ROOT/deploy/nginx-site.conf" >"$CLUSTER_DIR/site.conf"
  cat >"$CLUSTER_DIR/nginx.conf" <<EOF
# Written by deploy/cluster.sh; the site itself is deploy/nginx-site.conf.
$user
worker_processes auto;
pid $CLUSTER_DIR/nginx.pid;
error_log $CLUSTER_DIR/nginx-error.log warn;
events { worker_connections 4096; }
http {
    log_format upstream '\$remote_addr [\$time_iso8601] "\$request" \$status \$body_bytes_sent '
                        'upstream=\$upstream_addr upstream_status=\$upstream_status time=\$request_time';
    access_log $CLUSTER_DIR/nginx-access.log upstream;
    client_body_temp_path $CLUSTER_DIR/tmp/body;
    proxy_temp_path $CLUSTER_DIR/tmp/proxy;
    fastcgi_temp_path $CLUSTER_DIR/tmp/fastcgi;
    uwsgi_temp_path $CLUSTER_DIR/tmp/uwsgi;
    scgi_temp_path $CLUSTER_DIR/tmp/scgi;
    include $CLUSTER_DIR/site.conf;
}
EOF
}

start() {
  local n=${1:-}
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "usage: deploy/cluster.sh start N (N nodes, 1 or more)"
  [ -x "$NGINX_BIN" ] || die "nginx not found (apt-get install nginx, or set NGINX_BIN=/path/to/nginx)"
  [ -f "$ROOT/dist/server.js" ] || die "dist/server.js is missing: run npm run build first"
  mkdir -p "$CLUSTER_DIR"
  if alive "$CLUSTER_DIR/nginx.pid" || alive "$CLUSTER_DIR/node-1.pid"; then die "already running in $CLUSTER_DIR (deploy/cluster.sh stop first)"; fi
  # Each node's tracing workers; together they should not exceed the cores (deploy/README.md).
  export WORKERS=${WORKERS:-$(( $(nproc) / n > 0 ? $(nproc) / n : 1 ))}
  ensure_postgres
  ensure_redis
  echo "$n" >"$CLUSTER_DIR/nodes"
  local i port
  for i in $(seq 1 "$n"); do
    port=$(node_port "$i")
    if curl -s -o /dev/null -m 1 "http://127.0.0.1:$port/"; then die "port $port is taken (CLUSTER_NODE_PORT)"; fi
    PORT=$port HOST=127.0.0.1 nohup node "$ROOT/dist/server.js" >>"$CLUSTER_DIR/node-$i.log" 2>&1 </dev/null &
    echo $! >"$CLUSTER_DIR/node-$i.pid"
  done
  for i in $(seq 1 "$n"); do
    port=$(node_port "$i")
    for _ in $(seq 1 120); do
      [ "$(readyz "$port")" = 200 ] && break
      alive "$CLUSTER_DIR/node-$i.pid" || { tail -n 20 "$CLUSTER_DIR/node-$i.log" >&2; stop; die "node $i exited at start (log above)"; }
      sleep 0.5
    done
    [ "$(readyz "$port")" = 200 ] || { stop; die "node $i on port $port not ready after 60 s"; }
  done
  write_upstreams || true
  write_nginx_conf
  "$NGINX_BIN" -t -q -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf" || { stop; die "nginx rejected the configuration"; }
  "$NGINX_BIN" -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf"
  nohup "$ROOT/deploy/cluster.sh" health-loop >>"$CLUSTER_DIR/health.log" 2>&1 </dev/null &
  echo $! >"$CLUSTER_DIR/health.pid"
  for _ in $(seq 1 40); do
    [ "$(readyz "$CLUSTER_PORT")" = 200 ] && break
    sleep 0.25
  done
  [ "$(readyz "$CLUSTER_PORT")" = 200 ] || { stop; die "nginx on port $CLUSTER_PORT does not answer"; }
  say "$n nodes (ports $(node_port 1)-$(node_port "$n"), WORKERS=$WORKERS each) behind nginx at http://$CLUSTER_HOST:$CLUSTER_PORT"
  say "store $DATABASE_URL, Redis $REDIS_URL (prefix $REDIS_PREFIX); logs and pids in $CLUSTER_DIR"
}

status() {
  local n i port code pid bad=0
  n=$(node_count)
  [ "$n" -gt 0 ] || { say "not started (no $CLUSTER_DIR/nodes)"; return 1; }
  for i in $(seq 1 "$n"); do
    port=$(node_port "$i")
    pid=$(cat "$CLUSTER_DIR/node-$i.pid" 2>/dev/null || echo -)
    if alive "$CLUSTER_DIR/node-$i.pid"; then code=$(readyz "$port"); else code=dead; fi
    [ "$code" = 200 ] || bad=1
    printf 'node %s\tpid %s\tport %s\treadyz %s\n' "$i" "$pid" "$port" "$code"
  done
  if alive "$CLUSTER_DIR/nginx.pid"; then
    printf 'nginx\tpid %s\tport %s\treadyz %s\n' "$(cat "$CLUSTER_DIR/nginx.pid")" "$CLUSTER_PORT" "$(readyz "$CLUSTER_PORT")"
  else
    printf 'nginx\tdead\n'
    bad=1
  fi
  if alive "$CLUSTER_DIR/health.pid"; then
    printf 'health poller\tpid %s\n' "$(cat "$CLUSTER_DIR/health.pid")"
  else
    printf 'health poller\tdead\n'
    bad=1
  fi
  sed 's/^/upstream\t/' "$CLUSTER_DIR/upstreams.conf" 2>/dev/null || true
  return "$bad"
}

stop() {
  local n i pid
  if alive "$CLUSTER_DIR/health.pid"; then kill "$(cat "$CLUSTER_DIR/health.pid")"; fi
  rm -f "$CLUSTER_DIR/health.pid"
  n=$(node_count)
  # SIGTERM: each node drains (SHUTDOWN_GRACE_MS) and exits.
  for i in $(seq 1 "$n"); do
    if alive "$CLUSTER_DIR/node-$i.pid"; then kill -TERM "$(cat "$CLUSTER_DIR/node-$i.pid")"; fi
  done
  local grace=$(( (${SHUTDOWN_GRACE_MS:-25000} + 5000) / 1000 ))
  for i in $(seq 1 "$n"); do
    for _ in $(seq 1 $((grace * 4))); do alive "$CLUSTER_DIR/node-$i.pid" || break; sleep 0.25; done
    if alive "$CLUSTER_DIR/node-$i.pid"; then
      pid=$(cat "$CLUSTER_DIR/node-$i.pid")
      say "node $i (pid $pid) still running after ${grace} s: SIGKILL"
      kill -KILL "$pid"
    fi
    rm -f "$CLUSTER_DIR/node-$i.pid"
  done
  if alive "$CLUSTER_DIR/nginx.pid"; then
    "$NGINX_BIN" -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf" -s quit
    for _ in $(seq 1 40); do alive "$CLUSTER_DIR/nginx.pid" || break; sleep 0.25; done
  fi
  rm -f "$CLUSTER_DIR/nodes"
  if [ -f "$CLUSTER_DIR/started-redis" ]; then
    say "stopping the Redis this script started"
    redis-cli -u "$REDIS_URL" shutdown nosave >/dev/null 2>&1 || true
    rm -f "$CLUSTER_DIR/started-redis"
  fi
  if [ -f "$CLUSTER_DIR/started-postgres" ]; then
    say "stopping the PostgreSQL this script started"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main stop || true
    rm -f "$CLUSTER_DIR/started-postgres"
  fi
  say "stopped"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  status) status ;;
  stop) stop ;;
  health-loop) health_loop ;;
  *) die "usage: deploy/cluster.sh start N | status | stop" ;;
esac
