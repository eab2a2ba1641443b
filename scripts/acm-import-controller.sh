#!/usr/bin/env bash
# ACM's import controller (stolostron/managedcluster-import-controller) as a Pod on a dev hub,
# deployed from its own manifests, importing a dev cluster through `fleetctl import`: upstream's
# software judging the dev cluster and fleetctl's CLI on a real ACM import path. The way its own
# kind e2e sets up (build/setup-kind-clusters.sh, setup-ocm.sh, setup-import-controller.sh), on
# `fleetctl dev up --bare-hub --podman` instead of kind:
#   1. a bare hub and cluster1, their Pods run by podman, each in a network of its own;
#   2. `clusteradm init --wait`: OCM's cluster-manager and hub controllers as Pods;
#   3. the CRDs its e2e installs (hive, OpenShift config, assisted-service; the
#      KlusterletAddonConfig CRD, which ACM ships beside it) and an Infrastructure `cluster`
#      whose status names the hub's URL;
#   4. `kubectl kustomize deploy/base` with the images pointed at local ones, applied;
#   5. `fleetctl import cluster1`, `fleetctl get clusters`, the klusterlet's Pods on cluster1;
#   6. with LIFECYCLE=1, the rest of the lifecycle there: get, describe, upgrade (refused: ACM's
#      klusterlet follows its hub), detach with the target, `import --print-command` pasted,
#      `--adopt-namespace` and detach (the hub namespace and a ConfigMap in it kept).
# Prints each step's exit code and time. Leaves the environment up in $DIR (`fleetctl dev down
# --dir $DIR` removes it).
#
#   MIC_SRC=<import controller source tree> IMPORT_CONTROLLER=<its manager executable> \
#   CLUSTERADM=<clusteradm> FLEETCTL_UPSTREAM_BIN=<ocm, for the OCM images> scripts/acm-import-controller.sh
#
#   FLEETCTL  the fleetctl to judge (default: target/debug/fleetctl)
#   DIR       the dev environment's folder (default: target/acm-import-controller)
# Needs podman (with .ci/podman-env's options), root (Pod networks), kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/podman-env
source .ci/podman-env

: "${MIC_SRC:?MIC_SRC must name a stolostron/managedcluster-import-controller source tree}"
: "${IMPORT_CONTROLLER:?IMPORT_CONTROLLER must name its manager executable (built from MIC_SRC)}"
: "${CLUSTERADM:?CLUSTERADM must name clusteradm}"
FLEETCTL=${FLEETCTL:-$PWD/target/debug/fleetctl}
DIR=${DIR:-$PWD/target/acm-import-controller}
image=localhost/managedcluster-import-controller:dev

step() {
  local what=$1 started status
  shift
  started=$(date +%s.%N)
  set +e
  "$@"
  status=$?
  set -e
  printf '%-40s exit %d in %.2f s\n' "$what" "$status" "$(echo "$(date +%s.%N) - $started" | bc)" >&2
  return $status
}

# Its image as upstream's Dockerfile lays it out: the manager as the entrypoint, user 10001.
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/root/usr/local/bin" "$context/root/tmp"
chmod 1777 "$context/root/tmp"
cp "$IMPORT_CONTROLLER" "$context/root/usr/local/bin/managedcluster-import-controller"
printf 'FROM scratch\nCOPY root/ /\nUSER 10001\nENTRYPOINT ["/usr/local/bin/managedcluster-import-controller"]\n' \
  >"$context/Containerfile"
podman build --timestamp 0 --tag "$image" "$context" >/dev/null
if ! podman image exists quay.io/open-cluster-management/registration-operator:v1.3.1; then
  .ci/upstream-images >/dev/null
fi

export KUBECONFIG=$DIR/kubeconfig
"$FLEETCTL" dev down --dir "$DIR" >/dev/null 2>&1 || true
step "dev up --bare-hub --podman" "$FLEETCTL" dev up --bare-hub --podman --clusters 1 --dir "$DIR" --quiet
kubectl --context cluster1 get clusterrole,clusterrolebinding,priorityclass,crd -o name | sort >"$DIR/target-before"
step "clusteradm init --wait" "$CLUSTERADM" init --wait --context hub >/dev/null
# The operator registers the hub's webhooks once they serve, which can come after `init --wait`:
# a ManagedCluster created before misses the default cluster-set label, and upstream's validating
# webhook then refuses the removal of the controllers' finalizers when it is detached.
step "the hub's webhooks registered" kubectl --context hub wait --for=create --timeout=120s \
  mutatingwebhookconfiguration/managedclustermutators.admission.cluster.open-cluster-management.io
