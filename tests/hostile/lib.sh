# lib.sh -- helpers of the hostile suite's CLI half (tests/hostile/cli.sh): the tampering proxy's
# rules and log, a fresh account per scenario (pouch-testweb as its browser member), `pouch`
# devices logged in through the proxy (tests/lib/devices.sh), the malicious member
# pouch-attacker, and checks of what lies outside a synced folder. Sourced after
# tests/smoke/lib.sh (expect_true, check, sql), with the environment tests/hostile/run.sh exports
# (POUCH_URL = the proxy, HOSTILE_RULES, HOSTILE_LOG).
# shellcheck shell=bash disable=SC2034  # OUT, ERR, RC, POUCH_ID...: read by cli.sh

T=$HOSTILE_DIR/cli
PROXY=$POUCH_URL
# dev, cfg, member_id, device_id, web, web_account, login: tests/lib/devices.sh, with the
# devices in T and a `pouch` command stopped after 120 s (POUCH_CMD_TIMEOUT=N dev ... for less).
DEVICES=$T
# shellcheck source=tests/lib/devices.sh
source tests/lib/devices.sh
ATTACKER=$BIN/pouch-attacker
: "${POUCH_CMD_TIMEOUT:=120}"

# want NAME: whether POUCH_HOSTILE_ONLY (a regex) selects the scenario.
want() { [[ -z ${POUCH_HOSTILE_ONLY:-} || $1 =~ $POUCH_HOSTILE_ONLY ]]; }

# scenario NAME FUNCTION: runs FUNCTION with no proxy rules before and after, then its check
# line. A function that returns non-zero stopped early: that is a failure of the scenario.
scenario() {
    want "$1" || return 0
    echo "--- $1"
    rules '[]'
    local start=$SECONDS
    if ! "$2"; then smoke_fail "the scenario stopped early (see above)"; fi
    rules '[]'
    check "$1"
    echo "    ($1 took $((SECONDS - start)) s)"
}

# rules JSON: the proxy's rules from now on (tests/hostile/proxy.py), replaced atomically. Not
# a JSON list (a jq program that failed): a failed expectation, as the proxy would ignore it.
rules() {
    jq -e 'type == "array"' <<<"$1" >/dev/null 2>&1 || smoke_fail "the proxy rules are not a JSON list: $1"
    printf '%s\n' "$1" >"$HOSTILE_RULES.tmp"
    mv "$HOSTILE_RULES.tmp" "$HOSTILE_RULES"
}

# log_mark / log_since: the proxy's log lines written after the mark (one JSON object each).
log_mark() { LOG_MARK=$(wc -l <"$HOSTILE_LOG"); }
log_since() { tail -n +$((LOG_MARK + 1)) "$HOSTILE_LOG"; }

# ops_sent POUCH KEY_GEN: how many ops with that key_gen the clients sent in commits to the
# pouch since the mark (whatever the server answered: the ciphertext left the client).
ops_sent() {
    log_since | jq -s --arg p "/v1/pouches/$1/operations" --argjson g "$2" \
        '[.[] | select(.method == "POST" and .upstream_path == $p) | (.body | fromjson? // {ops: []}) | .ops[]? | select(.key_gen == $g)] | length'
}

# rule_served NAME: how many requests or answers since the mark the proxy's rule NAME changed
# (its log's `changed`, not merely matched) -- that the attack reached the client at all, so a
# scenario's "nothing happened" is not vacuous.
rule_served() {
    log_since | jq -s --arg n "$1" '[.[] | select(.changed | index($n))] | length'
}

# expect_served NAME: the rule NAME changed at least one answer since the mark.
expect_served() {
    local n
    n=$(rule_served "$1")
    expect_true "the proxy served the attack (rule $1 applied $n times)" test "$n" -gt 0
}

# commits_sent POUCH: how many commits (POST .../operations) the clients sent to the pouch since
# the mark.
commits_sent() {
    log_since | jq -s --arg p "/v1/pouches/$1/operations" '[.[] | select(.method == "POST" and .upstream_path == $p)] | length'
}

# requests_matching REGEX: how many requests since the mark had a path (with query) matching.
requests_matching() {
    log_since | jq -s --arg r "$1" '[.[] | select(.path | test($r))] | length'
}

# account NAME: a fresh user with genesis, its browser member played by pouch-testweb (state
# $T/web-NAME, talking to the proxy like every client); sets WEB_STATE and POUCH_ID.
account() {
    WEB_STATE=$T/web-$1
    web_account
}

# attacker ARGS...: pouch-attacker (tools/attacker), the malicious member; its JSON on stdout.
attacker() { "$ATTACKER" "$@"; }

# outside BASE ROOT: every path under BASE that is not ROOT or inside it, with its type and
# mode, sorted: compared before and after a sync, it shows whatever the sync did outside.
outside() {
    find "$1" -mindepth 1 \( -path "$2" -prune \) -o -printf '%y %m %p\n' | sort
}

# expect_nothing_outside BASE ROOT BEFORE: what `outside BASE ROOT` says now is BEFORE.
expect_nothing_outside() {
    local changed
    changed=$(diff <(printf '%s\n' "$3") <(outside "$1" "$2") | grep '^[<>]' | tr '\n' ' ')
    expect_true "nothing appears or changes outside the folder ($changed)" test -z "$changed"
}

# has_raw_controls FILE: the file holds an ESC, BEL, a C1 control (U+0080..U+009F) or a bidi
# control (U+202A..U+202E, U+2066..U+2069) -- text that would act on a terminal.
has_raw_controls() {
    LC_ALL=C grep -qP '\x1b|\x07|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$1"
}

hex32() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# one TEXT [N]: TEXT on one line, its last N (300) characters, for a FAIL line.
one() { printf '%s' "$1" | tr '\n' ' ' | tail -c "${2:-300}"; }
