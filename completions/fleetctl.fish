# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_fleetctl_global_optspecs
    string join \n q/quiet v/verbose no-color h/help V/version
end

function __fish_fleetctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_fleetctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_fleetctl_using_subcommand
    set -l cmd (__fish_fleetctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c fleetctl -n "__fish_fleetctl_needs_command" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -s V -l version -d 'Print version'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "dev" -d 'The embedded dev cluster'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "demo" -d 'Run the three acts on an embedded dev environment, telling the story as it goes'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "hub" -d 'Install or remove the hub'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "import" -d 'Import a cluster into the hub (Act I)'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "upgrade" -d 'Upgrade the klusterlet of clusters (Act II)'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "detach" -d 'Detach a cluster from the hub (Act III)'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "move" -d 'Move clusters to another hub, their workloads untouched'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "plan" -d 'Show what `apply` would change to make the hub match a fleet file; changes nothing'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "apply" -d 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "get" -d 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "describe" -d 'Show everything the hub knows about one cluster'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "version" -d 'Print the CLI\'s version and the image it deploys by default'
complete -c fleetctl -n "__fish_fleetctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "serve" -d 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "up" -d 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "fleet" -d 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment\'s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "down" -d 'Stop the dev environment (its clusters and everything they run)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "restart" -d 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "status" -d 'Show the dev environment\'s clusters: URL, pid, ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "logs" -d 'Print a cluster\'s log, or the log of one of its Deployments'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and not __fish_seen_subcommand_from serve up fleet down restart status logs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l kubeconfig -d 'Where to write the kubeconfig (written once the server is ready, mode 0600)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l name -d 'Name of the cluster, user and context in the kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l port -d 'Port on 127.0.0.1 (0: any free port)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l store -d 'Keep objects in this directory, each write on disk before it is acknowledged, and resume from it on the next start (default: in memory only, gone on exit)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l node-dir -d 'The simulator\'s directory for container logs (logs/<name>/) and Pod kubeconfigs (pods/<name>/) (default: the kubeconfig\'s directory)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l node-mode -d 'How the simulator runs fleetctl containers' -r -f -a "process\t'A process of the in-cluster executable (`fleetctld`, beside `fleetctl`) per container; where it is missing (`cargo run` builds only `fleetctl`), in process'
in-process\t'A task of the cluster process per container (for scale runs)'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l rotate-ca -d 'Take a step of rotating the CA kept in --store before serving, in the order of Kubernetes\' manual CA rotation: trust (a new CA signs and is trusted beside the old one, which still serves), serve (the new one serves), retire (the old one is no longer trusted)' -r -f -a "trust\t'A new CA signs and is trusted beside the old one, which still serves'
serve\t'The new CA serves'
retire\t'The old CA is no longer trusted'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l node-simulator -d 'Run the node simulator: Deployments of the fleetctl image run as processes, others are reported running, and their status and Pods are kept true'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l podman -d 'Run images that exist in local podman storage as podman containers (options for every podman call from FLEETCTL_PODMAN_OPTIONS, e.g. `--storage-driver vfs`)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l clusters -d 'How many managed clusters' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l image -d 'The fleetctl image the hub controller Deployment names' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l ready-timeout -d 'How long the hub controller may take to become Available' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l bare-hub -d 'Start the hub bare: a plain Kubernetes API, as `kind create cluster` gives, with nothing of fleetctl installed (no CRDs, no hub controller, no namespaces of its own), for another hub (OCM\'s `clusteradm init`) or a later `fleetctl hub install --hub-context hub`. The managed clusters come up as usual'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l durable -d 'Keep each cluster\'s objects on disk, so the next `dev up` resumes them'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l in-process -d 'Run controllers and agents as tasks of the cluster processes (for scale runs)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l podman -d 'Run the image as podman containers where it is in local podman storage (build it with .ci/image; options for every podman call from FLEETCTL_PODMAN_OPTIONS)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from up" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -l clusters -d 'How many simulated clusters' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -l parallel -d 'How many imports run at once' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -l timeout -d 'How long importing the whole fleet may take' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from fleet" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -l grace -d 'How long the clusters have to stop before they are killed' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from down" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -l rotate-ca -d 'The CA rotation step to take (see `dev serve --rotate-ca`)' -r -f -a "trust\t'A new CA signs and is trusted beside the old one, which still serves'
serve\t'The new CA serves'
retire\t'The old CA is no longer trusted'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -l grace -d 'How long the cluster has to stop before it is killed' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from status" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from status" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from logs" -l dir -d 'The environment\'s directory (default: $XDG_STATE_HOME/fleetctl/dev, else ~/.local/state/fleetctl/dev)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from logs" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from logs" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from logs" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from logs" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "up" -d 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "fleet" -d 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment\'s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "down" -d 'Stop the dev environment (its clusters and everything they run)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "restart" -d 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the dev environment\'s clusters: URL, pid, ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "logs" -d 'Print a cluster\'s log, or the log of one of its Deployments'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand dev; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand demo" -l keep -d 'Leave the dev environment running afterwards (and say where it is)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand demo" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand demo" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand demo" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand demo" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -f -a "install" -d 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -f -a "uninstall" -d 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -f -a "backup" -d 'Write the hub\'s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -f -a "restore" -d 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and not __fish_seen_subcommand_from install uninstall backup restore help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l image -d 'The fleetctl image the hub controller runs; the clusters it imports run the same repository (default: quay.io/fleetctl/fleetctl at this version)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l image-registry -d 'A registry mirror for every image the hub deploys (the default image\'s registry replaced, as ACM\'s KlusterletConfig registries do), e.g. registry.example.com:5000' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l hub-url -d 'The hub\'s API server URL as managed clusters reach it (default: the server of kube-public/cluster-info where the hub publishes one, else your kubeconfig\'s)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l hub-ca-file -d 'The CA bundle (PEM file) that verifies --hub-url (default: your kubeconfig\'s CA)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l image-pull-secret -d 'A kubernetes.io/dockerconfigjson Secret in namespace open-cluster-management-hub whose registry credentials the controller pulls with and every klusterlet gets (create it first with `kubectl create secret docker-registry NAME -n open-cluster-management-hub …`)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l dry-run -d 'Print the YAML instead of applying it (the address comes from the flags or your kubeconfig; nothing is read from the hub)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -l purge-crds -d 'Also delete the OCM CRDs, and with them every ManagedCluster and ManifestWork'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -s o -l output -d 'The file to write (YAML, readable by its owner only); `-` writes to standard output' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l recovery-hub-context -d 'Make this hub (a context of --recovery-hub-kubeconfig, else of the hub\'s file) the fleet\'s recovery hub: the backup is restored onto it as a standby, and each imported cluster\'s klusterlet gets its bootstrap kubeconfig there, which it turns to once this hub has not answered for --recover-after. Run again to follow the fleet\'s changes' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l recovery-hub-kubeconfig -d 'Kubeconfig of the recovery hub' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l recover-after -d 'How long the hub may stay silent before the klusterlets turn to the recovery hub' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l include-work-secrets -d 'Write ManifestWorks that carry Secrets too: their data is then in the file, as on the hub'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from backup" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -s f -l filename -d 'The file `fleetctl hub backup` wrote' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from restore" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "install" -d 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "backup" -d 'Write the hub\'s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "restore" -d 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l contexts -d 'Import the clusters of these contexts, each named as its context (NAME=CONTEXT to name it otherwise), comma-separated' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l parallel -d 'How many clusters to import at once' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l label -d 'A label for the ManagedClusters (repeatable)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -s l -l selector -d 'Refused: import selects no clusters (see --label)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l addons -d 'Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l klusterlet-mode -d 'How the klusterlet runs its agents: `default` (a registration and a work agent) or `singleton` (one agent doing both, upstream\'s Singleton mode)' -r -f -a "default\t'A registration agent and a work agent'
singleton\t'One agent doing both'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l hosting-cluster -d 'Run the klusterlet on another managed cluster of the hub, this one (upstream\'s Hosted mode): its agents reach the cluster with a token of a ServiceAccount the import makes there (kube-system/fleetctl-hosted-klusterlet, cluster-admin), removed on detach' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l cluster-kubeconfig -d 'Kubeconfig of the clusters being imported or detached (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l cluster-context -d 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l dry-run -d 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing' -r -f -a "server\t'Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted and defaulted, not stored'
client\t'Nothing is sent: the writes are only said'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l all-contexts -d 'Import the cluster of every context of --cluster-kubeconfig but the hub\'s, each named as its context'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l allow-hub-as-target -d 'Import a cluster whose context reaches the hub itself: a hub that manages itself, as ACM\'s local-cluster'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l no-wait -d 'Stop once the manifests are applied to the targets'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l print-command -d 'Print the one-line command to run on the target instead of applying it (one NAME)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l auto -d 'Let the hub apply the import manifests itself: write each target\'s kubeconfig (its context alone) into the cluster\'s auto-import-secret, which the hub deletes once it has imported the cluster'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l force -d 'Import even if a target is joined to another hub'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l adopt-namespace -d 'Use the hub namespace of the cluster\'s name although it exists already and was not made for this cluster; detach then keeps it and what it holds'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s l -l selector -d 'Clusters matching this label selector (e.g. env=prod,tier!=edge)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l placement -d 'The clusters this Placement selected (its PlacementDecisions\'), in the namespace of -n' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s n -l namespace -d 'The namespace of the Placement' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l to -d 'The klusterlet version to run (e.g. 0.2.0)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l canary -d 'The size of the first wave, which may not fail at all' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l wave-size -l parallel -d 'How many clusters each wave upgrades at once: a number, or a share of the clusters (25%)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l max-failures -d 'How many clusters may fail before the rollout stops (the canary wave tolerates none)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l soak -d 'How long a wave\'s clusters must stay Available before the next wave starts' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l progress-deadline -d 'How long each cluster has to run the new version and be Available (default: half of --timeout with rollbacks, which get the other half; else --timeout)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l dry-run -d 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing' -r -f -a "server\t'Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted and defaulted, not stored'
client\t'Nothing is sent: the writes are only said'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l all -d 'Every cluster'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l no-rollback -d 'Leave a cluster that failed as it is, rather than restoring its previous version'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l adopt-klusterlet -d 'Take over the klusterlet a cluster joined with by itself (`clusteradm join`, upstream\'s klusterlet): the hub installs fleetctl\'s, whose operator retires the other and takes over its agents with their registration and what they applied. Without it such a cluster is refused: a hub never replaces a klusterlet it did not install unless told to'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l no-wait -d 'Record the version and return without waiting (one wave, no rollback)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand upgrade" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s l -l selector -d 'The clusters matching this label selector (e.g. env=staging,tier!=edge)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l placement -d 'The clusters this Placement selected (its PlacementDecisions\'), in the namespace of -n' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s n -l namespace -d 'The namespace of the Placement' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l parallel -d 'How many clusters to detach at once' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l cluster-kubeconfig -d 'Kubeconfig of the clusters being imported or detached (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l cluster-context -d 'Context of the cluster (default: the context named like the cluster); with several NAMEs, once for each, in their order' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l dry-run -d 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing' -r -f -a "server\t'Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted and defaulted, not stored'
client\t'Nothing is sent: the writes are only said'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l all -d 'Every cluster of the hub'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s y -l yes -d 'Do not ask (needed when not on a terminal)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l force -d 'When the agents do not answer within --timeout, clean the hub anyway'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l no-wait -d 'Start the detach and return'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand detach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -s l -l selector -d 'The clusters matching this label selector (e.g. env=staging,tier!=edge)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l to-hub-kubeconfig -d 'Kubeconfig of the hub the clusters move to (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l to-hub-context -d 'Context of the hub the clusters move to' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l parallel -d 'How many clusters to move at once' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l dry-run -d 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing' -r -f -a "server\t'Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted and defaulted, not stored'
client\t'Nothing is sent: the writes are only said'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l all -d 'Every cluster of the hub'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand move" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -s f -l file -d 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l prune -d 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand plan" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s f -l file -d 'The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l report -d 'Write the JSON report of what was done to this file too (also on failure)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l parallel -d 'How many clusters to import or detach at once' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l timeout -d 'How long the whole command may take, connecting included (e.g. 90s, 5m); what is not done by then ends with exit 3, and running the command again finishes it' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l dry-run -d 'Print the writes the command would make and make none: `server` (the default) has the API server check each one (`dryRun=All`), `client` sends nothing' -r -f -a "server\t'Each write goes to the API server as a dry run (`dryRun=All`): validated, admitted and defaulted, not stored'
client\t'Nothing is sent: the writes are only said'"
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l prune -d 'Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply` imported them) that the file no longer lists; nothing else is touched'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s y -l yes -d 'Do not ask before detaching (needed with --prune when not on a terminal)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "clusters" -d 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector\'s object count'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "mcl" -d 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector\'s object count'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "addons" -d 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "mca" -d 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "clustersets" -d 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "mclset" -d 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "placements" -d 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and not __fish_seen_subcommand_from clusters mcl addons mca clustersets mclset placements help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s l -l selector -d 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clusters" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s l -l selector -d 'Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mcl" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s l -l selector -d 'Only addons whose labels match this selector' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from addons" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s l -l selector -d 'Only addons whose labels match this selector' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mca" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from clustersets" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from mclset" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s n -l namespace -d 'The namespace of the Placements' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s A -l all-namespaces -d 'The Placements of every namespace'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s w -l watch -d 'After the list, print each change as it happens (until interrupted, or --timeout)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from placements" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from help" -f -a "clusters" -d 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector\'s object count'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from help" -f -a "addons" -d 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from help" -f -a "clustersets" -d 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from help" -f -a "placements" -d 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand get; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l cluster-kubeconfig -d 'Kubeconfig of the managed cluster (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l cluster-context -d 'Context of the managed cluster in that kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -f -a "cluster" -d 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -f -a "mcl" -d 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and not __fish_seen_subcommand_from cluster mcl help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l cluster-kubeconfig -d 'Kubeconfig of the managed cluster (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l cluster-context -d 'Context of the managed cluster in that kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from cluster" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l hub-kubeconfig -d 'Kubeconfig of the hub (else FLEETCTL_HUB_KUBECONFIG, KUBECONFIG, ~/.kube/config)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l hub-context -d 'Context of the hub in its kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l cluster-kubeconfig -d 'Kubeconfig of the managed cluster (default: the hub\'s file)' -r -F
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l cluster-context -d 'Context of the managed cluster in that kubeconfig' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l timeout -d 'How long the whole command may take, connecting included (e.g. 10s, 1m; default 30s, and for `get -w` until interrupted); a hub that has not answered by then ends it with exit 4 (nothing was read), a read that has not finished with exit 3' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from mcl" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from help" -f -a "cluster" -d 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand describe; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand completion" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand completion" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand completion" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand completion" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (kubectl\'s, e.g. \'{.items[*].metadata.name}\') or custom-columns=HEADER:PATH,… (e.g. NAME:.metadata.name,JOINED:.status.conditions[?(@.type=="ManagedClusterJoined")].status)' -r
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -l no-headers -d 'Print tables without their header line (table, wide, custom-columns)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -s q -l quiet -d 'Print only errors: no notes, no progress, only error logs'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -s v -l verbose -d 'Log more (repeat for more detail); logs go to stderr'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -l no-color -d 'No colours (also NO_COLOR)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand version" -s h -l help -d 'Print help'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "dev" -d 'The embedded dev cluster'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "demo" -d 'Run the three acts on an embedded dev environment, telling the story as it goes'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "hub" -d 'Install or remove the hub'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "import" -d 'Import a cluster into the hub (Act I)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "upgrade" -d 'Upgrade the klusterlet of clusters (Act II)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "detach" -d 'Detach a cluster from the hub (Act III)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "move" -d 'Move clusters to another hub, their workloads untouched'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "plan" -d 'Show what `apply` would change to make the hub match a fleet file; changes nothing'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "apply" -d 'Make the hub match a fleet file: import, relabel, set addons, upgrade, and with --prune detach the clusters it no longer lists'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "get" -d 'Show managed clusters or addons (a table, or -o wide|json|yaml|name)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "describe" -d 'Show everything the hub knows about one cluster'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "completion" -d 'Print a shell completion script'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "version" -d 'Print the CLI\'s version and the image it deploys by default'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and not __fish_seen_subcommand_from dev demo hub import upgrade detach move plan apply get describe completion version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "serve" -d 'Run one Kubernetes-API-compatible server in the foreground until interrupted'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "up" -d 'Start a hub (with the hub controller installed, or bare with --bare-hub) and managed clusters cluster1…N in the background, each a `dev serve` process; return once all are ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "fleet" -d 'Simulate managed clusters sim-00001…N in this process and import them into the running dev environment\'s hub (label simulated=true), until interrupted: each has an API of its own and runs the real klusterlet, which reaches the hub over HTTPS with a certificate of its own. Detach them before stopping (`fleetctl detach -l simulated=true --yes`), or the hub sees them go Unknown'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "down" -d 'Stop the dev environment (its clusters and everything they run)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "restart" -d 'Restart one cluster of a durable environment (`up --durable`) on its store and port, with what it runs; optionally take a step of rotating its CA while it is stopped'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "status" -d 'Show the dev environment\'s clusters: URL, pid, ready'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from dev" -f -a "logs" -d 'Print a cluster\'s log, or the log of one of its Deployments'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "install" -d 'Install (or update) the hub: CRDs, RBAC and the hub controller, and wait until the controller is Available. Idempotent'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "uninstall" -d 'Remove the hub controller, its RBAC and namespace (the CRDs and clusters stay unless --purge-crds)'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "backup" -d 'Write the hub\'s fleet to a file: clusters, cluster sets, placements, addon settings, works, desired versions — no Secret of the hub, no key or token'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "restore" -d 'Apply a backup to this hub: its clusters, cluster sets, placements, addon settings and works (a rerun changes nothing); the clusters are imported again'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from get" -f -a "clusters" -d 'List managed clusters: accepted by the hub, joined, available, klusterlet version (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory, addons (available/total) and the search collector\'s object count'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from get" -f -a "addons" -d 'List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from get" -f -a "clustersets" -d 'List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide` adds how it selects them and the namespaces it is bound into'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from get" -f -a "placements" -d 'List Placements: whether each is satisfied, why, and how many clusters it selected; `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured'
complete -c fleetctl -n "__fish_fleetctl_using_subcommand help; and __fish_seen_subcommand_from describe" -f -a "cluster" -d 'Describe one managed cluster: conditions, lease, works, addons, recent Events and the timeline of its import, upgrades and detach'
