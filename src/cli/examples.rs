//! The Examples section of every command's `--help` (a test checks each has one).

/// `fleetctl import`.
pub const IMPORT: &str = "Examples:
  # Import the cluster of context edge as cluster edge (the context is the cluster's name unless told)
  fleetctl import edge --hub-context hub
  # Name the cluster otherwise, or give its context
  fleetctl import edge=kind-edge --hub-context hub
  fleetctl import edge --cluster-context kind-edge --label env=prod --addons search-collector
  # Several at once; every context but the hub's
  fleetctl import --contexts prod-eu,prod-us --hub-context hub
  fleetctl import --all-contexts --cluster-kubeconfig fleet.yaml --parallel 10 --hub-context hub
  # See what it would write; the command to paste on the target instead
  fleetctl import edge --dry-run --hub-context hub
  fleetctl import edge --print-command --hub-context hub";

/// `fleetctl upgrade`.
pub const UPGRADE: &str = "Examples:
  fleetctl upgrade cluster1 --to 0.2.0 --hub-context hub
  fleetctl upgrade -l env=staging --to 0.2.0 --hub-context hub
  # The clusters an OCM Placement selected
  fleetctl upgrade --placement canary -n apps --to 0.2.0 --hub-context hub
  fleetctl upgrade --all --to 0.2.0 --canary 1 --wave-size 25% --max-failures 1 --hub-context hub
  fleetctl upgrade --all --to 0.2.0 --dry-run -o json --hub-context hub";

/// `fleetctl detach`.
pub const DETACH: &str = "Examples:
  fleetctl detach cluster1 --yes --hub-context hub
  # With the target, detach can remove the klusterlet there itself when the hub cannot
  fleetctl detach cluster1=cluster1 --yes --force --timeout 2m --hub-context hub
  fleetctl detach -l env=staging --yes --hub-context hub
  fleetctl detach --placement retired -n apps --yes --hub-context hub
  fleetctl detach --all --dry-run --hub-context hub";

/// `fleetctl move`.
pub const MOVE: &str = "Examples:
  fleetctl move cluster1 --hub-context hub --to-hub-context hub2
  fleetctl move -l env=staging --to-hub-kubeconfig new-hub.yaml --hub-context hub
  fleetctl move --all --parallel 50 --to-hub-context hub2 --hub-context hub -o json
  fleetctl move --all --dry-run --to-hub-context hub2 --hub-context hub";

/// `fleetctl plan`.
pub const PLAN: &str = "Examples:
  fleetctl plan -f fleet.yaml
  fleetctl plan -f fleet.yaml --prune -o json";

/// `fleetctl apply`.
pub const APPLY: &str = "Examples:
  fleetctl apply -f fleet.yaml --report out.json
  fleetctl apply -f fleet.yaml --dry-run
  fleetctl apply -f fleet.yaml --prune --yes";

/// `fleetctl get`.
pub const GET: &str = "Examples:
  fleetctl get clusters --hub-context hub
  fleetctl get clusters -l env=prod -o wide
  fleetctl get clusters -w
  fleetctl get clusters -o jsonpath='{.items[*].metadata.name}'
  fleetctl get clusters -o custom-columns=NAME:.metadata.name,VERSION:'.status.clusterClaims[?(@.name==\"klusterlet-version.fleetctl.io\")].value' --no-headers
  fleetctl get addons cluster1 -o yaml";

/// `fleetctl get clusters`.
pub const GET_CLUSTERS: &str = "Examples:
  fleetctl get clusters
  fleetctl get clusters cluster1 cluster2 -o json
  fleetctl get clusters -l env=prod,tier!=edge -o wide --no-headers";

/// `fleetctl get addons`.
pub const GET_ADDONS: &str = "Examples:
  fleetctl get addons
  fleetctl get addons cluster1 -o wide";

/// `fleetctl get clustersets`.
pub const GET_CLUSTERSETS: &str = "Examples:
  fleetctl get clustersets
  fleetctl get clustersets global -o wide";

/// `fleetctl get placements`.
pub const GET_PLACEMENTS: &str = "Examples:
  fleetctl get placements -n apps
  fleetctl get placements -A -o wide";

