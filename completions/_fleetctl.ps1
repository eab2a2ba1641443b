
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'fleetctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'fleetctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'fleetctl' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('dev', 'dev', [CompletionResultType]::ParameterValue, 'The embedded dev cluster')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Run the three acts on an embedded dev environment, telling the story as it goes')
            [CompletionResult]::new('hub', 'hub', [CompletionResultType]::ParameterValue, 'Install or remove the hub')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import a cluster into the hub (Act I)')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Upgrade the klusterlet of clusters (Act II)')
            [CompletionResult]::new('detach', 'detach', [CompletionResultType]::ParameterValue, 'Detach a cluster from the hub (Act III)')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move clusters to another hub, their workloads untouched')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Show what `apply` would change to make the hub match a fleet file; changes nothing')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Show everything the hub knows about one cluster')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the CLI''s version and the image it deploys by default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;dev' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run one Kubernetes-API-compatible server in the foreground until interrupted')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the dev environment (its clusters and everything they run)')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the dev environment''s clusters: URL, pid, ready')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Print a cluster''s log, or the log of one of its Deployments')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;dev;serve' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Where to write the kubeconfig (written once the server is ready, mode 0600)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Name of the cluster, user and context in the kubeconfig')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Port on 127.0.0.1 (0: any free port)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep objects in this directory, each write on disk before it is acknowledged, and resume from it on the next start (default: in memory only, gone on exit)')
            [CompletionResult]::new('--node-dir', '--node-dir', [CompletionResultType]::ParameterName, 'The simulator''s directory for container logs (logs/<name>/) and Pod kubeconfigs (pods/<name>/) (default: the kubeconfig''s directory)')
            [CompletionResult]::new('--node-mode', '--node-mode', [CompletionResultType]::ParameterName, 'How the simulator runs fleetctl containers')
            [CompletionResult]::new('--rotate-ca', '--rotate-ca', [CompletionResultType]::ParameterName, 'Take a step of rotating the CA kept in --store before serving, in the order of Kubernetes'' manual CA rotation: trust (a new CA signs and is trusted beside the old one, which still serves), serve (the new one serves), retire (the old one is no longer trusted)')
            [CompletionResult]::new('--node-simulator', '--node-simulator', [CompletionResultType]::ParameterName, 'Run the node simulator: Deployments of the fleetctl image run as processes, others are reported running, and their status and Pods are kept true')
            [CompletionResult]::new('--podman', '--podman', [CompletionResultType]::ParameterName, 'Run images that exist in local podman storage as podman containers (options for every podman call from FLEETCTL_PODMAN_OPTIONS, e.g. `--storage-driver vfs`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;dev;up' {
            [CompletionResult]::new('--clusters', '--clusters', [CompletionResultType]::ParameterName, 'How many managed clusters')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'The fleetctl image the hub controller Deployment names')
            [CompletionResult]::new('--ready-timeout', '--ready-timeout', [CompletionResultType]::ParameterName, 'How long the hub controller may take to become Available')
            [CompletionResult]::new('--bare-hub', '--bare-hub', [CompletionResultType]::ParameterName, 'Start the hub bare: a plain Kubernetes API, as `kind create cluster` gives, with nothing of fleetctl installed (no CRDs, no hub controller, no namespaces of its own), for another hub (OCM''s `clusteradm init`) or a later `fleetctl hub install --hub-context hub`. The managed clusters come up as usual')
            [CompletionResult]::new('--durable', '--durable', [CompletionResultType]::ParameterName, 'Keep each cluster''s objects on disk, so the next `dev up` resumes them')
            [CompletionResult]::new('--in-process', '--in-process', [CompletionResultType]::ParameterName, 'Run controllers and agents as tasks of the cluster processes (for scale runs)')
            [CompletionResult]::new('--podman', '--podman', [CompletionResultType]::ParameterName, 'Run the image as podman containers where it is in local podman storage (build it with .ci/image; options for every podman call from FLEETCTL_PODMAN_OPTIONS)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;dev;fleet' {
            [CompletionResult]::new('--clusters', '--clusters', [CompletionResultType]::ParameterName, 'How many simulated clusters')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many imports run at once')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long importing the whole fleet may take')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;dev;down' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'How long the clusters have to stop before they are killed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;dev;restart' {
            [CompletionResult]::new('--rotate-ca', '--rotate-ca', [CompletionResultType]::ParameterName, 'The CA rotation step to take (see `dev serve --rotate-ca`)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'How long the cluster has to stop before it is killed')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;dev;status' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;dev;logs' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The environment''s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;dev;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run one Kubernetes-API-compatible server in the foreground until interrupted')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the dev environment (its clusters and everything they run)')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the dev environment''s clusters: URL, pid, ready')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Print a cluster''s log, or the log of one of its Deployments')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;dev;help;serve' {
            break
        }
        'fleetctl;dev;help;up' {
            break
        }
        'fleetctl;dev;help;fleet' {
            break
        }
        'fleetctl;dev;help;down' {
            break
        }
        'fleetctl;dev;help;restart' {
            break
        }
        'fleetctl;dev;help;status' {
            break
        }
        'fleetctl;dev;help;logs' {
            break
        }
        'fleetctl;dev;help;help' {
            break
        }
        'fleetctl;demo' {
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Leave the dev environment running afterwards (and say where it is)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;hub' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;hub;install' {
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'The fleetctl image the hub controller runs; the clusters it imports run the same repository (default: quay.io/fleetctl/fleetctl at this version)')
            [CompletionResult]::new('--image-registry', '--image-registry', [CompletionResultType]::ParameterName, 'A registry mirror for every image the hub deploys (the default image''s registry replaced, as ACM''s KlusterletConfig registries do), e.g. registry.example.com:5000')
            [CompletionResult]::new('--hub-url', '--hub-url', [CompletionResultType]::ParameterName, 'The hub''s API server URL as managed clusters reach it (default: the server of kube-public/cluster-info where the hub publishes one, else your kubeconfig''s)')
            [CompletionResult]::new('--hub-ca-file', '--hub-ca-file', [CompletionResultType]::ParameterName, 'The CA bundle (PEM file) that verifies --hub-url (default: your kubeconfig''s CA)')
            [CompletionResult]::new('--image-pull-secret', '--image-pull-secret', [CompletionResultType]::ParameterName, 'A kubernetes.io/dockerconfigjson Secret in namespace open-cluster-management-hub whose registry credentials the controller pulls with and every klusterlet gets (create it first with `kubectl create secret docker-registry NAME -n open-cluster-management-hub …`)')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the YAML instead of applying it (the address comes from the flags or your kubeconfig; nothing is read from the hub)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;hub;uninstall' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--purge-crds', '--purge-crds', [CompletionResultType]::ParameterName, 'Also delete the OCM CRDs, and with them every ManagedCluster and ManifestWork')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;hub;backup' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The file to write (YAML, readable by its owner only); `-` writes to standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The file to write (YAML, readable by its owner only); `-` writes to standard output')
            [CompletionResult]::new('--recovery-hub-context', '--recovery-hub-context', [CompletionResultType]::ParameterName, 'Make this hub (a context of --recovery-hub-kubeconfig, else of the hub''s file) the fleet''s recovery hub: the backup is restored onto it as a standby, and each imported cluster''s klusterlet gets its bootstrap kubeconfig there, which it turns to once this hub has not answered for --recover-after. Run again to follow the fleet''s changes')
            [CompletionResult]::new('--recovery-hub-kubeconfig', '--recovery-hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the recovery hub')
            [CompletionResult]::new('--recover-after', '--recover-after', [CompletionResultType]::ParameterName, 'How long the hub may stay silent before the klusterlets turn to the recovery hub')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--include-work-secrets', '--include-work-secrets', [CompletionResultType]::ParameterName, 'Write ManifestWorks that carry Secrets too: their data is then in the file, as on the hub')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;hub;restore' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The file `fleetctl hub backup` wrote')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'The file `fleetctl hub backup` wrote')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;hub;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;hub;help;install' {
            break
        }
        'fleetctl;hub;help;uninstall' {
            break
        }
        'fleetctl;hub;help;backup' {
            break
        }
        'fleetctl;hub;help;restore' {
            break
        }
        'fleetctl;hub;help;help' {
            break
        }
        'fleetctl;import' {
            [CompletionResult]::new('--contexts', '--contexts', [CompletionResultType]::ParameterName, 'Import the clusters of these contexts, each named as its context (NAME=CONTEXT to name it otherwise), comma-separated')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many clusters to import at once')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label for the ManagedClusters (repeatable)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Refused: import selects no clusters (see --label)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Refused: import selects no clusters (see --label)')
            [CompletionResult]::new('--addons', '--addons', [CompletionResultType]::ParameterName, 'Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller)')
            [CompletionResult]::new('--klusterlet-mode', '--klusterlet-mode', [CompletionResultType]::ParameterName, 'How the klusterlet runs its agents: `default` (a registration and a work agent) or `singleton` (one agent doing both, upstream''s Singleton mode)')
            [CompletionResult]::new('--hosting-cluster', '--hosting-cluster', [CompletionResultType]::ParameterName, 'Run the klusterlet on another managed cluster of the hub, this one (upstream''s Hosted mode): its agents reach the cluster with a token of a ServiceAccount the import makes there (kube-system/fleetctl-hosted-klusterlet, cluster-admin), removed on detach')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--cluster-kubeconfig', '--cluster-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the clusters being imported or detached (default: the hub''s file)')
            [CompletionResult]::new('--cluster-context', '--cluster-context', [CompletionResultType]::ParameterName, 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Import the cluster of every context of --cluster-kubeconfig but the hub''s, each named as its context')
            [CompletionResult]::new('--allow-hub-as-target', '--allow-hub-as-target', [CompletionResultType]::ParameterName, 'Import a cluster whose context reaches the hub itself: a hub that manages itself, as ACM''s local-cluster')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Stop once the manifests are applied to the targets')
            [CompletionResult]::new('--print-command', '--print-command', [CompletionResultType]::ParameterName, 'Print the one-line command to run on the target instead of applying it (one NAME)')
            [CompletionResult]::new('--auto', '--auto', [CompletionResultType]::ParameterName, 'Let the hub apply the import manifests itself: write each target''s kubeconfig (its context alone) into the cluster''s auto-import-secret, which the hub deletes once it has imported the cluster')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Import even if a target is joined to another hub')
            [CompletionResult]::new('--adopt-namespace', '--adopt-namespace', [CompletionResultType]::ParameterName, 'Use the hub namespace of the cluster''s name although it exists already and was not made for this cluster; detach then keeps it and what it holds')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;upgrade' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Clusters matching this label selector (e.g. env=prod,tier!=edge)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Clusters matching this label selector (e.g. env=prod,tier!=edge)')
            [CompletionResult]::new('--placement', '--placement', [CompletionResultType]::ParameterName, 'The clusters this Placement selected (its PlacementDecisions''), in the namespace of -n')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of the Placement')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of the Placement')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The klusterlet version to run (e.g. 0.2.0)')
            [CompletionResult]::new('--canary', '--canary', [CompletionResultType]::ParameterName, 'The size of the first wave, which may not fail at all')
            [CompletionResult]::new('--wave-size', '--wave-size', [CompletionResultType]::ParameterName, 'How many clusters each wave upgrades at once: a number, or a share of the clusters (25%)')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many clusters each wave upgrades at once: a number, or a share of the clusters (25%)')
            [CompletionResult]::new('--max-failures', '--max-failures', [CompletionResultType]::ParameterName, 'How many clusters may fail before the rollout stops (the canary wave tolerates none)')
            [CompletionResult]::new('--soak', '--soak', [CompletionResultType]::ParameterName, 'How long a wave''s clusters must stay Available before the next wave starts')
            [CompletionResult]::new('--progress-deadline', '--progress-deadline', [CompletionResultType]::ParameterName, 'How long each cluster has to run the new version and be Available (default: half of --timeout with rollbacks, which get the other half; else --timeout)')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every cluster')
            [CompletionResult]::new('--no-rollback', '--no-rollback', [CompletionResultType]::ParameterName, 'Leave a cluster that failed as it is, rather than restoring its previous version')
            [CompletionResult]::new('--adopt-klusterlet', '--adopt-klusterlet', [CompletionResultType]::ParameterName, 'Take over the klusterlet a cluster joined with by itself (`clusteradm join`, upstream''s klusterlet): the hub installs fleetctl''s, whose operator retires the other and takes over its agents with their registration and what they applied. Without it such a cluster is refused: a hub never replaces a klusterlet it did not install unless told to')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Record the version and return without waiting (one wave, no rollback)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;detach' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'The clusters matching this label selector (e.g. env=staging,tier!=edge)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'The clusters matching this label selector (e.g. env=staging,tier!=edge)')
            [CompletionResult]::new('--placement', '--placement', [CompletionResultType]::ParameterName, 'The clusters this Placement selected (its PlacementDecisions''), in the namespace of -n')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of the Placement')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of the Placement')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many clusters to detach at once')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--cluster-kubeconfig', '--cluster-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the clusters being imported or detached (default: the hub''s file)')
            [CompletionResult]::new('--cluster-context', '--cluster-context', [CompletionResultType]::ParameterName, 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every cluster of the hub')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask (needed when not on a terminal)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'When the agents do not answer within --timeout, clean the hub anyway')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Start the detach and return')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;move' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'The clusters matching this label selector (e.g. env=staging,tier!=edge)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'The clusters matching this label selector (e.g. env=staging,tier!=edge)')
            [CompletionResult]::new('--to-hub-kubeconfig', '--to-hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub the clusters move to (default: the hub''s file)')
            [CompletionResult]::new('--to-hub-context', '--to-hub-context', [CompletionResultType]::ParameterName, 'Context of the hub the clusters move to')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many clusters to move at once')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every cluster of the hub')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;plan' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--prune', '--prune', [CompletionResultType]::ParameterName, 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;apply' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Write the JSON report of what was done to this file too (also on failure)')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'How many clusters to import or detach at once')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing')
            [CompletionResult]::new('--prune', '--prune', [CompletionResultType]::ParameterName, 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before detaching (needed with --prune when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before detaching (needed with --prune when not on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fleetctl;get' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count')
            [CompletionResult]::new('mcl', 'mcl', [CompletionResultType]::ParameterValue, 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count')
            [CompletionResult]::new('addons', 'addons', [CompletionResultType]::ParameterValue, 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why')
            [CompletionResult]::new('mca', 'mca', [CompletionResultType]::ParameterValue, 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why')
            [CompletionResult]::new('clustersets', 'clustersets', [CompletionResultType]::ParameterValue, 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into')
            [CompletionResult]::new('mclset', 'mclset', [CompletionResultType]::ParameterValue, 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into')
            [CompletionResult]::new('placements', 'placements', [CompletionResultType]::ParameterValue, 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;get;clusters' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;mcl' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;addons' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only addons whose labels match this selector')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only addons whose labels match this selector')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;mca' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only addons whose labels match this selector')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only addons whose labels match this selector')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;clustersets' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;mclset' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;placements' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of the Placements')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of the Placements')
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'The Placements of every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'The Placements of every namespace')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'After the list, print each change as it happens (until interrupted, or --timeout)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;get;help' {
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count')
            [CompletionResult]::new('addons', 'addons', [CompletionResultType]::ParameterValue, 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why')
            [CompletionResult]::new('clustersets', 'clustersets', [CompletionResultType]::ParameterValue, 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into')
            [CompletionResult]::new('placements', 'placements', [CompletionResultType]::ParameterValue, 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;get;help;clusters' {
            break
        }
        'fleetctl;get;help;addons' {
            break
        }
        'fleetctl;get;help;clustersets' {
            break
        }
        'fleetctl;get;help;placements' {
            break
        }
        'fleetctl;get;help;help' {
            break
        }
        'fleetctl;describe' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--cluster-kubeconfig', '--cluster-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the managed cluster (default: the hub''s file)')
            [CompletionResult]::new('--cluster-context', '--cluster-context', [CompletionResultType]::ParameterName, 'Context of the managed cluster in that kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('cluster', 'cluster', [CompletionResultType]::ParameterValue, 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach')
            [CompletionResult]::new('mcl', 'mcl', [CompletionResultType]::ParameterValue, 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;describe;cluster' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--cluster-kubeconfig', '--cluster-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the managed cluster (default: the hub''s file)')
            [CompletionResult]::new('--cluster-context', '--cluster-context', [CompletionResultType]::ParameterName, 'Context of the managed cluster in that kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;describe;mcl' {
            [CompletionResult]::new('--hub-kubeconfig', '--hub-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)')
            [CompletionResult]::new('--hub-context', '--hub-context', [CompletionResultType]::ParameterName, 'Context of the hub in its kubeconfig')
            [CompletionResult]::new('--cluster-kubeconfig', '--cluster-kubeconfig', [CompletionResultType]::ParameterName, 'Kubeconfig of the managed cluster (default: the hub''s file)')
            [CompletionResult]::new('--cluster-context', '--cluster-context', [CompletionResultType]::ParameterName, 'Context of the managed cluster in that kubeconfig')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;describe;help' {
            [CompletionResult]::new('cluster', 'cluster', [CompletionResultType]::ParameterValue, 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;describe;help;cluster' {
            break
        }
        'fleetctl;describe;help;help' {
            break
        }
        'fleetctl;completion' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;version' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl''s, e.g. ''{.items[*].metadata.name}'') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Print tables without their header line (table, wide, custom-columns)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors: no notes, no progress, only error logs')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log more (repeat for more detail); logs go to stderr')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colours (also NO_COLOR)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'fleetctl;help' {
            [CompletionResult]::new('dev', 'dev', [CompletionResultType]::ParameterValue, 'The embedded dev cluster')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Run the three acts on an embedded dev environment, telling the story as it goes')
            [CompletionResult]::new('hub', 'hub', [CompletionResultType]::ParameterValue, 'Install or remove the hub')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import a cluster into the hub (Act I)')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Upgrade the klusterlet of clusters (Act II)')
            [CompletionResult]::new('detach', 'detach', [CompletionResultType]::ParameterValue, 'Detach a cluster from the hub (Act III)')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move clusters to another hub, their workloads untouched')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Show what `apply` would change to make the hub match a fleet file; changes nothing')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Show everything the hub knows about one cluster')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the CLI''s version and the image it deploys by default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fleetctl;help;dev' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run one Kubernetes-API-compatible server in the foreground until interrupted')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment''s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the dev environment (its clusters and everything they run)')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the dev environment''s clusters: URL, pid, ready')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Print a cluster''s log, or the log of one of its Deployments')
            break
        }
        'fleetctl;help;dev;serve' {
            break
        }
        'fleetctl;help;dev;up' {
            break
        }
        'fleetctl;help;dev;fleet' {
            break
        }
        'fleetctl;help;dev;down' {
            break
        }
        'fleetctl;help;dev;restart' {
            break
        }
        'fleetctl;help;dev;status' {
            break
        }
        'fleetctl;help;dev;logs' {
            break
        }
        'fleetctl;help;demo' {
            break
        }
        'fleetctl;help;hub' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Write the hub''s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again')
            break
        }
        'fleetctl;help;hub;install' {
            break
        }
        'fleetctl;help;hub;uninstall' {
            break
        }
        'fleetctl;help;hub;backup' {
            break
        }
        'fleetctl;help;hub;restore' {
            break
        }
        'fleetctl;help;import' {
            break
        }
        'fleetctl;help;upgrade' {
            break
        }
        'fleetctl;help;detach' {
            break
        }
        'fleetctl;help;move' {
            break
        }
        'fleetctl;help;plan' {
            break
        }
        'fleetctl;help;apply' {
            break
        }
        'fleetctl;help;get' {
            [CompletionResult]::new('clusters', 'clusters', [CompletionResultType]::ParameterValue, 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector''s object count')
            [CompletionResult]::new('addons', 'addons', [CompletionResultType]::ParameterValue, 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why')
            [CompletionResult]::new('clustersets', 'clustersets', [CompletionResultType]::ParameterValue, 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into')
            [CompletionResult]::new('placements', 'placements', [CompletionResultType]::ParameterValue, 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured')
            break
        }
        'fleetctl;help;get;clusters' {
            break
        }
        'fleetctl;help;get;addons' {
            break
        }
        'fleetctl;help;get;clustersets' {
            break
        }
        'fleetctl;help;get;placements' {
            break
        }
        'fleetctl;help;describe' {
            [CompletionResult]::new('cluster', 'cluster', [CompletionResultType]::ParameterValue, 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach')
            break
        }
        'fleetctl;help;describe;cluster' {
            break
        }
        'fleetctl;help;completion' {
            break
        }
        'fleetctl;help;version' {
            break
        }
        'fleetctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
