#!/usr/bin/env bash
# blobs.sh -- the blobs section of `make bench` (issue 27), run by tools/bench/run.sh in a
# process of its own: blob upload and download throughput through the service on the S3
# backend against curl --aws-sigv4 PUT/GET of the same objects straight to radosgw, and
# through the service on the local-directory backend.
#   blobs.sh OUT_DIR
# BENCH_BLOB_RUNS (3) times: starts a single-host Ceph afresh (tools/stack/ceph.sh) and runs
# what follows on it (the objects are made once). Makes BENCH_BLOBS (24) objects of
# BENCH_BLOB_MIB (4) MiB of random bytes for each pass -- BENCH_BLOB_ROUNDS (5) rounds of two
# passes, one at a time and 8 at once (5 x 2 x 24 x 4 MiB: under the bench user's plan of
# 1 GiB; 5 rounds because radosgw's own rounds spread by a quarter on this machine, and the
# median of 3 moved the ratio by as much) -- then, each in a stack of its
# own (tools/stack/lib.sh, PostgreSQL durable, as bench/run.sh's): the stack on the local
# directory; the stack on the Ceph's bucket (its s3.env), beside the same PUTs and GETs
# straight to radosgw. A pass is one curl process: one transfer at a time (connections kept
# alive), or 8 at once (curl -Z --parallel-max 8); the service's uploads are PUT
# /v1/pouches/{id}/blobs/{blobId} after one blob check of all of them, its downloads GET of
# the same path (nginx streams the file, or fetches the object with a presigned URL), as a
# web user (Authorization: Bearer) does. Each pass has blobs of its own: BENCH_BLOB_ROUNDS (5)
# rounds of the two passes. Appends one JSON line per pass to OUT_DIR/blobs.jsonl: {backend:
# dir|s3|radosgw, way: up|down, par, run, round, n, mib, secs, mib_s, failed, note, and for the
# service's uploads handler_ms: the sync handler's own median duration_ms over the pass;
# cpu_ms: {busy, store, nginx, handler}, ms of CPU per object (cpu_snapshot); pinned: true
# for the passes of the S3 stack run again with the Ceph daemons on a CPU of their own,
# BENCH_BLOBS_PIN=0 skips that run}; run.sh compares the medians over the rounds within each
# run, then takes the median run. The stacks and the Ceph are stopped at the end, whatever
# happens.
#   blobs.sh stack dir|s3 OUT_DIR FILES_DIR CEPH_DIR   (one stack: what the above runs twice)
# Relies on tools/stack/{lib,ceph}.sh, tests/smoke/{lib,flows}.sh, curl 7.88, b3sum, jq.
set -euo pipefail
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh
# shellcheck source=tools/bench/cpu.sh
source tools/bench/cpu.sh

n=${BENCH_BLOBS:-24}
mib=${BENCH_BLOB_MIB:-4}
rounds=${BENCH_BLOB_ROUNDS:-5}
par=8
PASSES=""
for ((r = 1; r <= rounds; r++)); do PASSES+="seq-$r par-$r "; done

