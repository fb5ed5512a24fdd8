#!/usr/bin/env bash
# ceph.sh -- a single-host Ceph with its S3 gateway for the tests and the bench (issue 27): one
# mon, one OSD (bluestore on a sparse file), one radosgw, no mgr, no containers, no systemd;
# every file under DIR, every daemon on loopback (radosgw also on the addresses given).
#   ceph.sh start DIR [PORT]   brings it up (radosgw on PORT, else a free one), makes an S3 user
#                              with generated keys and one bucket, checks a PUT/GET, and writes
#                              DIR/s3.env (POUCH_BLOB_STORE, POUCH_S3_ENDPOINT, POUCH_S3_REGION,
#                              POUCH_S3_ACCESS_KEY, POUCH_S3_SECRET_KEY)
#   ceph.sh stop DIR           stops every daemon of DIR (nothing of it is left running)
#   ceph.sh kill-rgw DIR       kill -9 of radosgw (fault tests)
#   ceph.sh start-rgw DIR      starts radosgw again and waits until it answers
#   ceph.sh status DIR         exit 0 when radosgw answers; prints which daemons run
# Environment (start):
#   POUCH_CEPH_RGW_ADDRS  radosgw's listen addresses (default 127.0.0.1); s3.env names the first
#   POUCH_CEPH_MON_PORT   the mon's port (default: a free one)
#   POUCH_CEPH_BUCKET     the bucket (default pouch-blobs)
#   POUCH_CEPH_STORE      bluestore (default) or memstore
# Run as root, the daemons drop to Debian's `ceph` user (--setuser/--setgroup), which must be
# able to reach DIR: radosgw parses HTTP from the network and nothing needs root once the files
# are in place (Debian's own units run them so too).
# Bluestore rather than memstore: 6-8 s from nothing to the self-check instead of 2 s (2 cores,
# busy), but the objects live in a sparse file, not in the OSD's memory (a bench run writes 1.5 GiB),
# they survive an OSD restart, and writes take the path production's take (direct I/O, fsync).
# Relies on ceph-mon, ceph-osd, radosgw, ceph-common (tools/stack/deps.sh),
# curl 7.75+ (--aws-sigv4) and tools/stack/lib.sh for free ports.
set -euo pipefail
# shellcheck source=tools/stack/lib.sh
source "$(dirname "$0")/lib.sh"

CEPH_REGION=default # RGW's default zonegroup; SigV4 scopes name it

ceph_say() { printf 'ceph: %s\n' "$*" >&2; }
ceph_die() {
    printf 'ceph: error: %s\n' "$*" >&2
    exit 1
}

# ceph_paths DIR: absolute paths of one stack.
ceph_paths() {
    mkdir -p "$1"
    CEPH_DIR=$(cd "$1" && pwd)
    CEPH_CONF=$CEPH_DIR/ceph.conf
    CEPH_KEYRING=$CEPH_DIR/keyring
    CEPH_STATE=$CEPH_DIR/ceph.state
    CEPH_RUN=$CEPH_DIR/run
    CEPH_LOG=$CEPH_DIR/log
    export CEPH_CONF
}

ceph_cli() { ceph -c "$CEPH_CONF" --connect-timeout 10 "$@"; }
ceph_pid() { cat "$CEPH_RUN/$1.pid" 2>/dev/null || true; }

# ceph_alive NAME: the daemon of that pid file runs, and is one of ours (its command line
# names our ceph.conf: a pid reused by another process does not count).
ceph_alive() {
    local pid
    pid=$(ceph_pid "$1")
    stack_running "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CEPH_CONF"
}

# The daemons drop to the `ceph` user when we are root, as Debian's units run them: radosgw
# parses HTTP from the network, and nothing here needs root once the files are in place.
ceph_user_args() {
    CEPH_SETUSER=()
    if ((EUID == 0)); then
        id -u ceph >/dev/null 2>&1 || ceph_die "user ceph is missing (the ceph-common package makes it)"
        CEPH_SETUSER=(--setuser ceph --setgroup ceph)
    fi
}

