#!/usr/bin/env bash
# Cold `make run`: a fresh clone, no venv, no pip cache; seconds until the first page answers.
# Usage: bench/cold_make_run.sh [PORT]   (run from the repository root)
set -euo pipefail
port="${1:-5099}"
work="$(mktemp -d /tmp/furrow-cold-XXXX)"
git clone -q "$(pwd)" "$work/furrow"
cd "$work/furrow"
start=$(date +%s.%N)
PIP_NO_CACHE_DIR=1 make run PORT="$port" > "$work/make-run.log" 2>&1 &
pid=$!
until curl -fs "http://127.0.0.1:$port/setup" > /dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "make run exited early:"; tail "$work/make-run.log"; exit 1; fi
  sleep 0.2
done
end=$(date +%s.%N)
printf 'cold make run to first page (fresh clone, no pip cache): %.1f s\n' "$(echo "$end - $start" | bc)"
pkill -INT -f "furrow serve --host 127.0.0.1 --port $port" || true
wait "$pid" || true
rm -rf "$work"
