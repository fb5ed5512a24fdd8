#!/usr/bin/env bash
# 84-metrics.sh -- each handler's Prometheus metrics through nginx's internal metrics server
# (issues 18, 22): the text format per group, counters and the latency histogram moving by
# exactly the requests made, the parked long-poll gauge, 404 for unknown groups and hosts, 403
# for an address outside POUCH_METRICS_FROM (a connection from 127.0.0.2; X-Forwarded-For is
# trusted by the public server only), and /metrics on the public port is 404 like any unknown
# path, also on the nginx that trusts 127.0.0.1 as a TLS proxy, and also when smuggled through
# a location that passes to a handler (%2F and dot segments). Relies on tests/smoke/lib.sh,
# flows.sh, curl (--interface) and the stack of tools/stack/test.sh (POUCH_METRICS_URL).
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# metric GROUP SERIES: the value of one series (its name and labels exactly as exposed) in the
# group's scrape, as exposed; "absent" when the scrape holds no such series and "scrape-failed"
# when the scrape did not answer 200, so neither reads as a value of 0.
metric() {
    local page
    if ! page=$(curl -fsS --max-time 10 "$POUCH_METRICS_URL/metrics/$1" 2>/dev/null); then
        echo scrape-failed
        return 0
    fi
    awk -v s="$2" 'index($0, s " ") == 1 { v = substr($0, length(s) + 2); found = 1 }
        END { print found ? v : "absent" }' <<<"$page"
}

# counter GROUP SERIES: a counter's value, 0 while it is absent (a counter series appears with
# its first increment); "scrape-failed" as metric says it.
counter() {
    local v
    v=$(metric "$1" "$2")
    [[ $v == absent ]] && v=0
    echo "$v"
}