/// `fleetctl describe`.
pub const DESCRIBE: &str = "Examples:
  fleetctl describe cluster cluster1 --hub-context hub
  # With the managed side's view of the klusterlet
  fleetctl describe cluster cluster1 --cluster-context cluster1 -o yaml";

/// `fleetctl hub`.
pub const HUB: &str = "Examples:
  fleetctl hub install --hub-context kind-hub --hub-url https://hub.example:6443
  fleetctl hub install --dry-run > hub.yaml
  fleetctl hub uninstall --hub-context kind-hub";

/// `fleetctl hub install`.
pub const HUB_INSTALL: &str = "Examples:
  fleetctl hub install --hub-context kind-hub
  fleetctl hub install --hub-url https://hub.example:6443 --hub-ca-file hub-ca.pem --timeout 2m
  fleetctl hub install --image-registry registry.example.com:5000 --dry-run";

/// `fleetctl hub backup`.
pub const HUB_BACKUP: &str = "Examples:
  fleetctl hub backup -o fleet-backup.yaml --hub-context hub
  fleetctl hub backup -o - --hub-context hub | gpg --encrypt -r ops > fleet-backup.yaml.gpg";

/// `fleetctl hub restore`.
pub const HUB_RESTORE: &str = "Examples:
  fleetctl hub restore -f fleet-backup.yaml --hub-context new-hub";

/// `fleetctl hub uninstall`.
pub const HUB_UNINSTALL: &str = "Examples:
  fleetctl hub uninstall --hub-context kind-hub
  fleetctl hub uninstall --purge-crds --hub-context kind-hub";

/// `fleetctl dev`.
pub const DEV: &str = "Examples:
  fleetctl dev up --clusters 2 && export KUBECONFIG=~/.local/state/fleetctl/dev/kubeconfig
  fleetctl dev status
  fleetctl dev logs cluster1 klusterlet-registration-agent
  fleetctl dev down";

/// `fleetctl dev serve`.
pub const DEV_SERVE: &str = "Examples:
  fleetctl dev serve --kubeconfig /tmp/dev.kubeconfig
  fleetctl dev serve --kubeconfig /tmp/dev.kubeconfig --store /tmp/dev-store --node-simulator";

/// `fleetctl dev up`.
pub const DEV_UP: &str = "Examples:
  fleetctl dev up --clusters 2
  fleetctl dev up --clusters 3 --durable --dir /tmp/fleet
  fleetctl dev up --bare-hub --clusters 2";

/// `fleetctl dev fleet`.
pub const DEV_FLEET: &str = "Examples:
  fleetctl dev fleet --clusters 1000 &
  fleetctl detach -l simulated=true --yes --parallel 32 && kill %1";

/// `fleetctl dev down`.
pub const DEV_DOWN: &str = "Examples:
  fleetctl dev down
  fleetctl dev down --dir /tmp/fleet --grace 10s";

/// `fleetctl dev restart`.
pub const DEV_RESTART: &str = "Examples:
  fleetctl dev restart hub
  fleetctl dev restart hub --rotate-ca trust";

/// `fleetctl dev status`.
pub const DEV_STATUS: &str = "Examples:
  fleetctl dev status
  fleetctl dev status --dir /tmp/fleet";

/// `fleetctl dev logs`.
pub const DEV_LOGS: &str = "Examples:
  fleetctl dev logs hub
  fleetctl dev logs cluster1 open-cluster-management-agent/klusterlet-work-agent";

/// `fleetctl demo`.
pub const DEMO: &str = "Examples:
  fleetctl demo";

/// `fleetctl completion`.
pub const COMPLETION: &str = "Examples:
  fleetctl completion bash > ~/.local/share/bash-completion/completions/fleetctl
  fleetctl completion zsh > \"${fpath[1]}/_fleetctl\"
  fleetctl completion fish > ~/.config/fish/completions/fleetctl.fish";

/// `fleetctl version`.
pub const VERSION: &str = "Examples:
  fleetctl version
  fleetctl version -o json";
