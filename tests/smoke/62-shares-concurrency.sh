#!/usr/bin/env bash
# 62-shares-concurrency.sh -- shares under concurrent requests through nginx (decisions §8):
# a one_time share fetched by 8 racers answers exactly one 200 and seven 410 (10 shares);
# parallel imports and fetches of one share are all counted. Relies on tests/smoke/lib.sh
# and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# race N DIR METHOD PATH [curl args...]: N requests at once (released together), each
# status written to DIR/<i>; waits for all.
race() {
    local n=$1 dir=$2 method=$3 path=$4 i
    shift 4
    mkdir -p "$dir"
    local go=$dir/go
    for ((i = 0; i < n; i++)); do
        (
            while [[ ! -e $go ]]; do sleep 0.01; done
            curl -sS -o /dev/null -w '%{http_code}\n' --max-time 30 -X "$method" "$@" \
                "$POUCH_URL$path" >"$dir/$i" 2>/dev/null || echo 000 >"$dir/$i"
        ) &
    done
    sleep 0.2
    touch "$go"
    wait
}
# tally DIR: "count status" lines of a race, sorted by status.
tally() { cat "$1"/[0-9]* | sort | uniq -c | awk '{print $2 ":" $1}' | paste -sd' '; }

flow_user
a=(-H "Authorization: Bearer $WEB_TOKEN")
owner_pouch=$POUCH
flow_web_user
b=(-H "Authorization: Bearer $WEB_TOKEN")

# --- one_time: exactly one winner ----------------------------------------------------------------
for round in $(seq 1 10); do
    id=$(flow_uuid)
    req POST "/v1/pouches/$owner_pouch/shares" "$(flow_share_body "$id" '{"one_time":true}')" "${a[@]}"
    expect_status 201
    race 8 "$SMOKE_TMP/one-$round" GET "/v1/shares/$id"
    expect_true "round $round: one 200, seven 410 (got $(tally "$SMOKE_TMP/one-$round"))" \
        test "$(tally "$SMOKE_TMP/one-$round")" = "200:1 410:7"
    expect_true "round $round: one view, consumed" test \
        "$(sql "SELECT views, consumed_at IS NOT NULL FROM shares WHERE id = '$id'")" = "1|t"
done
check racing_fetches_of_a_one_time_share_answer_exactly_one_200

# --- counters exact under concurrency ----------------------------------------------------------
id=$(flow_uuid)
req POST "/v1/pouches/$owner_pouch/shares" "$(flow_share_body "$id")" "${a[@]}"
race 20 "$SMOKE_TMP/imports" POST "/v1/shares/$id/import" "${b[@]}"
expect_true "20 imports answered 200 (got $(tally "$SMOKE_TMP/imports"))" \
    test "$(tally "$SMOKE_TMP/imports")" = "200:20"
expect_true "imports = 20" test "$(sql "SELECT imports, last_imported_at IS NOT NULL FROM shares WHERE id = '$id'")" = "20|t"
check twenty_parallel_imports_count_twenty

race 20 "$SMOKE_TMP/views" GET "/v1/shares/$id"
expect_true "20 fetches answered 200 (got $(tally "$SMOKE_TMP/views"))" \
    test "$(tally "$SMOKE_TMP/views")" = "200:20"
expect_true "views = 20" test "$(sql "SELECT views, consumed_at IS NULL FROM shares WHERE id = '$id'")" = "20|t"
check twenty_parallel_fetches_count_twenty_views

# A one_time share's single import, raced by 8 importers after its consuming fetch.
id=$(flow_uuid)
req POST "/v1/pouches/$owner_pouch/shares" "$(flow_share_body "$id" '{"one_time":true}')" "${a[@]}"
req GET "/v1/shares/$id"
expect_status 200
race 8 "$SMOKE_TMP/one-import" POST "/v1/shares/$id/import" "${b[@]}"
expect_true "one 200, seven 410 (got $(tally "$SMOKE_TMP/one-import"))" \
    test "$(tally "$SMOKE_TMP/one-import")" = "200:1 410:7"
expect_true "imports = 1" test "$(sql "SELECT imports FROM shares WHERE id = '$id'")" = 1
check racing_imports_of_a_one_time_share_count_one

smoke_done