# measure BACKEND WAY PAR EXPECT_STATUS NOTE CURL ARGS...: one curl process of n transfers,
# timed; appends its line to blobs.jsonl. A transfer fails unless it answers EXPECT_STATUS
# (and, for a download, brings mib MiB).
measure() {
    local backend=$1 way=$2 p=$3 want=$4 note=$5 t0 t1 out failed log_from=0
    shift 5
    [[ -n ${STACK_DIR:-} && -f ${STACK_DIR:-}/log/sync.log ]] && log_from=$(wc -l <"$STACK_DIR/log/sync.log")
    local pargs=()
    ((p > 1)) && pargs=(-Z --parallel-max "$p")
    local cpu_a cpu_b
    cpu_a=$(cpu_snapshot)
    t0=$(date +%s.%N)
    out=$(curl -sS --no-progress-meter "${pargs[@]}" --max-time 300 -w '%{http_code} %{size_download}\n' "$@" 2>>"$OUT/blobs.err") || true
    t1=$(date +%s.%N)
    cpu_b=$(cpu_snapshot)
    printf '%s\n' "$out" >"$OUT/blobs-$backend-$way-$p-${BLOBS_RUN:-1}-${ROUND:-1}$PIN_TAG.codes"
    failed=$(awk -v w="$want" -v way="$way" -v b=$((mib * 1048576)) -v n="$n" '
        { if ($1 != w || (way == "down" && $2 != b)) bad++; seen++ }
        END { print bad + (n - seen) }' <<<"$out")
    # The service's uploads: the sync handler's own time (its log's duration_ms, from reading
    # the body from nginx to its answer), median over the pass; the rest is nginx's receiving.
    local handler_ms=null
    if [[ $way == up && $backend != radosgw && -n ${STACK_DIR:-} ]]; then
        handler_ms=$(tail -n +"$((log_from + 1))" "$STACK_DIR/log/sync.log" |
            jq -r 'select(.method == "PUT" and .status == 201) | .duration_ms' | sort -n |
            awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)]; else print "null" }')
    fi
    jq -nc --arg backend "$backend" --arg way "$way" --argjson par "$p" --argjson n "$n" \
        --argjson mib "$((n * mib))" --arg t0 "$t0" --arg t1 "$t1" --argjson failed "$failed" --arg note "$note" \
        --argjson round "${ROUND:-1}" --argjson run "${BLOBS_RUN:-1}" --argjson handler_ms "$handler_ms" --argjson pinned "${BLOBS_PINNED:-false}" \
        --arg cpu_a "$cpu_a" --arg cpu_b "$cpu_b" --argjson hz "$(getconf CLK_TCK)" '{backend:$backend, way:$way, par:$par, run:$run, round:$round, n:$n, mib:$mib, secs:(($t1|tonumber) - ($t0|tonumber)),
          failed:$failed, note:$note, pinned:$pinned} | .mib_s = (.mib / .secs * 100 | round / 100) | if $handler_ms then .handler_ms = $handler_ms else . end
          | ([$cpu_a | splits(" ") | tonumber]) as $a | ([$cpu_b | splits(" ") | tonumber]) as $b
          | .cpu_ms = ([range(4)] | map(($b[.] - $a[.]) * 1000 / $hz / $n * 10 | round / 10)
                       | {busy: .[0], store: .[1], nginx: .[2], handler: .[3]})' | tee -a "$OUT/blobs.jsonl"
}

