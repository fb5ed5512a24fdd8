#!/usr/bin/env bash
# 00-stack.sh -- smoke tests of the stack itself: nginx's own answers in the JSON envelope
# (404, 413, 429, 502), per-route body limits, the supervisor restarting a killed handler and
# the Redis stop/start helpers. Relies on tests/smoke/lib.sh and the stack of tools/stack/test.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"

# A body of N bytes in a file (what curl sends for "@file").
body_file() {
    head -c "$1" /dev/zero | tr '\0' 'a' >"$SMOKE_TMP/body-$1"
    echo "@$SMOKE_TMP/body-$1"
}

req GET /v1/no-such-endpoint
expect_error 404 not_found
expect_header Content-Type application/json
check unknown_path_answers_json_404

req GET /nothing/here
expect_error 404 not_found
check path_outside_v1_answers_json_404

req POST /v1/account/login "$(body_file 70000)"
expect_error 413 payload_too_large
check default_body_limit_is_64k

req POST /v1/pouches/p1/operations "$(body_file 9000000)"
expect_error 413 payload_too_large
check commit_body_limit_is_8m

# 1000 check items of up to ~76 bytes each do not fit 64 KiB: the check takes 128 KiB.
req POST /v1/pouches/p1/blobs/check "$(body_file 140000)"
expect_error 413 payload_too_large
check blob_check_body_limit_is_128k

req POST /v1/pouches/p1/shares "$(body_file 13000000)"
expect_error 413 payload_too_large
check share_create_body_limit_is_12m

# Bodies under a route's limit reach the handler, whatever it then answers.
blob_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
req PUT "/v1/pouches/p1/blobs/$blob_id" "$(body_file 9000000)" -H 'Content-Type: application/octet-stream'
expect_true "blob upload of 9 MB refused by nginx (status $STATUS)" test "$STATUS" != 413
check blob_upload_accepts_more_than_8m

req POST /v1/pouches "$(body_file 9000000)"
expect_true "pouch create of 9 MB refused by nginx (status $STATUS)" test "$STATUS" != 413
check pouch_create_accepts_more_than_8m

req POST /v1/pouches/p1/key-envelopes "$(body_file 9000000)"
expect_true "key envelopes of 9 MB refused by nginx (status $STATUS)" test "$STATUS" != 413
check key_envelopes_accept_more_than_8m

# Rate limits: off on the main stack, on at POUCH_URL_RATE_LIMITED (login: 5/min, burst 5).
statuses=()
for _ in 1 2 3 4 5 6 7 8; do
    req POST /v1/account/login '{"email":"stack-smoke@example.com","password":"not-a-real-one"}'
    statuses+=("$STATUS")
done
expect_true "rate limited with limits off: ${statuses[*]}" test "${statuses[*]}" = "${statuses[*]//429/}"
check rate_limits_off_on_the_test_stack

if [[ -n ${POUCH_URL_RATE_LIMITED:-} ]]; then
    main_url=$POUCH_URL
    POUCH_URL=$POUCH_URL_RATE_LIMITED
    for _ in 1 2 3 4 5 6 7 8; do
        req POST /v1/account/login '{"email":"stack-smoke@example.com","password":"not-a-real-one"}'
    done
    expect_error 429 rate_limited
    expect_header Retry-After 12
    check login_is_rate_limited_with_json_429
    POUCH_URL=$main_url
fi

# A group whose handler is not built answers 502 in the envelope; a built one is restarted
# by its supervisor after it dies.
declare -A probe=([account]=/v1/health [cliauth]=/v1/cli-auth/requests/x [devices]=/v1/devices
    [sync]=/v1/pouches [shares]=/v1/shares/x [admin]=/v1/admin/plans)
for group in account cliauth devices sync shares admin; do
    if [[ ! -f $POUCH_VAR/pids/$group.pid ]]; then
        req GET "${probe[$group]}"
        expect_error 502 unavailable
        check "missing_${group}_handler_answers_json_502"
    fi
done

if [[ -f $POUCH_VAR/pids/account.pid ]]; then
    old_pid=$(stack_handler_pid account)
    stack_handler_kill account KILL
    # shellcheck disable=SC2317  # called through retry
    health_ok() {
        req GET /v1/health
        [[ $STATUS == 200 ]]
    }
    expect_true "no 200 from /v1/health within 5 s after killing the handler" retry 5 health_ok
    expect_true "handler pid did not change" test "$(stack_handler_pid account)" != "$old_pid"
    expect_true "restart not logged" grep -q 'supervisor: handler killed by signal 9' "$(stack_log account)"
    check supervisor_restarts_a_killed_handler
fi

redis_port=${POUCH_REDIS_URL##*:}
redis_port=${redis_port%%/*}
redis_up() { (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null; }
stack_redis_stop
expect_true "Redis still accepts connections after stack_redis_stop" test "$(redis_up && echo up)" = ""
stack_redis_start
expect_true "Redis does not accept connections after stack_redis_start" redis_up
check redis_helpers_stop_and_start_redis

# The stack's Redis needs its ACL user's password (tools/stack/lib.sh), as production should:
# without it every command is refused; the handlers, configured with it, reach Redis.
redis_answer() { # redis_answer COMMANDS N: the first N reply lines to COMMANDS (CRLF lines)
    exec 3<>"/dev/tcp/127.0.0.1/$redis_port"
    printf '%b' "$1" >&3
    local i line
    for ((i = 0; i < $2; i++)); do
        read -r -t 2 line <&3 || true
        printf '%s\n' "${line%$'\r'}"
    done
    exec 3<&-
}
creds=${POUCH_REDIS_URL#redis://}
creds=${creds%@*}
expect_true "the URL carries a user and a password (${creds%%:*}:***)" \
    test -n "${creds%%:*}" -a -n "${creds#*:}"
expect_true "PING without AUTH is refused" test "$(redis_answer 'PING\r\n' 1)" = "-NOAUTH Authentication required."
default_auth=$(redis_answer 'AUTH default x\r\n' 1)
expect_true "the default user is off ($default_auth)" test "${default_auth%% *}" = -WRONGPASS
expect_true "with the URL's user and password it answers" \
    test "$(redis_answer "AUTH ${creds%%:*} ${creds#*:}\r\nPING\r\n" 2 | tr '\n' ' ')" = "+OK +PONG "
healthy_redis() {
    req GET /v1/health
    [[ $(json .redis) == ok || $(json .data.redis) == ok ]]
}
expect_true "the handlers reach Redis with it" retry 10 healthy_redis
check redis_needs_the_password_the_handlers_have

smoke_done
