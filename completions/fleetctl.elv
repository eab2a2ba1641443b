
use builtin;
use str;

set edit:completion:arg-completer[fleetctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'fleetctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'fleetctl'= {
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand dev 'The embedded dev cluster'
            cand demo 'Run the three acts on an embedded dev environment, telling the story as it goes'
            cand hub 'Install or remove the hub'
            cand import 'Import a cluster into the hub (Act I)'
            cand upgrade 'Upgrade the klusterlet of clusters (Act II)'
            cand detach 'Detach a cluster from the hub (Act III)'
            cand move 'Move clusters to another hub, their workloads untouched'
            cand plan 'Show what `apply` would change to make the hub match a fleet file; changes nothing'
            cand apply 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists'
            cand get 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)'
            cand describe 'Show everything the hub knows about one cluster'
            cand completion 'Print a shell completion script'
            cand version 'Print the CLI''s version and the image it deploys by default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;dev'= {
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand serve 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
            cand up 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
            cand fleet 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
            cand down 'Stop the dev environment (its clusters and everything they run)'
            cand restart 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
            cand status 'Show the dev environment''s clusters: URL, pid, ready'
            cand logs 'Print a cluster''s log, or the log of one of its Deployments'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;dev;serve'= {
            cand --kubeconfig 'Where to write the kubeconfig (written once the server is ready, mode 0600)'
            cand --name 'Name of the cluster, user and context in the kubeconfig'
            cand --port 'Port on 127.0.0.1 (0: any free port)'
            cand --store 'Keep objects in this directory, each write on disk before it is acknowledged, and resume from it on the next start (default: in memory only, gone on exit)'
            cand --node-dir 'The simulator''s directory for container logs (logs/<name>/) and Pod kubeconfigs (pods/<name>/) (default: the kubeconfig''s directory)'
            cand --node-mode 'How the simulator runs fleetctl containers'
            cand --rotate-ca 'Take a step of rotating the CA kept in --store before serving, in the order of Kubernetes'' manual CA rotation: trust (a new CA signs and is trusted beside the old one, which still serves), serve (the new one serves), retire (the old one is no longer trusted)'
            cand --node-simulator 'Run the node simulator: Deployments of the fleetctl image run as processes, others are reported running, and their status and Pods are kept true'
            cand --podman 'Run images that exist in local podman storage as podman containers (options for every podman call from FLEETCTL_PODMAN_OPTIONS, e.g. `--storage-driver vfs`)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;dev;up'= {
            cand --clusters 'How many managed clusters'
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand --image 'The fleetctl image the hub controller Deployment names'
            cand --ready-timeout 'How long the hub controller may take to become Available'
            cand --bare-hub 'Start the hub bare: a plain Kubernetes API, as `kind create cluster` gives, with nothing of fleetctl installed (no CRDs, no hub controller, no namespaces of its own), for another hub (OCM''s `clusteradm init`) or a later `fleetctl hub install --hub-context hub`. The managed clusters come up as usual'
            cand --durable 'Keep each cluster''s objects on disk, so the next `dev up` resumes them'
            cand --in-process 'Run controllers and agents as tasks of the cluster processes (for scale runs)'
            cand --podman 'Run the image as podman containers where it is in local podman storage (build it with .ci/image; options for every podman call from FLEETCTL_PODMAN_OPTIONS)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;dev;fleet'= {
            cand --clusters 'How many simulated clusters'
            cand --parallel 'How many imports run at once'
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand --timeout 'How long importing the whole fleet may take'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;dev;down'= {
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand --grace 'How long the clusters have to stop before they are killed'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;dev;restart'= {
            cand --rotate-ca 'The CA rotation step to take (see `dev serve --rotate-ca`)'
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand --grace 'How long the cluster has to stop before it is killed'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;dev;status'= {
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;dev;logs'= {
            cand --dir 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;dev;help'= {
            cand serve 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
            cand up 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
            cand fleet 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
            cand down 'Stop the dev environment (its clusters and everything they run)'
            cand restart 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
            cand status 'Show the dev environment''s clusters: URL, pid, ready'
            cand logs 'Print a cluster''s log, or the log of one of its Deployments'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;dev;help;serve'= {
        }
        &'fleetctl;dev;help;up'= {
        }
        &'fleetctl;dev;help;fleet'= {
        }
        &'fleetctl;dev;help;down'= {
        }
        &'fleetctl;dev;help;restart'= {
        }
        &'fleetctl;dev;help;status'= {
        }
        &'fleetctl;dev;help;logs'= {
        }
        &'fleetctl;dev;help;help'= {
        }
        &'fleetctl;demo'= {
            cand --keep 'Leave the dev environment running afterwards (and say where it is)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;hub'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand install 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
            cand uninstall 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
            cand backup 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
            cand restore 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;hub;install'= {
            cand --image 'The fleetctl image the hub controller runs; the clusters it imports run the same repository (default: quay.io/fleetctl/fleetctl at this version)'
            cand --image-registry 'A registry mirror for every image the hub deploys (the default image''s registry replaced, as ACM''s KlusterletConfig registries do), e.g. registry.example.com:5000'
            cand --hub-url 'The hub''s API server URL as managed clusters reach it (default: the server of kube-public/cluster-info where the hub publishes one, else your kubeconfig''s)'
            cand --hub-ca-file 'The CA bundle (PEM file) that verifies --hub-url (default: your kubeconfig''s CA)'
            cand --image-pull-secret 'A kubernetes.io/dockerconfigjson Secret in namespace open-cluster-management-hub whose registry credentials the controller pulls with and every klusterlet gets (create it first with `kubectl create secret docker-registry NAME -n open-cluster-management-hub …`)'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the YAML instead of applying it (the address comes from the flags or your kubeconfig; nothing is read from the hub)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;hub;uninstall'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --purge-crds 'Also delete the OCM CRDs, and with them every ManagedCluster and ManifestWork'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;hub;backup'= {
            cand -o 'The file to write (YAML, readable by its owner only); `-` writes to standard output'
            cand --output 'The file to write (YAML, readable by its owner only); `-` writes to standard output'
            cand --recovery-hub-context 'Make this hub (a context of --recovery-hub-kubeconfig, else of the hub''s file) the fleet''s recovery hub: the backup is restored onto it as a standby, and each imported cluster''s klusterlet gets its bootstrap kubeconfig there, which it turns to once this hub has not answered for --recover-after. Run again to follow the fleet''s changes'
            cand --recovery-hub-kubeconfig 'Kubeconfig of the recovery hub'
            cand --recover-after 'How long the hub may stay silent before the klusterlets turn to the recovery hub'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --include-work-secrets 'Write ManifestWorks that carry Secrets too: their data is then in the file, as on the hub'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;hub;restore'= {
            cand -f 'The file `fleetctl hub backup` wrote'
            cand --filename 'The file `fleetctl hub backup` wrote'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;hub;help'= {
            cand install 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
            cand uninstall 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
            cand backup 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
            cand restore 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;hub;help;install'= {
        }
        &'fleetctl;hub;help;uninstall'= {
        }
        &'fleetctl;hub;help;backup'= {
        }
        &'fleetctl;hub;help;restore'= {
        }
        &'fleetctl;hub;help;help'= {
        }
        &'fleetctl;import'= {
            cand --contexts 'Import the clusters of these contexts, each named as its context (NAME=CONTEXT to name it otherwise), comma-separated'
            cand --parallel 'How many clusters to import at once'
            cand --label 'A label for the ManagedClusters (repeatable)'
            cand -l 'Refused: import selects no clusters (see --label)'
            cand --selector 'Refused: import selects no clusters (see --label)'
            cand --addons 'Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller)'
            cand --klusterlet-mode 'How the klusterlet runs its agents: `default` (a registration and a work agent) or `singleton` (one agent doing both, upstream''s Singleton mode)'
            cand --hosting-cluster 'Run the klusterlet on another managed cluster of the hub, this one (upstream''s Hosted mode): its agents reach the cluster with a token of a ServiceAccount the import makes there (kube-system/fleetctl-hosted-klusterlet, cluster-admin), removed on detach'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --cluster-kubeconfig 'Kubeconfig of the clusters being imported or detached (default: the hub''s file)'
            cand --cluster-context 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing'
            cand --all-contexts 'Import the cluster of every context of --cluster-kubeconfig but the hub''s, each named as its context'
            cand --allow-hub-as-target 'Import a cluster whose context reaches the hub itself: a hub that manages itself, as ACM''s local-cluster'
            cand --no-wait 'Stop once the manifests are applied to the targets'
            cand --print-command 'Print the one-line command to run on the target instead of applying it (one NAME)'
            cand --auto 'Let the hub apply the import manifests itself: write each target''s kubeconfig (its context alone) into the cluster''s auto-import-secret, which the hub deletes once it has imported the cluster'
            cand --force 'Import even if a target is joined to another hub'
            cand --adopt-namespace 'Use the hub namespace of the cluster''s name although it exists already and was not made for this cluster; detach then keeps it and what it holds'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;upgrade'= {
            cand -l 'Clusters matching this label selector (e.g. env=prod,tier!=edge)'
            cand --selector 'Clusters matching this label selector (e.g. env=prod,tier!=edge)'
            cand --placement 'The clusters this Placement selected (its PlacementDecisions''), in the namespace of -n'
            cand -n 'The namespace of the Placement'
            cand --namespace 'The namespace of the Placement'
            cand --to 'The klusterlet version to run (e.g. 0.2.0)'
            cand --canary 'The size of the first wave, which may not fail at all'
            cand --wave-size 'How many clusters each wave upgrades at once: a number, or a share of the clusters (25%)'
            cand --parallel 'How many clusters each wave upgrades at once: a number, or a share of the clusters (25%)'
            cand --max-failures 'How many clusters may fail before the rollout stops (the canary wave tolerates none)'
            cand --soak 'How long a wave''s clusters must stay Available before the next wave starts'
            cand --progress-deadline 'How long each cluster has to run the new version and be Available (default: half of --timeout with rollbacks, which get the other half; else --timeout)'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing'
            cand --all 'Every cluster'
            cand --no-rollback 'Leave a cluster that failed as it is, rather than restoring its previous version'
            cand --adopt-klusterlet 'Take over the klusterlet a cluster joined with by itself (`clusteradm join`, upstream''s klusterlet): the hub installs fleetctl''s, whose operator retires the other and takes over its agents with their registration and what they applied. Without it such a cluster is refused: a hub never replaces a klusterlet it did not install unless told to'
            cand --no-wait 'Record the version and return without waiting (one wave, no rollback)'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;detach'= {
            cand -l 'The clusters matching this label selector (e.g. env=staging,tier!=edge)'
            cand --selector 'The clusters matching this label selector (e.g. env=staging,tier!=edge)'
            cand --placement 'The clusters this Placement selected (its PlacementDecisions''), in the namespace of -n'
            cand -n 'The namespace of the Placement'
            cand --namespace 'The namespace of the Placement'
            cand --parallel 'How many clusters to detach at once'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --cluster-kubeconfig 'Kubeconfig of the clusters being imported or detached (default: the hub''s file)'
            cand --cluster-context 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing'
            cand --all 'Every cluster of the hub'
            cand -y 'Do not ask (needed when not on a terminal)'
            cand --yes 'Do not ask (needed when not on a terminal)'
            cand --force 'When the agents do not answer within --timeout, clean the hub anyway'
            cand --no-wait 'Start the detach and return'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;move'= {
            cand -l 'The clusters matching this label selector (e.g. env=staging,tier!=edge)'
            cand --selector 'The clusters matching this label selector (e.g. env=staging,tier!=edge)'
            cand --to-hub-kubeconfig 'Kubeconfig of the hub the clusters move to (default: the hub''s file)'
            cand --to-hub-context 'Context of the hub the clusters move to'
            cand --parallel 'How many clusters to move at once'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing'
            cand --all 'Every cluster of the hub'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;plan'= {
            cand -f 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)'
            cand --file 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --prune 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;apply'= {
            cand -f 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)'
            cand --file 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)'
            cand --report 'Write the JSON report of what was done to this file too (also on failure)'
            cand --parallel 'How many clusters to import or detach at once'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it'
            cand --dry-run 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing'
            cand --prune 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched'
            cand -y 'Do not ask before detaching (needed with --prune when not on a terminal)'
            cand --yes 'Do not ask before detaching (needed with --prune when not on a terminal)'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fleetctl;get'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand clusters 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count'
            cand mcl 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count'
            cand addons 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
            cand mca 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
            cand clustersets 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
            cand mclset 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
            cand placements 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;get;clusters'= {
            cand -l 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)'
            cand --selector 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;mcl'= {
            cand -l 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)'
            cand --selector 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;addons'= {
            cand -l 'Only addons whose labels match this selector'
            cand --selector 'Only addons whose labels match this selector'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;mca'= {
            cand -l 'Only addons whose labels match this selector'
            cand --selector 'Only addons whose labels match this selector'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;clustersets'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;mclset'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;placements'= {
            cand -n 'The namespace of the Placements'
            cand --namespace 'The namespace of the Placements'
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand -A 'The Placements of every namespace'
            cand --all-namespaces 'The Placements of every namespace'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -w 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand --watch 'After the list, print each change as it happens (until interrupted, or --timeout)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;get;help'= {
            cand clusters 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count'
            cand addons 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
            cand clustersets 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
            cand placements 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;get;help;clusters'= {
        }
        &'fleetctl;get;help;addons'= {
        }
        &'fleetctl;get;help;clustersets'= {
        }
        &'fleetctl;get;help;placements'= {
        }
        &'fleetctl;get;help;help'= {
        }
        &'fleetctl;describe'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --cluster-kubeconfig 'Kubeconfig of the managed cluster (default: the hub''s file)'
            cand --cluster-context 'Context of the managed cluster in that kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand cluster 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
            cand mcl 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;describe;cluster'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --cluster-kubeconfig 'Kubeconfig of the managed cluster (default: the hub''s file)'
            cand --cluster-context 'Context of the managed cluster in that kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;describe;mcl'= {
            cand --hub-kubeconfig 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)'
            cand --hub-context 'Context of the hub in its kubeconfig'
            cand --cluster-kubeconfig 'Kubeconfig of the managed cluster (default: the hub''s file)'
            cand --cluster-context 'Context of the managed cluster in that kubeconfig'
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --timeout 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;describe;help'= {
            cand cluster 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;describe;help;cluster'= {
        }
        &'fleetctl;describe;help;help'= {
        }
        &'fleetctl;completion'= {
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;version'= {
            cand -o 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --output 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)'
            cand --no-headers 'Print tables without their header line (table, wide, custom-columns)'
            cand -q 'Print only errors: no notes, no progress, only error logs'
            cand --quiet 'Print only errors: no notes, no progress, only error logs'
            cand -v 'Log more (repeat for more detail); logs go to stderr'
            cand --verbose 'Log more (repeat for more detail); logs go to stderr'
            cand --no-color 'No colours (also NO_COLOR)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'fleetctl;help'= {
            cand dev 'The embedded dev cluster'
            cand demo 'Run the three acts on an embedded dev environment, telling the story as it goes'
            cand hub 'Install or remove the hub'
            cand import 'Import a cluster into the hub (Act I)'
            cand upgrade 'Upgrade the klusterlet of clusters (Act II)'
            cand detach 'Detach a cluster from the hub (Act III)'
            cand move 'Move clusters to another hub, their workloads untouched'
            cand plan 'Show what `apply` would change to make the hub match a fleet file; changes nothing'
            cand apply 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists'
            cand get 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)'
            cand describe 'Show everything the hub knows about one cluster'
            cand completion 'Print a shell completion script'
            cand version 'Print the CLI''s version and the image it deploys by default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fleetctl;help;dev'= {
            cand serve 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
            cand up 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
            cand fleet 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
            cand down 'Stop the dev environment (its clusters and everything they run)'
            cand restart 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
            cand status 'Show the dev environment''s clusters: URL, pid, ready'
            cand logs 'Print a cluster''s log, or the log of one of its Deployments'
        }
        &'fleetctl;help;dev;serve'= {
        }
        &'fleetctl;help;dev;up'= {
        }
        &'fleetctl;help;dev;fleet'= {
        }
        &'fleetctl;help;dev;down'= {
        }
        &'fleetctl;help;dev;restart'= {
        }
        &'fleetctl;help;dev;status'= {
        }
        &'fleetctl;help;dev;logs'= {
        }
        &'fleetctl;help;demo'= {
        }
        &'fleetctl;help;hub'= {
            cand install 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
            cand uninstall 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
            cand backup 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
            cand restore 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
        }
        &'fleetctl;help;hub;install'= {
        }
        &'fleetctl;help;hub;uninstall'= {
        }
        &'fleetctl;help;hub;backup'= {
        }
        &'fleetctl;help;hub;restore'= {
        }
        &'fleetctl;help;import'= {
        }
        &'fleetctl;help;upgrade'= {
        }
        &'fleetctl;help;detach'= {
        }
        &'fleetctl;help;move'= {
        }
        &'fleetctl;help;plan'= {
        }
        &'fleetctl;help;apply'= {
        }
        &'fleetctl;help;get'= {
            cand clusters 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count'
            cand addons 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
            cand clustersets 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
            cand placements 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
        }
        &'fleetctl;help;get;clusters'= {
        }
        &'fleetctl;help;get;addons'= {
        }
        &'fleetctl;help;get;clustersets'= {
        }
        &'fleetctl;help;get;placements'= {
        }
        &'fleetctl;help;describe'= {
            cand cluster 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
        }
        &'fleetctl;help;describe;cluster'= {
        }
        &'fleetctl;help;completion'= {
        }
        &'fleetctl;help;version'= {
        }
        &'fleetctl;help;help'= {
        }
    ]
    $completions[$command]
}
