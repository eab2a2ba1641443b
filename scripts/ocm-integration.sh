#!/usr/bin/env bash
# Runs Open Cluster Management's own integration suites (test/integration/<suite> of
# open-cluster-management-io/ocm, ginkgo over envtest) against fleetctl's dev API server:
# envtest starts the `kube-apiserver` and `etcd` of KUBEBUILDER_ASSETS, which here are links
# to fleetctl (see README, "As envtest's kube-apiserver"). No proxy, no shim.
#
#   OCM_SRC=~/src/ocm GO=~/go/bin/go scripts/ocm-integration.sh [suite...]
#
# suites: work placement registration addon operator (the default: all five, one after
# another — registration and addon both bind :8000). Each suite's test binary is built once
# into $WORK/bin and reused. Prints one line per suite: passed/run, failed, skipped.
#   FLEETCTL   the fleetctl to judge (default: target/release/fleetctl, else target/debug/fleetctl)
#   WORK       where binaries, assets and logs go (default: target/ocm-integration)
#   EXTRA_ARGS more test-binary flags, e.g. -ginkgo.focus=DeleteOption
#   PLACEMENT_CONTROLLER=fleetctl  judge fleetctl's placement controller instead: the placement
#              suite is built with scripts/ocm-placement-fleetctl.patch applied (through a Go
#              -overlay, OCM_SRC stays untouched), which starts `$FLEETCTLD hub --controllers
#              placement` in each spec where upstream starts its own controller manager.
#   WORK_AGENT=fleetctl  judge fleetctl's work agent instead: the work suite is built with
#              scripts/ocm-work-fleetctl.patch applied (the same way), whose startWorkAgent runs
#              `$FLEETCTLD agent work` for the spec's cluster where upstream runs its agent.
#   FLEETCTLD  the fleetctld they run (default: fleetctld beside FLEETCTL)
set -euo pipefail
cd "$(dirname "$0")/.."

: "${OCM_SRC:?OCM_SRC must name an open-cluster-management-io/ocm source tree (with vendor/)}"
GO=${GO:-go}
WORK=${WORK:-$PWD/target/ocm-integration}
if [ -z "${FLEETCTL:-}" ]; then
  FLEETCTL=$PWD/target/release/fleetctl
  [ -x "$FLEETCTL" ] || FLEETCTL=$PWD/target/debug/fleetctl
fi
[ -x "$FLEETCTL" ] || { echo "no fleetctl at $FLEETCTL: cargo build --release first, or set FLEETCTL" >&2; exit 2; }
PLACEMENT_CONTROLLER=${PLACEMENT_CONTROLLER:-upstream}
WORK_AGENT=${WORK_AGENT:-upstream}
for choice in "$PLACEMENT_CONTROLLER" "$WORK_AGENT"; do
  case $choice in
    upstream) ;;
    fleetctl)
      export FLEETCTLD=${FLEETCTLD:-$(dirname "$FLEETCTL")/fleetctld}
      [ -x "$FLEETCTLD" ] || { echo "no fleetctld at $FLEETCTLD: set FLEETCTLD" >&2; exit 2; } ;;
    *) echo "PLACEMENT_CONTROLLER and WORK_AGENT must be upstream or fleetctl" >&2; exit 2 ;;
  esac
done
command -v kubectl >/dev/null || { echo "kubectl is needed (envtest's assets hold it too)" >&2; exit 2; }

mkdir -p "$WORK/bin" "$WORK/assets" "$WORK/logs"
ln -sf "$FLEETCTL" "$WORK/assets/kube-apiserver"
ln -sf "$FLEETCTL" "$WORK/assets/etcd"
ln -sf "$(command -v kubectl)" "$WORK/assets/kubectl"
export KUBEBUILDER_ASSETS=$WORK/assets GOTOOLCHAIN=local GOFLAGS=-mod=vendor GOPROXY=off
unset KUBECONFIG USE_EXISTING_CLUSTER

suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(work placement registration addon operator)
status=0
# A suite with fleetctl's part in upstream's place (`overlay SUITE`): the files of
# scripts/ocm-SUITE-fleetctl.patch replace (or join) upstream's through a Go overlay, so the
# build reuses the cache of the unpatched tree.
overlay() {
  local suite=$1 patched=$WORK/$1-fleetctl
  rm -rf "$patched" && mkdir -p "$patched/test/integration/$suite"
  cp "$OCM_SRC"/test/integration/"$suite"/*.go "$patched/test/integration/$suite/"
  patch -s -p1 -d "$patched" <"$PWD/scripts/ocm-$suite-fleetctl.patch"
  python3 - "$OCM_SRC" "$patched" "test/integration/$suite" >"$patched/overlay.json" <<'EOF'
import json, os, sys
src, patched = (os.path.abspath(p) for p in sys.argv[1:3])
rel = sys.argv[3]
files = sorted(f for f in os.listdir(os.path.join(patched, rel)) if f.endswith(".go"))
print(json.dumps({"Replace": {os.path.join(src, rel, f): os.path.join(patched, rel, f) for f in files}}))
EOF
  echo "$patched/overlay.json"
}

for suite in "${suites[@]}"; do
  binary=$WORK/bin/$suite.test
  if { [ "$suite" = placement ] && [ "$PLACEMENT_CONTROLLER" = fleetctl ]; } \
    || { [ "$suite" = work ] && [ "$WORK_AGENT" = fleetctl ]; }; then
    binary=$WORK/bin/$suite-fleetctl.test
    overlay=$(overlay "$suite")
    # Rebuilt when the patch changes.
    [ "$binary" -nt "$PWD/scripts/ocm-$suite-fleetctl.patch" ] \
      || (cd "$OCM_SRC" && "$GO" test -c -overlay "$overlay" -o "$binary" "./test/integration/$suite")
  fi
  [ -x "$binary" ] || (cd "$OCM_SRC" && "$GO" test -c -o "$binary" "./test/integration/$suite")
  # The registration suite keeps its CA in a fixed folder of its own.
  [ "$suite" = registration ] && rm -rf "${TMPDIR:-/tmp}/registration-integration-test"
  report=$WORK/logs/$suite.json
  rm -f "$report"
  started=$(date +%s)
  (cd "$OCM_SRC" && "$binary" -ginkgo.no-color -ginkgo.json-report="$report" ${EXTRA_ARGS:-}) \
    >"$WORK/logs/$suite.log" 2>&1 || status=1
  python3 - "$suite" "$report" "$(( $(date +%s) - started ))" <<'EOF'
import json, sys
suite, path, seconds = sys.argv[1:]
try:
    specs = json.load(open(path))[0].get("SpecReports") or []
except (OSError, ValueError, IndexError) as e:
    print(f"{suite}: no report ({e}); see its log")
    sys.exit()
states = [s["State"] for s in specs if s.get("LeafNodeType") == "It"]
run = [s for s in states if s not in ("skipped", "pending")]
passed = states.count("passed")
print(f"{suite}: {passed}/{len(run)} passed, {len(run) - passed} failed, {len(states) - len(run)} skipped ({seconds}s)")
EOF
done
exit $status
