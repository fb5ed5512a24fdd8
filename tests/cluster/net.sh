# net.sh -- the cluster test's network (tests/cluster/run.sh): one bridge in the root namespace
# (address .1: nginx, PostgreSQL, Redis, as a database-and-proxy machine) and one network
# namespace per handler host, each on a veth pair into the bridge (.11, .12, ...). Names and
# the /24 are chosen free for this run, and everything is removed by net_down. Sourced; needs
# root and iproute2.
# shellcheck shell=bash

NET_BRIDGE=""
NET_PREFIX=""        # "10.231.N" of this run's 10.231.N.0/24
NET_GATEWAY=""       # the bridge's address (.1)
NET_NAMESPACES=()    # in host order: host 1 is NET_NAMESPACES[0]
NET_HOST_ADDRS=()    # their addresses, same order
NET_VETHS=()

net_say() { printf 'cluster: %s\n' "$*" >&2; }

# net_up N: the bridge and N namespaces, each reachable from the root namespace and back.
net_up() {
    local n=$1 i tag ns veth tries
    command -v ip >/dev/null || stack_die "ip (iproute2) is missing (tools/stack/deps.sh)"
    tag=$(printf '%04x' $((RANDOM % 65536)))
    # A /24 no interface of this machine uses yet.
    for ((tries = 0; tries < 50; tries++)); do
        NET_PREFIX=10.231.$((20 + RANDOM % 200))
        ip -o -4 addr show | grep -q " ${NET_PREFIX//./\\.}\." || break
        NET_PREFIX=""
    done
    [[ -n $NET_PREFIX ]] || stack_die "found no free 10.231.N.0/24 for the cluster network"
    NET_GATEWAY=$NET_PREFIX.1
    NET_BRIDGE=pouchbr$tag
    ip link add "$NET_BRIDGE" type bridge
    ip addr add "$NET_GATEWAY/24" dev "$NET_BRIDGE"
    ip link set "$NET_BRIDGE" up
    for ((i = 1; i <= n; i++)); do
        ns=pouch-h$i-$tag
        veth=pv$tag$i
        ip netns add "$ns"
        NET_NAMESPACES+=("$ns")
        ip link add "$veth" type veth peer name "${veth}p"
        NET_VETHS+=("$veth")
        ip link set "${veth}p" netns "$ns"
        ip link set "$veth" master "$NET_BRIDGE"
        ip link set "$veth" up
        ip -n "$ns" addr add "$NET_PREFIX.$((10 + i))/24" dev "${veth}p"
        ip -n "$ns" link set "${veth}p" up
        ip -n "$ns" link set lo up
        NET_HOST_ADDRS+=("$NET_PREFIX.$((10 + i))")
    done
    net_say "network $NET_PREFIX.0/24: bridge $NET_BRIDGE ($NET_GATEWAY), hosts ${NET_HOST_ADDRS[*]} in ${NET_NAMESPACES[*]}"
}

# net_pids NAMESPACE: the processes living in it.
net_pids() { ip netns pids "$1" 2>/dev/null || true; }

# net_kill_all NAMESPACE SIGNAL: sends SIGNAL to every process of the namespace (a host's
# power cut, for SIGKILL); waits up to 5 s until none is left.
net_kill_all() {
    local ns=$1 sig=$2 pids i
    for ((i = 0; i < 50; i++)); do
        pids=$(net_pids "$ns")
        [[ -z $pids ]] && return 0
        # shellcheck disable=SC2086  # one pid per word
        kill "-$sig" $pids 2>/dev/null || true
        sleep 0.1
    done
    [[ -z $(net_pids "$ns") ]]
}

# net_down: every namespace (after killing what still runs in it), veth and the bridge.
net_down() {
    local ns
    for ns in "${NET_NAMESPACES[@]}"; do
        net_kill_all "$ns" TERM || net_kill_all "$ns" KILL || true
        ip netns del "$ns" 2>/dev/null || true
    done
    NET_NAMESPACES=()
    if [[ -n $NET_BRIDGE ]]; then
        ip link del "$NET_BRIDGE" 2>/dev/null || true
        NET_BRIDGE=""
    fi
}