hub=$(kubectl config view -o jsonpath='{.clusters[?(@.name=="hub")].cluster.server}')
step "its e2e's CRDs" kubectl --context hub apply \
  -f "$MIC_SRC/test/e2e/resources/hive" -f "$MIC_SRC/test/e2e/resources/ocp" \
  -f "$MIC_SRC/test/e2e/resources/assisted-service" \
  -f crates/api/src/crds/klusterletaddonconfigs.agent.open-cluster-management.io.yaml >/dev/null
kubectl --context hub apply -f - >/dev/null <<EOF
apiVersion: config.openshift.io/v1
kind: Infrastructure
metadata:
  name: cluster
spec:
  cloudConfig:
    name: ""
status:
  apiServerInternalURI: $hub
  apiServerURL: $hub
EOF
kubectl kustomize "$MIC_SRC/deploy/base" \
  | sed -e "s,quay.io/open-cluster-management/\(registration-operator\|registration\|work\):latest,quay.io/open-cluster-management/\1:v1.3.1," \
    -e "s,image: managedcluster-import-controller:latest,image: $image," \
  | kubectl --context hub apply -f - >/dev/null
step "the import controller's rollout" \
  kubectl --context hub -n open-cluster-management rollout status deploy managedcluster-import-controller --timeout=120s
step "fleetctl import cluster1" "$FLEETCTL" import cluster1 --hub-context hub --cluster-context cluster1 --timeout 120s
"$FLEETCTL" get clusters --hub-context hub
kubectl --context cluster1 get pods -A -o wide
[ "${LIFECYCLE:-}" = 1 ] || exit 0

# 6. The rest of the lifecycle on this ACM hub (LIFECYCLE=1): each step's exit code and time.
step "fleetctl get clusters" "$FLEETCTL" get clusters --hub-context hub >/dev/null
step "fleetctl describe cluster cluster1" "$FLEETCTL" describe cluster cluster1 --hub-context hub >/dev/null
# Refused before any write: ACM's klusterlet follows the hub's import controller.
step "fleetctl upgrade cluster1 (refused)" "$FLEETCTL" upgrade cluster1 --to 1.3.2 --hub-context hub || true
kubectl --context cluster1 get clusterrole,clusterrolebinding,priorityclass,crd -o name | sort >"$DIR/target-imported"
# ACM's klusterlet work rolls the operator the import started: a detach within those seconds can
# have the old operator, SIGTERMed mid-cleanup, delete its own namespace (and so its successor)
# before it releases the Klusterlet — upstream's race; detach would then name what is left (exit 3).
rolled_out() {
  step "the klusterlet operator rolled out" kubectl --context cluster1 -n open-cluster-management-agent \
    rollout status deploy/klusterlet --timeout=120s >/dev/null
}
rolled_out
step "fleetctl detach cluster1 (with target)" \
  "$FLEETCTL" detach cluster1 --yes --hub-context hub --cluster-context cluster1 --timeout 180s
echo "left on cluster1 of what the import made (upstream keeps the AppliedManifestWork and ClusterClaim CRDs):" >&2
kubectl --context cluster1 get clusterrole,clusterrolebinding,priorityclass,crd -o name | sort \
  | comm -12 - <(grep -v -x -f "$DIR/target-before" "$DIR/target-imported") >&2
kubectl --context hub get managedcluster cluster1 2>&1 | sed 's/^/hub: /' >&2 || true
pasted=$("$FLEETCTL" import cluster1 --print-command --hub-context hub)
step "import --print-command, pasted" env KUBECONFIG="$DIR/cluster1.kubeconfig" sh -c "$pasted" >/dev/null
step "cluster1 Available again" kubectl --context hub wait managedcluster/cluster1 --timeout=180s \
  --for=condition=ManagedClusterConditionAvailable >/dev/null
rolled_out
step "fleetctl detach cluster1 (with target)" \
  "$FLEETCTL" detach cluster1 --yes --hub-context hub --cluster-context cluster1 --timeout 180s
# A namespace of the hub's own, adopted for the cluster, survives its detach with what it holds.
kubectl --context hub create namespace team-data >/dev/null
kubectl --context hub -n team-data create configmap precious --from-literal=keep=yes >/dev/null
step "fleetctl import team-data --adopt-namespace" "$FLEETCTL" import team-data --adopt-namespace \
  --hub-context hub --cluster-context cluster1 --timeout 180s
rolled_out
step "fleetctl detach team-data (with target)" \
  "$FLEETCTL" detach team-data --yes --hub-context hub --cluster-context cluster1 --timeout 180s
step "namespace team-data and its ConfigMap kept" kubectl --context hub -n team-data get configmap precious
