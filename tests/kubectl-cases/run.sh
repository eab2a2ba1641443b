#!/usr/bin/env bash
# Runs the kubectl 1.32 cases of the dev cluster's API machinery against one
# `fleetctl dev serve` and prints one Markdown table row per case:
#   | n | area | case | PASS or FAIL |
#
#   tests/kubectl-cases/run.sh [path/to/fleetctl] > results.md
#
# Each case is one kubectl command with an expectation: `ok` (exit 0), `fail`
# (non-zero), or either followed by `~REGEX` that its output (stdout and stderr) must
# match. Cases run in order and build on each other within an area. Run it with two
# binaries (before and after a change) and join the tables to compare.
set -u
FLEETCTL=${1:-target/debug/fleetctl}
WORK=$(mktemp -d)
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
export HOME=$WORK KUBECONFIG=$WORK/kubeconfig
"$FLEETCTL" dev serve --port 0 --kubeconfig "$KUBECONFIG" 2>"$WORK/server.log" &
SERVER=$!
for _ in $(seq 200); do [ -s "$KUBECONFIG" ] && break; sleep 0.05; done
N=0
AREA=setup
area() { AREA=$1; }
run_case() { # name expectation stdin-or-empty kubectl-args...
  local name=$1 expect=$2 input=$3; shift 3
  N=$((N + 1))
  local out rc
  if [ -n "$input" ]; then
    out=$(printf '%s' "$input" | timeout 30 kubectl "$@" 2>&1); rc=$?
  else
    out=$(timeout 30 kubectl "$@" </dev/null 2>&1); rc=$?
  fi
  local want=${expect%%~*} pattern=""
  [ "$want" != "$expect" ] && pattern=${expect#*~}
  local verdict=PASS
  if [ "$want" = ok ] && [ $rc -ne 0 ]; then verdict=FAIL; fi
  if [ "$want" = fail ] && [ $rc -eq 0 ]; then verdict=FAIL; fi
  if [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; then verdict=FAIL; fi
  printf '| %d | %s | %s | %s |\n' "$N" "$AREA" "$name" "$verdict"
  if [ -n "${VERBOSE:-}" ] && [ $verdict = FAIL ]; then printf '    rc=%s out=%s\n' "$rc" "${out:0:400}" >&2; fi
}
c() { local name=$1 expect=$2; shift 2; run_case "$name" "$expect" "" "$@"; }
ci() { local name=$1 expect=$2 input=$3; shift 3; run_case "$name" "$expect" "$input" "$@"; }
raw() { kubectl get --raw "$1" 2>&1; }

. "$(dirname "$0")/cases.sh"
