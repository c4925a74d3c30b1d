#!/usr/bin/env bash
# `make run` to its first page: cold (a fresh clone, no venv, no pip or uv cache), then warm (a
# second `make run` in that clone once the first is stopped). Prints each run and the medians.
# Usage: bench/cold_make_run.sh [RUNS] [PORT]   (run from the repository root)
set -euo pipefail
runs="${1:-1}"
port="${2:-5099}"
source="$(pwd)"
work="$(mktemp -d /tmp/furrow-cold-XXXX)"
trap 'rm -rf "$work"' EXIT
export PIP_NO_CACHE_DIR=1 UV_NO_CACHE=1

# `make run` in $1, left running (its process group in $pid); $seconds until its first page.
first_page() {
  if curl -fs "http://127.0.0.1:$port/setup" > /dev/null; then
    echo "something already answers on port $port" >&2
    exit 1
  fi
  local start end
  start=$(date +%s.%N)
  # Its own process group, so one SIGINT reaches make and what it started, as Ctrl-C does.
  (cd "$1" && exec setsid make run PORT="$port") >> "$work/make-run.log" 2>&1 &
  pid=$!
  until curl -fs "http://127.0.0.1:$port/setup" > /dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "make run exited early:" >&2
      tail "$work/make-run.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  end=$(date +%s.%N)
  seconds=$(echo "$end - $start" | bc)
}

stop() {
  kill -INT -- "-$pid" 2>/dev/null || true
  wait "$pid" || true
}

median() {
  printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 }
    END { printf "%.1f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

cold=()
warm=()
for run in $(seq "$runs"); do
  clone="$work/furrow-$run"
  git clone -q "$source" "$clone"
  first_page "$clone"
  stop
  cold+=("$seconds")
  first_page "$clone"
  stop
  warm+=("$seconds")
  printf 'run %d: cold %.1f s, warm %.1f s\n' "$run" "${cold[-1]}" "${warm[-1]}"
  rm -rf "$clone"
done
echo "make run to first page, median of $runs: cold $(median "${cold[@]}") s, warm $(median "${warm[@]}") s"
