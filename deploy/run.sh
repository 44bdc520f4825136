#!/usr/bin/env bash
# N replicas of the dashboard on 127.0.0.1 and nginx in front of them, on one machine.
#
#   deploy/run.sh start        start them and return (pids and logs in the run folder)
#   deploy/run.sh stop         stop what `start` started
#   deploy/run.sh foreground   start them and stay until stopped (Ctrl-C, docker stop)
#
# Settings (environment):
#   FFNLAB_REPLICAS   how many replicas (default: one per core)
#   FFNLAB_LISTEN     nginx's address, [host:]port (default 8080: every interface)
#   FFNLAB_PORTS      the replicas' ports on 127.0.0.1 (default 8601, 8602, ...)
#   FFNLAB_RUN_DIR    pids, logs, nginx's config and temp files (default ${TMPDIR:-/tmp}/ffnlab-deploy)
#   FFNLAB_PYTHON     the interpreter with the app's requirements (default: python3)
#   FFNLAB_NGINX      nginx (default: found on PATH, else /usr/sbin/nginx)
#   FFNLAB_CLASS_DB   the class room's database URL, shared by every replica (default: an SQLite
#                     file in FFNLAB_DATA_DIR, which serves replicas on this one host); for replicas
#                     on several hosts, one PostgreSQL: postgresql+psycopg://user:pass@host:5432/db
#   FFNLAB_DATA_DIR   the folder of that SQLite file (default: .data in the app's folder)
#   FFNLAB_RESULTS_DIR computed results the replicas share (default: results/ in FFNLAB_DATA_DIR)
# Nothing needs root: nginx runs with -p and -c in the run folder.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
app="$(dirname "$here")"
run_dir="${FFNLAB_RUN_DIR:-${TMPDIR:-/tmp}/ffnlab-deploy}"
python="${FFNLAB_PYTHON:-python3}"
nginx="${FFNLAB_NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
replicas="${FFNLAB_REPLICAS:-$(nproc)}"
listen="${FFNLAB_LISTEN:-8080}"
if [ -n "${FFNLAB_PORTS:-}" ]; then
  read -r -a ports <<< "$FFNLAB_PORTS"
else
  ports=()
  for ((i = 0; i < replicas; i++)); do ports+=($((8601 + i))); done
fi

running() {
  # An ended process whose parent has not collected it yet (a zombie) has stopped too.
  local state
  state="$(ps -o stat= -p "$1" 2>/dev/null || true)"
  [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

stop() {
  # Only the processes this script started, by the pids it wrote.
  local pid_file pid
  for pid_file in "$run_dir"/nginx.pid "$run_dir"/replica-*.pid; do
    [ -f "$pid_file" ] || continue
    pid="$(cat "$pid_file")"
    if [ -n "$pid" ] && running "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do running "$pid" || break; sleep 0.2; done
      if running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
    rm -f "$pid_file"
  done
}

class_store() {
  # Every replica reads the same variables, so every replica meets the same room. Creating the
  # schema here, once, tells the operator now rather than a class later when the store is unreachable.
  FFNLAB_APP_ROOT="$app" "$python" - <<'PY' || echo "warning: the class room's store is unavailable; the pages work, the class features will say so" >&2
import os, sys, time
sys.path.insert(0, os.environ["FFNLAB_APP_ROOT"])
import sqlalchemy
from ui.room import config, store
url = config.url()
print(f"class room store: {config.describe(url)}", flush=True)
engine = sqlalchemy.create_engine(url)
try:
    store.Store(engine).expire(time.time())
except store.StoreUnavailable as e:
    sys.exit(f"class room store unavailable: {e} ({e.__cause__})")
finally:
    engine.dispose()
PY
}

healthy() {
  "$python" - "$@" <<'PY'
import sys, time, urllib.request
deadline = time.monotonic() + 120  # a cold torch import on a busy machine takes a while
for url in sys.argv[1:]:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.read() == b"ok":
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"not healthy after 120 s: {url}")
        time.sleep(0.2)
PY
}

start() {
  if [ ! -x "$nginx" ]; then
    echo "nginx not found (apt-get install nginx, or set FFNLAB_NGINX)" >&2
    exit 1
  fi
  mkdir -p "$run_dir/logs" "$run_dir/tmp"
  stop  # a previous start in the same folder
  class_store
  local port urls=() upstreams=""
  # One cookie secret for every replica, so that the cookies Streamlit signs (its XSRF token)
  # read the same whichever replica a browser meets. In the environment, not on a command line.
  STREAMLIT_SERVER_COOKIE_SECRET="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
  export STREAMLIT_SERVER_COOKIE_SECRET
  for port in "${ports[@]}"; do
    # setsid: the replicas outlive this script and do not get the terminal's Ctrl-C.
    setsid "$python" -m streamlit run "$app/dashboard.py" \
      --server.port "$port" --server.address 127.0.0.1 --server.headless true \
      --browser.gatherUsageStats false \
      >"$run_dir/logs/replica-$port.log" 2>&1 </dev/null &
    echo $! >"$run_dir/replica-$port.pid"
    urls+=("http://127.0.0.1:$port/_stcore/health")
    upstreams+="        server 127.0.0.1:$port;"$'\n'
  done
  sed -e "s|@RUN_DIR@|$run_dir|g" -e "s|@LISTEN@|$listen|g" "$here/nginx.conf" \
    | awk -v u="$upstreams" '{ if ($0 == "@UPSTREAMS@") printf "%s", u; else print }' >"$run_dir/nginx.conf"
  if ! healthy "${urls[@]}"; then
    stop
    exit 1
  fi
  # nginx's own output goes to its log: a daemon holding this script's stdout would keep
  # whoever reads it (a pipe, a test) waiting after the script has ended.
  # NGINX in the environment names sockets to inherit (nginx's binary upgrade): never pass one on.
  if ! env -u NGINX "$nginx" -p "$run_dir" -c "$run_dir/nginx.conf" -e "$run_dir/logs/nginx-error.log" \
      </dev/null >>"$run_dir/logs/nginx-error.log" 2>&1; then
    tail -n 20 "$run_dir/logs/nginx-error.log" >&2
    stop
    exit 1
  fi
  echo "FFN Lab: ${#ports[@]} replica(s) on 127.0.0.1:${ports[*]} behind nginx on $listen; logs in $run_dir/logs"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  foreground)
    trap 'stop; exit 0' INT TERM
    start
    # Stay while nginx runs; when it ends, stop the replicas and end too.
    while running "$(cat "$run_dir/nginx.pid")"; do sleep 2; done
    stop
    ;;
  *) echo "usage: $0 [start|stop|foreground]" >&2; exit 2 ;;
esac