# fallback_is GROUP N: the group's Redis fallback gauge reads N.
fallback_is() { test "$(metric "$1" "pouch_redis_fallback_active{group=\"$1\"}")" = "$2"; }

# metrics_req PATH [curl args]: req against the metrics server (not an API answer: kept out of
# the OpenAPI check's log).
metrics_req() {
    local saved=$POUCH_URL
    POUCH_URL=$POUCH_METRICS_URL
    POUCH_API_LOG="" req GET "$@"
    POUCH_URL=$saved
}

for g in account cliauth devices sync shares admin; do
    metrics_req "/metrics/$g"
    expect_status 200
    expect_header_match Content-Type '^text/plain; version=0\.0\.4'
    expect_true "pool size of $g exposed" grep -q "^pouch_db_pool_size{group=\"$g\"} [0-9]" "$SMOKE_TMP/body"
    expect_true "parked gauge of $g exposed" grep -q "^pouch_longpolls_parked{group=\"$g\"} " "$SMOKE_TMP/body"
    expect_true "redis fallback gauge of $g exposed" grep -q "^pouch_redis_fallback_active{group=\"$g\"} [01]$" "$SMOKE_TMP/body"
    # An earlier script may just have restarted Redis: a subscriber reconnects within seconds.
    expect_true "redis fallback gauge of $g is 0 with Redis up" retry 10 fallback_is "$g" 0
done
metrics_req /metrics/account
expect_true "argon2 queue exposed by account" grep -q '^pouch_argon2_queued{group="account"} 0$' "$SMOKE_TMP/body"
check every_group_exports_its_metrics_in_the_text_format

stack_redis_stop
expect_true "sync reports the fallback without Redis" retry 10 fallback_is sync 1
expect_true "account reports the fallback without Redis" retry 10 fallback_is account 1
stack_redis_start
expect_true "sync back on Redis" retry 10 fallback_is sync 0
expect_true "account back on Redis" retry 10 fallback_is account 0
check redis_fallback_gauge_follows_a_redis_outage

flow_user metrics
ops='pouch_http_requests_total{group="sync",method="POST",route="/v1/pouches/{pouchId:uuid}/operations",status="200"}'
hist='pouch_http_request_duration_seconds_count{group="sync",method="POST",route="/v1/pouches/{pouchId:uuid}/operations",status="200"}'
before=$(counter sync "$ops")
hbefore=$(counter sync "$hist")
for _ in 1 2 3; do flow_put_new "$WEB_TOKEN" "$POUCH" "$EPOCH" "$WEB_MEMBER" env >/dev/null; done
# A request is counted as it is logged, just after its answer went out.
counted() {
    local d
    d=$(growth "$before" "$(counter sync "$ops")")
    [[ $d =~ ^[0-9]+$ ]] && ((d >= 3))
}
retry 2 counted || true
after=$(counter sync "$ops")
hafter=$(counter sync "$hist")
expect_true "commits counted: $before -> $after (want +3)" test "$(growth "$before" "$after")" = 3
expect_true "commit latencies observed: $hbefore -> $hafter (want +3)" test "$(growth "$hbefore" "$hafter")" = 3
metrics_req /metrics/sync
expect_true "no pouch id in any label" bash -c "! grep -q '$POUCH' '$SMOKE_TMP/body'"
check commit_counter_and_latency_histogram_move_by_the_requests_made

# parked_is N: the sync handler has N long-polls parked.
parked_is() { test "$(metric sync 'pouch_longpolls_parked{group="sync"}')" = "$1"; }
hw=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")
curl -sS -o /dev/null --max-time 20 -H "Authorization: Bearer $WEB_TOKEN" \
    "$POUCH_URL/v1/pouches/$POUCH/events?epoch=$EPOCH&after=$hw&wait=5" &
poll=$!
expect_true "the parked long-poll is counted" retry 4 parked_is 1
wait "$poll" || true
expect_true "and no longer once answered" parked_is 0
check parked_long_polls_gauge_follows_a_waiting_events_request

metrics_req /metrics/nope
expect_error 404 not_found
metrics_req /metrics/sync/10.0.0.1
expect_error 404 not_found
metrics_req /v1/health
expect_error 404 not_found
check unknown_group_or_host_is_json_404

# The public server has no metrics: nginx's own JSON 404 (never a handler's answer), as for
# any unknown path, also where 127.0.0.1 is a trusted TLS proxy.
for path in /metrics/sync /metrics/account /metrics/ /metrics/sync/127.0.0.1; do
    req GET "$path"
    expect_error 404 not_found
    expect_json .error.message "Not found."
done
SMOKE_URL_SAVED=$POUCH_URL
POUCH_URL=$POUCH_URL_RATE_LIMITED
req GET /metrics/sync "" -H "X-Forwarded-For: 127.0.0.1"
expect_error 404 not_found
expect_json .error.message "Not found."
POUCH_URL=$SMOKE_URL_SAVED
# Nor through a location that does pass to a handler: nginx routes by the decoded, normalized
# path (/v1/health here), the handler would route the raw one; it answers 404 when they differ.
for g in account cliauth devices; do
    req GET "/metrics/$g/..%2F..%2Fv1%2Fhealth" "" --path-as-is
    expect_error 404 not_found
    expect_true "no metrics text" bash -c "! grep -q pouch_ '$SMOKE_TMP/body'"
done
req GET "/metrics/account/x/..%2F..%2F..%2Fv1%2Faccount" "" --path-as-is
expect_error 404 not_found
req GET "/v1/health/..%2Fhealth" "" --path-as-is
expect_error 404 not_found
req GET "/v1/health"
expect_status 200
check metrics_are_not_served_on_the_public_port

# Only the scrapers of POUCH_METRICS_FROM (127.0.0.1 here), by the address they connect from.
metrics_req /metrics/sync "" --interface 127.0.0.2
expect_error 403 forbidden
metrics_req /metrics/sync "" --interface 127.0.0.2 -H "X-Forwarded-For: 127.0.0.1"
expect_error 403 forbidden
metrics_req /metrics/sync "" --interface 127.0.0.1
expect_status 200
# The nginx that trusts 127.0.0.1 as a TLS proxy trusts it on its public server only.
SMOKE_URL_SAVED=$POUCH_METRICS_URL
POUCH_METRICS_URL=$POUCH_METRICS_URL_RATE_LIMITED
metrics_req /metrics/sync "" -H "X-Forwarded-For: 203.0.113.7"
expect_status 200
metrics_req /metrics/sync "" --interface 127.0.0.2 -H "X-Forwarded-For: 127.0.0.1"
expect_error 403 forbidden
POUCH_METRICS_URL=$SMOKE_URL_SAVED
check metrics_are_refused_to_addresses_outside_metrics_from

smoke_done
