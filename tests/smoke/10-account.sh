#!/usr/bin/env bash
# 10-account.sh -- the account group through nginx (decisions §4, §2, §3): signup, login,
# logout, the account overview, health, and every class of bad input answered with its exact
# status and code, with what is stored checked in PostgreSQL. Relies on tests/smoke/lib.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"

creds() { jq -nc --arg e "$1" --arg p "$2" '{email:$e,password:$p}'; }
run=$(date +%s%N)
email="ada.$run@example.com"
password="correct horse battery"

# --- health --------------------------------------------------------------------------------
req GET /v1/health
expect_status 200
expect_json .ok true
expect_json .data.status ok
expect_json .data.database ok
expect_json .data.redis ok
expect_json_match .meta.request_id '^[0-9a-f]{32}$'
expect_header X-Request-Id "$(json .meta.request_id)"
check health_reports_database_and_redis

# --- signup --------------------------------------------------------------------------------
req POST /v1/account/signup "$(creds "  ${email^^} " "$password")"
expect_status 201
expect_json_match .data.user_id '^[0-9a-f-]{36}$'
expect_json_match .data.storage_account_id '^[0-9a-f-]{36}$'
expect_json_match .data.session_token '^svc_ws_[A-Za-z0-9_-]{43}$'
expect_json_match .data.expires_at '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
user_id=$(json .data.user_id)
account_id=$(json .data.storage_account_id)
token=$(json .data.session_token)
expect_true "email stored trimmed and lower-cased" \
    test "$(sql "SELECT email FROM users WHERE id = '$user_id'")" = "$email"
expect_true "account on the default plan" \
    test "$(sql "SELECT p.slug FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = '$account_id'")" = free
expect_true "password stored as an Argon2id hash" \
    test "$(sql "SELECT left(password_hash, 10) FROM users WHERE id = '$user_id'")" = '$argon2id$'
expect_true "session stored as a hash, never the token" \
    test "$(sql "SELECT count(*) FROM web_sessions WHERE user_id = '$user_id' AND token_hash <> '$token'")" = 1
check signup_creates_user_account_and_session

req POST /v1/account/signup "$(creds "$email" "another password")"
expect_error 409 email_taken
expect_true "still one user" test "$(sql "SELECT count(*) FROM users WHERE email = '$email'")" = 1
check signup_with_a_taken_email_is_409

# --- account overview ----------------------------------------------------------------------
req GET /v1/account "" -H "Authorization: Bearer $token"
expect_status 200
expect_json .data.user_id "$user_id"
expect_json .data.email "$email"
expect_json .data.role user
expect_json .data.storage_account_id "$account_id"
expect_json .data.member_id null
expect_json .data.plan.slug free
expect_json .data.plan.is_default true
expect_json .data.plan.storage_bytes 1073741824
expect_json .data.plan.billing_product_id null
expect_json .data.usage.stored_bytes 0
expect_json .data.usage.reserved_bytes 0
expect_json .data.usage.pouches 0
check account_overview_shows_plan_and_usage

req GET /v1/account
expect_error 401 unauthenticated
check account_without_credentials_is_401

req GET /v1/account "" -H "Authorization: Bearer svc_ws_$(repeat A 43)"
expect_error 401 unauthenticated
check unknown_session_token_is_401

req GET /v1/account "" -H "Authorization: Bearer svc_at_$(repeat A 43)"
expect_error 401 unauthenticated
check access_token_sent_as_bearer_is_refused

req GET /v1/account "" -H "Authorization: Basic dXNlcjpwYXNz"
expect_error 401 unauthenticated
check unsupported_scheme_is_401

# --- login ---------------------------------------------------------------------------------
req POST /v1/account/login "$(creds "$email" "$password")"
expect_status 200
expect_json .data.user_id "$user_id"
expect_json_match .data.session_token '^svc_ws_[A-Za-z0-9_-]{43}$'
second=$(json .data.session_token)
expect_true "a second session" test "$second" != "$token"
check login_opens_a_new_session

req POST /v1/account/login "$(creds "$email" "wrong password!")"
expect_error 401 invalid_credentials
wrong_body=$(json .error.message)
check login_with_a_wrong_password_is_401

req POST /v1/account/login "$(creds "nobody.$run@example.com" "$password")"
expect_error 401 invalid_credentials
expect_json .error.message "$wrong_body"
check login_with_an_unknown_email_is_the_same_401

# --- logout --------------------------------------------------------------------------------
req POST /v1/account/logout "" -H "Authorization: Bearer $second"
expect_status 200
expect_json .data '{}'
expect_true "session row deleted" \
    test "$(sql "SELECT count(*) FROM web_sessions WHERE user_id = '$user_id'")" = 1
