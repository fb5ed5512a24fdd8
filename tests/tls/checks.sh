#!/usr/bin/env bash
# checks.sh -- the checks of the TLS suite (tests/tls/run.sh starts the stack): through
# https://127.0.0.1:PORT with the stack's own certificate (POUCH_CA_FILE): protocols (TLS 1.3
# and 1.2 served, 1.1 refused), HSTS on every answer, the plain port's 301 to https and its ACME
# webroot; a web signup, DPoP proofs whose htu is the https origin accepted and the http one
# refused; the real `pouch` CLI pinned with --ca-file: login approved by the browser member,
# a push of small files and a chunked one (commit, blob uploads), a second device's sync
# (blob downloads through nginx), and what an untrusted certificate does; a share link.
# Prints PASS/FAIL lines and SMOKE END.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/smoke/lib.sh
source tests/smoke/flows.sh
DEVICES=$SMOKE_TMP/devices
# shellcheck source=tests/lib/devices.sh
source tests/lib/devices.sh

: "${POUCH_CA_FILE:?POUCH_CA_FILE is not set (run through tests/tls/run.sh)}"
: "${POUCH_PLAIN_URL:?POUCH_PLAIN_URL is not set (run through tests/tls/run.sh)}"
PORT=${POUCH_URL##*:}
# said N WHAT: the CLI's summary line (ERR) counts exactly N WHAT.
# shellcheck disable=SC2317  # called below
said() { grep -qE "(: |, )$1 $2(,|\$)" <<<"$ERR"; }
HTTP_ORIGIN=http://127.0.0.1:$PORT

# --- the transport ------------------------------------------------------------------------------

expect_true "the stack's URL is https ($POUCH_URL)" test "$POUCH_URL" = "https://127.0.0.1:$PORT"
s_client() { echo | timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -servername 127.0.0.1 "$@" 2>&1; }
out=$(s_client -tls1_3 -CAfile "$POUCH_CA_FILE" -verify_ip 127.0.0.1 -verify_return_error)
expect_true "TLS 1.3 is served" grep -q '^New, TLSv1.3, Cipher is TLS_' <<<"$out"
expect_true "the certificate verifies for IP 127.0.0.1 against the CA file" \
    grep -q 'Verify return code: 0 (ok)' <<<"$out"
out=$(s_client -tls1_2 -CAfile "$POUCH_CA_FILE")
expect_true "TLS 1.2 is served with an ECDHE AEAD cipher" grep -Eq 'Cipher is ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)' <<<"$out"
# The client offers TLS 1.1 (OpenSSL's own floor lowered); the server must refuse it.
out=$(s_client -tls1_1 -cipher 'DEFAULT@SECLEVEL=0')
expect_true "TLS 1.1 is refused with a protocol_version alert ($(grep -m1 -o 'alert [a-z ]*' <<<"$out"))" \
    grep -q 'alert protocol version' <<<"$out"
out=$(s_client -tls1_2 -cipher 'AES128-SHA' 2>&1)
expect_true "a non-ECDHE cipher (AES128-SHA) is refused" grep -q 'Cipher is (NONE)\|handshake failure\|no cipher' <<<"$out"
expect_true "the plain http:// origin is not served on the https port" \
    test "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$HTTP_ORIGIN/v1/health")" = 400
check tls_protocols_are_mozilla_intermediate