# ceph_s3 METHOD PATH [CURL ARGS...]: curl of radosgw signed with the stack's S3 keys (SigV4 by curl).
# curl 7.88 does not send x-amz-content-sha256, which RGW requires: UNSIGNED-PAYLOAD.
ceph_s3() {
    local method=$1 path=$2
    shift 2
    curl -sS --max-time 30 -X "$method" --aws-sigv4 "aws:amz:$CEPH_REGION:s3" \
        --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
        "$@" "http://$CEPH_RGW_HOST:$CEPH_RGW_PORT$path"
}

ceph_rgw_answers() { curl -s -o /dev/null --max-time 2 "http://$CEPH_RGW_HOST:$CEPH_RGW_PORT/"; }

# ceph_wait TENTHS WHAT CMD...: polls CMD until it succeeds.
ceph_wait() {
    local tenths=$1 what=$2 i
    shift 2
    for ((i = 0; i < tenths; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    ceph_die "$what did not happen within $((tenths / 10)) s (logs: $CEPH_LOG)"
}

ceph_write_conf() {
    local store=$1 endpoints="" addr
    for addr in $CEPH_RGW_ADDRS; do endpoints+=" endpoint=$addr:$CEPH_RGW_PORT"; done
    # Admin sockets are Unix sockets (sun_path < 108 bytes); a deep DIR goes without them.
    local asok="$CEPH_RUN/\$name.asok"
    ((${#CEPH_RUN} + 24 < 108)) || asok=""
    cat >"$CEPH_CONF" <<EOF
# Written by tools/stack/ceph.sh: one mon, one OSD, one radosgw, all on loopback.
[global]
fsid = $CEPH_FSID
mon host = [v2:127.0.0.1:$CEPH_MON_PORT]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
run dir = $CEPH_RUN
pid file = $CEPH_RUN/\$name.pid
admin socket = $asok
crash dir = $CEPH_DIR/crash
log file = $CEPH_LOG/\$name.log
keyring = $CEPH_KEYRING
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
# One OSD: pools of size 1, placement over OSDs rather than hosts, few PGs, no autoscaler.
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon warn on pool no redundancy = false
mon allow pool delete = true
# The mon commits map changes every paxos propose interval (1 s by default); radosgw's pools
# are a dozen of them at bring-up.
paxos propose interval = 0.05
mon osd full ratio = 0.97
mon osd nearfull ratio = 0.95

[mon]
mon data = $CEPH_DIR/mon/\$cluster-\$id

[osd]
osd data = $CEPH_DIR/osd/\$cluster-\$id
osd objectstore = $store
# mkfs makes a "block" symlink inside the data directory: the file itself must live outside.
bluestore block path = $CEPH_DIR/osd-\$id.block
bluestore block create = true
bluestore block size = 10737418240
bluestore block db create = false
bluestore block wal create = false
osd memory target = 1073741824
osd max object size = 134217728

[client.rgw.a]
rgw data = $CEPH_DIR/rgw
rgw frontends = beast$endpoints
rgw dns name =
rgw enable usage log = false
rgw thread pool size = 64
EOF
}

ceph_write_state() {
    cat >"$CEPH_STATE" <<EOF
CEPH_MON_PORT=$CEPH_MON_PORT
CEPH_RGW_PORT=$CEPH_RGW_PORT
CEPH_RGW_ADDRS="$CEPH_RGW_ADDRS"
CEPH_RGW_HOST=$CEPH_RGW_HOST
CEPH_BUCKET=$CEPH_BUCKET
CEPH_STORE=$CEPH_STORE
S3_ACCESS_KEY=$S3_ACCESS_KEY
S3_SECRET_KEY=$S3_SECRET_KEY
EOF
    chmod 600 "$CEPH_STATE"
}

ceph_load_state() {
    [[ -f $CEPH_STATE ]] || ceph_die "$CEPH_DIR has no Ceph of ceph.sh (no ceph.state)"
    # shellcheck source=/dev/null
    source "$CEPH_STATE"
}

ceph_start_rgw() {
    ceph_user_args
    ceph_alive client.rgw.a && ceph_die "radosgw of $CEPH_DIR already runs"
    rm -f "$CEPH_RUN/client.rgw.a.pid"
    radosgw -c "$CEPH_CONF" -n client.rgw.a "${CEPH_SETUSER[@]}" 2>>"$CEPH_LOG/daemons.err"
    ceph_wait 600 "radosgw answering on $CEPH_RGW_HOST:$CEPH_RGW_PORT" ceph_rgw_answers
}

ceph_start() {
    local port=${1:-} started=$SECONDS t0 osd_uuid osd_id addr
    for cmd in ceph-mon ceph-osd radosgw radosgw-admin ceph-authtool monmaptool ceph; do
        command -v "$cmd" >/dev/null || ceph_die "$cmd is missing (tools/stack/deps.sh installs ceph-mon ceph-osd radosgw ceph-common)"
    done
    if [[ -f $CEPH_STATE ]]; then
        ceph_load_state
        ceph_alive mon.a && ceph_die "a Ceph of $CEPH_DIR already runs (ceph.sh stop $CEPH_DIR)"
    fi
    ceph_user_args
    if ((EUID == 0)) && ! setpriv --reuid=ceph --regid=ceph --init-groups test -x "$CEPH_DIR"; then
        ceph_die "user ceph cannot reach $CEPH_DIR (the daemons drop to it); pick a directory it can traverse"
    fi
    CEPH_STORE=${POUCH_CEPH_STORE:-bluestore}
    [[ $CEPH_STORE == bluestore || $CEPH_STORE == memstore ]] || ceph_die "POUCH_CEPH_STORE: bluestore or memstore, not $CEPH_STORE"
    CEPH_BUCKET=${POUCH_CEPH_BUCKET:-pouch-blobs}
    CEPH_RGW_ADDRS=${POUCH_CEPH_RGW_ADDRS:-127.0.0.1}
    CEPH_RGW_HOST=${CEPH_RGW_ADDRS%% *}
    if [[ -n $port ]]; then
        stack_port_in_use "$port" && ceph_die "port $port is taken"
        CEPH_RGW_PORT=$port
        STACK_TAKEN_PORTS+="$port "
    else
        stack_free_port CEPH_RGW_PORT
    fi
    if [[ -n ${POUCH_CEPH_MON_PORT:-} ]]; then
        stack_port_in_use "$POUCH_CEPH_MON_PORT" && ceph_die "port $POUCH_CEPH_MON_PORT is taken"
        CEPH_MON_PORT=$POUCH_CEPH_MON_PORT
    else
        stack_free_port CEPH_MON_PORT
    fi
    # S3 keys as AWS shapes them: a 20-character access key id, a 40-character secret.
    # (tr ends on SIGPIPE when head has enough: not a failure.)
    S3_ACCESS_KEY=$(set +o pipefail; tr -dc 'A-Z0-9' </dev/urandom | head -c 20)
    S3_SECRET_KEY=$(set +o pipefail; tr -dc 'A-Za-z0-9' </dev/urandom | head -c 40)
    CEPH_FSID=$(cat /proc/sys/kernel/random/uuid)

    rm -rf "$CEPH_DIR"/{mon,osd,rgw,run,log,crash,osd-*.block,monmap,keyring,s3.env}
    mkdir -p "$CEPH_DIR"/{mon/ceph-a,osd/ceph-0,rgw,crash} "$CEPH_RUN" "$CEPH_LOG"
    ceph_write_conf "$CEPH_STORE"
    ceph_write_state

    # One keyring for every entity (vstart.sh does the same); each daemon finds its own name.
    t0=$SECONDS
    ceph-authtool --create-keyring "$CEPH_KEYRING" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$CEPH_KEYRING" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
        --cap mgr 'allow *' >/dev/null
    ceph-authtool "$CEPH_KEYRING" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' \
        --cap mgr 'allow profile osd' >/dev/null
    ceph-authtool "$CEPH_KEYRING" --gen-key -n client.rgw.a --cap mon 'allow rw' --cap osd 'allow rwx' >/dev/null
    monmaptool --create --fsid "$CEPH_FSID" --addv a "[v2:127.0.0.1:$CEPH_MON_PORT]" "$CEPH_DIR/monmap" >/dev/null
    if ((EUID == 0)); then chown -R ceph:ceph "$CEPH_DIR"; fi
    chmod 640 "$CEPH_KEYRING"
    ceph-mon -c "$CEPH_CONF" -i a --mkfs --monmap "$CEPH_DIR/monmap" --keyring "$CEPH_KEYRING" \
        "${CEPH_SETUSER[@]}" 2>>"$CEPH_LOG/daemons.err"
    ceph-mon -c "$CEPH_CONF" -i a "${CEPH_SETUSER[@]}" 2>>"$CEPH_LOG/daemons.err"
    ceph_wait 300 "the mon answering" ceph_cli mon stat
    ceph_say "mon up ($((SECONDS - t0)) s, 127.0.0.1:$CEPH_MON_PORT)"

    t0=$SECONDS
    osd_uuid=$(cat /proc/sys/kernel/random/uuid)
    osd_id=$(ceph_cli osd new "$osd_uuid" 0)
    [[ $osd_id == 0 ]] || ceph_die "ceph osd new gave id '$osd_id', not 0"
    ceph-osd -c "$CEPH_CONF" -i 0 --mkfs --osd-uuid "$osd_uuid" "${CEPH_SETUSER[@]}" \
        >>"$CEPH_LOG/osd-mkfs.log" 2>&1 || ceph_die "ceph-osd --mkfs failed: $(tail -n 5 "$CEPH_LOG/osd-mkfs.log")"
    ceph-osd -c "$CEPH_CONF" -i 0 "${CEPH_SETUSER[@]}" 2>>"$CEPH_LOG/daemons.err"
    ceph_wait 600 "osd.0 up" bash -c "ceph -c '$CEPH_CONF' --connect-timeout 5 osd dump -f json | jq -e '.osds[0].up == 1'"
    ceph_say "osd.0 up ($((SECONDS - t0)) s, $CEPH_STORE)"

    # radosgw makes its pools and the default zone on its first start.
    t0=$SECONDS
    ceph_start_rgw
    ceph_say "radosgw up ($((SECONDS - t0)) s, ${CEPH_RGW_ADDRS// /, } port $CEPH_RGW_PORT)"
    t0=$SECONDS
    radosgw-admin -c "$CEPH_CONF" user create --uid pouch --display-name 'Pouch Sync' \
        --access-key "$S3_ACCESS_KEY" --secret "$S3_SECRET_KEY" >"$CEPH_LOG/user.json" 2>>"$CEPH_LOG/admin.err" ||
        ceph_die "radosgw-admin user create failed: $(tail -n 5 "$CEPH_LOG/admin.err")"
    local status
    status=$(ceph_s3 PUT "/$CEPH_BUCKET" -o "$CEPH_LOG/bucket.xml" -w '%{http_code}')
    [[ $status == 200 ]] || ceph_die "PUT of bucket $CEPH_BUCKET answered $status: $(cat "$CEPH_LOG/bucket.xml")"
    ceph_selfcheck
    ceph_say "user, bucket $CEPH_BUCKET and a PUT/GET/DELETE ($((SECONDS - t0)) s)"

    umask 077
    cat >"$CEPH_DIR/s3.env" <<EOF
POUCH_BLOB_STORE=s3://$CEPH_BUCKET
POUCH_S3_ENDPOINT=http://$CEPH_RGW_HOST:$CEPH_RGW_PORT
POUCH_S3_REGION=$CEPH_REGION
POUCH_S3_ACCESS_KEY=$S3_ACCESS_KEY
POUCH_S3_SECRET_KEY=$S3_SECRET_KEY
EOF
    ceph_say "up in $((SECONDS - started)) s: s3://$CEPH_BUCKET at http://$CEPH_RGW_HOST:$CEPH_RGW_PORT ($CEPH_DIR/s3.env)"
}

# ceph_selfcheck: 1 MiB of random bytes PUT to the bucket comes back identical, then goes.
ceph_selfcheck() {
    local tmp status
    tmp=$(mktemp -d)
    head -c 1048576 /dev/urandom >"$tmp/put"
    status=$(ceph_s3 PUT "/$CEPH_BUCKET/ceph-sh-selfcheck" --data-binary "@$tmp/put" -o "$tmp/answer" -w '%{http_code}')
    [[ $status == 200 ]] || ceph_die "self-check PUT answered $status: $(cat "$tmp/answer")"
    status=$(ceph_s3 GET "/$CEPH_BUCKET/ceph-sh-selfcheck" -o "$tmp/get" -w '%{http_code}')
    [[ $status == 200 ]] || ceph_die "self-check GET answered $status"
    cmp -s "$tmp/put" "$tmp/get" || ceph_die "self-check GET gave other bytes than the PUT"
    status=$(ceph_s3 DELETE "/$CEPH_BUCKET/ceph-sh-selfcheck" -o /dev/null -w '%{http_code}')
    [[ $status == 204 ]] || ceph_die "self-check DELETE answered $status"
    rm -rf "$tmp"
}

# ceph_stop_daemon NAME: SIGTERM, up to 15 s, then SIGKILL.
ceph_stop_daemon() {
    local pid
    ceph_alive "$1" || return 0
    pid=$(ceph_pid "$1")
    kill -TERM "$pid" 2>/dev/null || true
    if ! stack_wait_gone "$pid" 150; then
        ceph_say "$1 did not stop on SIGTERM; killing it"
        kill -KILL "$pid" 2>/dev/null || true
        stack_wait_gone "$pid" 50 || true
    fi
}

ceph_stop() {
    local name left
    [[ -f $CEPH_CONF ]] || return 0
    for name in client.rgw.a osd.0 mon.a; do ceph_stop_daemon "$name"; done
    # Whatever still names our ceph.conf (a daemon whose pid file was lost, a stuck CLI).
    left=$(pgrep -f -- "-c $CEPH_CONF( |$)" || true)
    if [[ -n $left ]]; then
        ceph_say "killing leftovers: $left"
        # shellcheck disable=SC2086  # one pid per word
        kill -KILL $left 2>/dev/null || true
    fi
    rm -f "$CEPH_RUN"/*.pid "$CEPH_RUN"/*.asok
    ceph_say "stopped ($CEPH_DIR)"
}

ceph_status() {
    local name
    for name in mon.a osd.0 client.rgw.a; do
        if ceph_alive "$name"; then echo "$name: running ($(ceph_pid "$name"))"; else echo "$name: stopped"; fi
    done
    ceph_rgw_answers
}

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

(($# >= 2)) || usage
ceph_paths "$2"
case $1 in
    start)
        trap 'rc=$?; if ((rc != 0)); then ceph_say "bring-up failed; stopping what started"; ceph_stop; fi' EXIT
        ceph_start "${3:-}"
        ;;
    stop) ceph_stop ;;
    kill-rgw)
        ceph_load_state
        if ceph_alive client.rgw.a; then
            pid=$(ceph_pid client.rgw.a)
            kill -KILL "$pid"
            stack_wait_gone "$pid" 50 || ceph_die "radosgw ($pid) survived kill -9"
        fi
        ;;
    start-rgw)
        ceph_load_state
        t0=$SECONDS
        ceph_start_rgw
        ceph_say "radosgw up again ($((SECONDS - t0)) s)"
        ;;
    status)
        ceph_load_state
        ceph_status
        ;;
    *) usage ;;
esac