check logout_deletes_the_session

req GET /v1/account "" -H "Authorization: Bearer $second"
expect_error 401 unauthenticated
req GET /v1/account "" -H "Authorization: Bearer $token"
expect_status 200
check logged_out_token_stops_working_the_other_does_not

# --- bad input classes ---------------------------------------------------------------------
count_users() { sql "SELECT count(*) FROM users"; }
before=$(count_users)

req POST /v1/account/signup "$(creds "ct.$run@example.com" "$password")" -H 'Content-Type: text/plain'
expect_error 415 unsupported_media_type
check wrong_content_type_is_415

req POST /v1/account/signup "$(creds "cs.$run@example.com" "$password")" -H 'Content-Type: application/json; charset=utf-8'
expect_status 201
check json_with_charset_is_accepted
before=$((before + 1))

req POST /v1/account/signup '{"email": "x@example.com", "password": '
expect_error 400 invalid_json
check truncated_json_is_invalid_json

req POST /v1/account/signup '["x@example.com"]'
expect_error 400 invalid_json
check top_level_array_is_invalid_json

req POST /v1/account/signup '{"email":"d@example.com","password":"aaaaaaaaaaaa","password":"bbbbbbbbbbbb"}'
expect_error 400 invalid_json
check duplicate_key_is_invalid_json

req POST /v1/account/signup $'{"email":"\xff@example.com","password":"aaaaaaaaaaaa"}'
expect_error 400 invalid_json
check invalid_utf8_is_invalid_json

req POST /v1/account/signup '{"email":"u@example.com","password":"aaaaaaaaaaaa","plan":"gold"}'
expect_error 400 validation_failed
expect_json .error.field /plan
check unknown_field_is_rejected_with_its_pointer

req POST /v1/account/signup '{"email":"m@example.com"}'
expect_error 400 validation_failed
expect_json .error.field /password
check missing_field_is_rejected_with_its_pointer

req POST /v1/account/signup '{"email":42,"password":"aaaaaaaaaaaa"}'
expect_error 400 validation_failed
expect_json .error.field /email
check wrong_type_is_rejected

req POST /v1/account/signup '{"email":"not-an-email","password":"aaaaaaaaaaaa"}'
expect_error 400 validation_failed
expect_json .error.field /email
check malformed_email_is_rejected

req POST /v1/account/signup '{"email":"nul\u0000@example.com","password":"aaaaaaaaaaaa"}'
expect_error 400 validation_failed
expect_json .error.field /email
check nul_character_is_rejected

# email: 254 characters pass, 255 fail
domain="@example.com"
local254="e$run$(repeat a $((254 - ${#domain} - ${#run} - 1)))"
req POST /v1/account/signup "$(creds "$local254$domain" "$password")"
expect_status 201
check email_of_254_characters_is_accepted
req POST /v1/account/signup "$(creds "f$local254$domain" "$password")"
expect_error 400 validation_failed
expect_json .error.field /email
check email_of_255_characters_is_rejected

# password: 10..1024 characters, counted as characters (é is one)
req POST /v1/account/signup "$(creds "p10.$run@example.com" "éééééééééé")"
expect_status 201
check password_of_10_characters_is_accepted
req POST /v1/account/signup "$(creds "p9.$run@example.com" "ééééééééé")"
expect_error 400 validation_failed
expect_json .error.field /password
check password_of_9_characters_is_rejected
req POST /v1/account/signup "$(creds "p1024.$run@example.com" "$(repeat x 1024)")"
expect_status 201
check password_of_1024_characters_is_accepted
req POST /v1/account/signup "$(creds "p1025.$run@example.com" "$(repeat x 1025)")"
expect_error 400 validation_failed
expect_json .error.field /password
check password_of_1025_characters_is_rejected

req POST /v1/account/signup "{\"email\":\"big.$run@example.com\",\"password\":\"$(repeat x 70000)\"}"
expect_error 413 payload_too_large
check oversized_body_is_413

req POST "/v1/account/signup?invite=1" "$(creds "q.$run@example.com" "$password")"
expect_error 400 validation_failed
expect_json .error.field '?invite'
check unknown_query_parameter_is_rejected

req GET /v1/account/signup
expect_error 405 method_not_allowed
expect_header Allow POST
check wrong_method_is_405_with_allow

req GET /v1/account/nothing
expect_error 404 not_found
check unknown_account_path_is_404

expect_true "rejected requests stored nothing ($(count_users) users, want $((before + 3)))" \
    test "$(count_users)" = $((before + 3))
check bad_input_leaves_nothing_behind

smoke_done