req GET /v1/health
expect_status 200
expect_header Strict-Transport-Security max-age=63072000
expect_true "over HTTP/2 by default" test "$(curl -s -o /dev/null -w '%{http_version}' "$POUCH_URL/v1/health")" = 2
req GET /v1/no-such-path
expect_error 404 not_found
expect_header Strict-Transport-Security max-age=63072000
req GET /v1/account
expect_status 401
expect_header Strict-Transport-Security max-age=63072000
req GET /index.html
expect_header Strict-Transport-Security max-age=63072000
# nginx inherits add_header only into a location that sets none: every location of the TLS
# server that sets headers must repeat HSTS (a location added later without it shows here).
missing=$(awk '
    /^server \{/ { in_srv = 1; tls = 0; missing = ""; next }
    in_srv && /^    listen .* ssl/ { tls = 1 }
    in_srv && /^    location .*\{$/ { loc = $0; a = 0; h = 0; in_loc = 1; next }
    in_loc && /add_header/ { a = 1 }
    in_loc && /Strict-Transport-Security/ { h = 1 }
    in_loc && /^    \}/ { in_loc = 0; if (a && !h) missing = missing loc ";" }
    in_srv && /^\}/ { in_srv = 0; if (tls) printf "%s", missing }' "$POUCH_VAR/nginx/pouch.conf")
expect_true "the rendered TLS server has locations ($(grep -c '^    location' "$POUCH_VAR/nginx/pouch.conf"))" \
    grep -q '^    listen 127.0.0.1:[0-9]* ssl http2;$' "$POUCH_VAR/nginx/pouch.conf"
expect_true "every location of the TLS server that sets headers sets HSTS too (missing in: $missing)" \
    test -z "$missing"
check hsts_on_every_answer_errors_included

POUCH_URL_SAVED=$POUCH_URL
POUCH_URL=$POUCH_PLAIN_URL req GET '/v1/pouches/x/events?after=3'
expect_status 301
expect_header Location "https://127.0.0.1:$PORT/v1/pouches/x/events?after=3"
POUCH_URL=$POUCH_PLAIN_URL req GET /login "" -H 'Host: pouch.test'
expect_status 301
expect_header Location "https://pouch.test:$PORT/login"
POUCH_URL=$POUCH_PLAIN_URL req POST /v1/account/signup '{"email":"a@example.com"}'
expect_status 301
expect_true "no signup over plain http" test "$(sql "SELECT count(*) FROM users WHERE email = 'a@example.com'")" = 0
POUCH_URL=$POUCH_URL_SAVED
check plain_http_only_redirects_to_https

token=tls-$(flow_b64 16)
printf 'acme %s\n' "$token" >"$POUCH_VAR/acme/.well-known/acme-challenge/$token"
POUCH_URL=$POUCH_PLAIN_URL req GET "/.well-known/acme-challenge/$token"
expect_status 200
expect_header Content-Type text/plain
expect_true "the webroot's file ($BODY)" test "$BODY" = "acme $token"
POUCH_URL=$POUCH_PLAIN_URL req GET "/.well-known/acme-challenge/missing-$token"
expect_status 404
POUCH_URL=$POUCH_PLAIN_URL req GET "/.well-known/acme-challenge/../../stack.env"
expect_true "nothing outside the webroot ($STATUS)" test "$STATUS" != 200
POUCH_URL=$POUCH_URL_SAVED
check acme_challenges_are_served_from_the_webroot_over_http

# --- DPoP: htu is the configured https origin ---------------------------------------------------

# flows.sh names the web user's pouch POUCH, devices.sh the CLI binary: kept apart.
POUCH_CLI=$POUCH
flow_user tls || { echo "FAIL setup: no web user"; smoke_done; }
WEB_POUCH=$POUCH
expect_true "signed up over https" test -n "$WEB_TOKEN"
flow_cli_keys tls
before=$(sql "SELECT count(*) FROM cli_login_requests")
proof=$("$POUCHCTL" dpop --key "$DEVICE_KEY" --method POST --url "$HTTP_ORIGIN/v1/cli-auth/requests")
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
expect_true "no login request stored" test "$(sql "SELECT count(*) FROM cli_login_requests")" = "$before"
check dpop_proof_for_the_http_origin_is_refused_behind_tls

flow_start_login
expect_status 200
expect_true "a request stored" test "$(sql "SELECT count(*) FROM cli_login_requests WHERE id = '$REQ'")" = 1
expect_json .data.authorize_url "https://127.0.0.1:$PORT/cli/approve?request=$REQ"
check dpop_proof_for_the_https_origin_is_accepted_and_links_are_https

flow_device tls-device || smoke_fail "flow_device over https"
cli_req GET /v1/devices
expect_status 200
proof=$("$POUCHCTL" dpop --key "$DEVICE_KEY" --method GET --url "$HTTP_ORIGIN/v1/devices" --token "$ACCESS")
req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
check device_requests_need_proofs_for_the_https_origin

# --- the CLI pinned with --ca-file --------------------------------------------------------------

POUCH=$POUCH_CLI
A=$SMOKE_TMP/A B=$SMOKE_TMP/B
mkdir -p "$A" "$B"
web_account || { echo "FAIL setup: pouch-testweb signup over https"; smoke_done; }
LOGIN_ARGS="--ca-file $POUCH_CA_FILE" login laptop-a
expect_true "login exits 0 ($RC: $LOGIN_OUT)" test "$RC" = 0
expect_true "the link is the https one" grep -q "^  https://127.0.0.1:$PORT/cli/approve?request=$REQ#" <<<"$LOGIN_OUT"
expect_true "device.json remembers the CA file" test "$(jq -r .ca_file "$(cfg laptop-a)/device.json")" = "$POUCH_CA_FILE"
dev laptop-a status
expect_true "status names the pinned CA file" grep -q "^ca file:  $POUCH_CA_FILE" <<<"$OUT"
check cli_login_over_https_pinned_with_ca_file

echo "hello over tls" >"$A/hello.txt"
head -c $((3 * 1024 * 1024)) /dev/urandom >"$A/big.bin"
dev laptop-a push "$A"
expect_true "push exits 0 with the remembered CA file ($RC: $ERR)" test "$RC" = 0
expect_true "push reports 2 files sent" said 2 sent
blobs=$(sql "SELECT coalesce(sum(cardinality(blob_ids)), 0) FROM revisions WHERE pouch_id = '$POUCH_ID'")
expect_true "the 3 MB file went up as blobs ($blobs)" test "$blobs" -ge 1
LOGIN_ARGS="--ca-file $POUCH_CA_FILE" login laptop-b
dev laptop-b sync "$B"
expect_true "sync exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "B holds A's files byte for byte (blobs downloaded over https)" diff -r "$A" "$B"
check cli_push_and_sync_with_blobs_over_https

# Without the pin, or pinned to another certificate: a clear refusal, exit 4, nothing stored.
before=$(sql "SELECT count(*) FROM cli_login_requests")
dev nopin login --server "$POUCH_URL" --name nopin
expect_true "an untrusted certificate exits 4 ($RC)" test "$RC" = 4
expect_true "and says so ($ERR)" grep -q "TLS certificate is not trusted.*--ca-file" <<<"$ERR"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=other \
    -keyout "$SMOKE_TMP/other.key" -out "$SMOKE_TMP/other.pem" 2>/dev/null
dev other login --server "$POUCH_URL" --name other --ca-file "$SMOKE_TMP/other.pem"
expect_true "another pinned certificate exits 4 ($RC)" test "$RC" = 4
expect_true "and names the file ($ERR)" grep -q "not signed by $SMOKE_TMP/other.pem" <<<"$ERR"
dev laptop-a ls --ca-file "$SMOKE_TMP/other.pem"
expect_true "a later --ca-file overrides the remembered one ($RC: $ERR)" test "$RC" = 4
dev laptop-a ls --ca-file "$SMOKE_TMP/missing.pem"
expect_true "an unreadable --ca-file is a usage error ($RC: $ERR)" test "$RC" = 2
expect_true "no login request from any of them" test "$(sql "SELECT count(*) FROM cli_login_requests")" = "$before"
check cli_refuses_an_untrusted_certificate_clearly

# --- a share link -------------------------------------------------------------------------------

S=$(flow_uuid)
web_req POST "/v1/pouches/$WEB_POUCH/shares" "$(flow_share_body "$S")"
expect_status 201
req GET "/v1/shares/$S"
expect_status 200
expect_json .data.bundle c2VhbGVkLWJ1bmRsZQ
expect_header Strict-Transport-Security max-age=63072000
check share_link_opens_over_https

smoke_done