# cpu_snapshot: CPU time so far, in clock ticks, as "BUSY STORE NGINX HANDLER": the whole
# machine's busy time (all cores, /proc/stat less idle and iowait), then that of the Ceph
# daemons (radosgw, ceph-osd), of nginx and of the sync handler (/proc/PID/stat, all threads).
cpu_snapshot() {
    local busy rest
    busy=$(busy_ticks)
    rest=$(cat /proc/[0-9]*/stat 2>/dev/null | awk '
        { c = $2; t = $14 + $15 }
        c == "(radosgw)" || c == "(ceph-osd)" { s += t }
        c == "(nginx)" { n += t }
        c == "(pouch-sync)" { h += t }
        END { print s + 0, n + 0, h + 0 }')
    echo "$busy $rest"
}

# ids PASS: the blob ids of a pass, one a line (FILES/PASS/ID files).
ids() { ls "$FILES/$1"; }

# put_args PASS URL_PREFIX: curl arguments uploading every file of the pass to PREFIX<id>.
put_args() {
    local id
    for id in $(ids "$1"); do printf '%s\n' -o /dev/null -T "$FILES/$1/$id" "$2$id"; done
}
get_args() {
    local id
    for id in $(ids "$1"); do printf '%s\n' -o /dev/null "$2$id"; done
}

# bucket_keys PREFIX: how many objects of the bucket have keys starting with PREFIX.
bucket_keys() {
    curl -sS --max-time 30 --aws-sigv4 "aws:amz:$POUCH_S3_REGION:s3" \
        --user "$POUCH_S3_ACCESS_KEY:$POUCH_S3_SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
        "$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}?list-type=2&max-keys=1000&prefix=$1" |
        { grep -o '<Key>' || true; } | wc -l
}

# --- one stack -------------------------------------------------------------------------------
one_stack() {
    local backend=$1 http_port="" pass items p args s3_before=0 s3_after note
    STACK_VAR_DIR=$(mktemp -d /var/tmp/pouch-bench-blobs.XXXXXX)
    trap 'stack_stop; rm -rf "$STACK_VAR_DIR" "${SMOKE_TMP:-/nonexistent}"' EXIT
    if [[ $backend == s3 ]]; then
        set -a
        # shellcheck source=/dev/null
        source "$CEPH/s3.env"
        set +a
    else
        unset POUCH_BLOB_STORE POUCH_S3_ENDPOINT POUCH_S3_REGION POUCH_S3_ACCESS_KEY POUCH_S3_SECRET_KEY
    fi
    stack_free_port http_port
    stack_init "$STACK_VAR_DIR" "$http_port" durable
    stack_start >"$OUT/blobs-stack-$backend.log" 2>&1
    stack_export_client_env
    # shellcheck source=tests/smoke/lib.sh
    source tests/smoke/lib.sh
    # shellcheck source=tests/smoke/flows.sh
    source tests/smoke/flows.sh
    trap 'stack_stop; rm -rf "$STACK_VAR_DIR" "${SMOKE_TMP:-/nonexistent}"' EXIT
    flow_user blobbench >/dev/null

    # One check reserves every blob of every pass.
    items=$(for pass in $PASSES; do
        for id in $(ids "$pass"); do jq -nc --arg id "$id" --argjson s $((mib * 1048576)) '{id:$id, stored_size:$s}'; done
    done | jq -sc '{blobs: .}')
    req POST "/v1/pouches/$POUCH/blobs/check" "$items" -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 200 ]] || stack_die "blob check answered $STATUS: ${BODY:0:300}"
    [[ $backend == s3 ]] && s3_before=$(bucket_keys "")

    local prefix=$STACK_URL/v1/pouches/$POUCH/blobs/ round
    local auth=(-H "Authorization: Bearer $WEB_TOKEN")
    local sig=() direct=""
    if [[ $backend == s3 ]]; then
        sig=(--aws-sigv4 "aws:amz:$POUCH_S3_REGION:s3" --user "$POUCH_S3_ACCESS_KEY:$POUCH_S3_SECRET_KEY"
            -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD')
        direct=$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}/bench-direct$PIN_TAG/
    fi
    # Each pass uploads its own blobs (an id already stored would answer 200 from the database
    # alone); on S3 it alternates with the same PUTs straight to radosgw, the baseline first in
    # odd rounds and second in even ones, so a burst of load elsewhere hits both alike.
    for pass in $PASSES; do
        p=1 round=${pass#*-}
        [[ $pass == par-* ]] && p=$par
        if [[ $backend == s3 ]] && ((round % 2 == 1)); then
            mapfile -t args < <(put_args "$pass" "$direct")
            ROUND=$round measure radosgw up "$p" 200 "curl --aws-sigv4 PUT" "${sig[@]}" "${args[@]}"
        fi
        mapfile -t args < <(put_args "$pass" "$prefix")
        ROUND=$round measure "$backend" up "$p" 201 "" "${auth[@]}" -H 'Content-Type: application/octet-stream' "${args[@]}"
        if [[ $backend == s3 ]] && ((round % 2 == 0)); then
            mapfile -t args < <(put_args "$pass" "$direct")
            ROUND=$round measure radosgw up "$p" 200 "curl --aws-sigv4 PUT" "${sig[@]}" "${args[@]}"
        fi
    done
    if [[ $backend == s3 ]]; then
        s3_after=$(bucket_keys "")
        note="objects in the bucket: $s3_before before the service's uploads, $s3_after after (of them $(bucket_keys "bench-direct$PIN_TAG%2F") the baseline's)"
        echo "blobs: $note" >&2
        echo "$note" >"$OUT/blobs-bucket$PIN_TAG.txt"   # the last run's
    fi
    for pass in $PASSES; do
        p=1 round=${pass#*-}
        [[ $pass == par-* ]] && p=$par
        if [[ $backend == s3 ]] && ((round % 2 == 1)); then
            mapfile -t args < <(get_args "$pass" "$direct")
            ROUND=$round measure radosgw down "$p" 200 "curl --aws-sigv4 GET" "${sig[@]}" "${args[@]}"
        fi
        mapfile -t args < <(get_args "$pass" "$prefix")
        ROUND=$round measure "$backend" down "$p" 200 "" "${auth[@]}" "${args[@]}"
        if [[ $backend == s3 ]] && ((round % 2 == 0)); then
            mapfile -t args < <(get_args "$pass" "$direct")
            ROUND=$round measure radosgw down "$p" 200 "curl --aws-sigv4 GET" "${sig[@]}" "${args[@]}"
        fi
    done
    # One blob of each pass comes back with its own bytes (the passes above count sizes).
    for pass in $PASSES; do
        id=$(ids "$pass" | head -n 1)
        curl -sS --max-time 30 "${auth[@]}" "$prefix$id" | cmp -s - "$FILES/$pass/$id" ||
            echo "{\"backend\":\"$backend\",\"run\":${BLOBS_RUN:-1},\"way\":\"down\",\"check\":\"$pass/$id\",\"failed\":1,\"note\":\"other bytes than uploaded\"}" >>"$OUT/blobs.jsonl"
    done
}

if [[ ${1:-} == stack ]]; then
    OUT=$3 FILES=$4 CEPH=$5 PIN_TAG=${PIN_TAG:-}
    one_stack "$2"
    exit 0
fi

OUT=${1:?usage: blobs.sh OUT_DIR}
export PIN_TAG=""
mkdir -p "$OUT"
: >"$OUT/blobs.jsonl"
: >"$OUT/blobs.err"
WORK=$(mktemp -d /var/tmp/pouch-bench-blobs.XXXXXX)
chmod 711 "$WORK"   # the Ceph daemons run as user ceph (ceph.sh)
cleanup() {
    tools/stack/ceph.sh stop "$WORK/ceph" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for pass in $PASSES; do
    mkdir -p "$WORK/files/$pass"
    for ((i = 0; i < n; i++)); do
        head -c $((mib * 1048576)) /dev/urandom >"$WORK/files/tmp"
        mv "$WORK/files/tmp" "$WORK/files/$pass/$(b3sum --raw "$WORK/files/tmp" | basenc --base64url | tr -d '=')"
    done
done
chmod -R a+rX "$WORK/files"
# BENCH_BLOB_RUNS (3) runs, each on a Ceph of its own started afresh, with stacks of their own:
# a row's rounds agree within one run, but between two runs the same row moved by up to 0.12
# on this machine (docs/PERFORMANCE.md), so run.sh takes the median run.
for ((run = 1; run <= ${BENCH_BLOB_RUNS:-3}; run++)); do
    export BLOBS_RUN=$run
    rm -rf "$WORK/ceph"
    mkdir -p "$WORK/ceph"
    t0=$SECONDS
    tools/stack/ceph.sh start "$WORK/ceph" 2>"$OUT/blobs-ceph.log" || stack_die "Ceph did not start: $(tail -n 5 "$OUT/blobs-ceph.log")"
    echo "blobs: run $run: $(tail -n 1 "$OUT/blobs-ceph.log") ($((SECONDS - t0)) s)" >&2
    "$SELF" stack dir "$OUT" "$WORK/files" "$WORK/ceph"
    "$SELF" stack s3 "$OUT" "$WORK/files" "$WORK/ceph"
    # The S3 stack once more with the store on a core of its own, as it would be on hosts of
    # its own: the Ceph daemons on the last CPU, everything else (this script's children: the
    # stack, curl) on the others. Both the service and the direct PUTs/GETs get the same
    # placement.
    if [[ ${BENCH_BLOBS_PIN:-1} != 0 ]] && (($(nproc) >= 2)); then
        last=$(($(nproc) - 1))
        for pid in $(pgrep -x 'radosgw|ceph-osd|ceph-mon'); do taskset -a -p -c "$last" "$pid" >/dev/null; done
        BLOBS_PINNED=true PIN_TAG=-pinned taskset -c "0-$((last - 1))" "$SELF" stack s3 "$OUT" "$WORK/files" "$WORK/ceph"
    fi
    tools/stack/ceph.sh stop "$WORK/ceph"
done
