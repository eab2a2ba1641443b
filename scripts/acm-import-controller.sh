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
#   5. `fleetctl import cluster1`, `fleetctl get clusters`, the klusterlet's Pods on cluster1.
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
