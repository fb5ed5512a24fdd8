#!/usr/bin/env bash
# cli.sh -- the hostile suite's CLI half: the real `pouch` against a malicious member
# (pouch-attacker, signing with an enrolled device's keys), a malicious server (the tampering
# proxy's rules) and a network attacker; one scenario per attack of issue 22, each on an account
# of its own, each checking the safe outcome: nothing outside the folder, no key or ciphertext
# under an attacker's key, nothing sent under a rolled-back generation, the sync goes on (exit 7
# for skipped items, 5 for trust failures). Prints PASS/FAIL lines and HOSTILE END.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/smoke/lib.sh
source tests/smoke/flows.sh
source tests/hostile/lib.sh

EVIL_LABEL='x/../../../../SOMEWHERE/PWNED'

# --- a member's label walks a conflict copy out of the folder ------------------------------------
# The attacker device X adds (with its own signature) a member M2 whose roster label is a path;
# the server serves that `add` and names M2 as the signer of a second artifact called f1.desktop.
# Today the victim writes the loser of the name clash to "f1 (conflict <label> <date>).desktop",
# i.e. three directories above its folder.
s_conflict_label() {
    account c1 && login c1-x && login c1-v || return 1
    local base=$T/c1 root=$T/c1/a/b/c/root
    mkdir -p "$root"
    echo "the victim's own launcher" >"$root/f1.desktop"
    dev c1-v sync "$root"
    [[ $RC == 0 ]] || { smoke_fail "setup: the victim's first sync failed ($RC: $(one "$ERR"))"; return 1; }
    attacker member-keys --out "$T/c1-m2" >/dev/null || return 1
    local m2 add x
    m2=$(jq -r .member_id "$T/c1-m2/member.json")
    x=$(member_id c1-x)
    add=$(attacker roster-add --config "$(cfg c1-x)" --member "$T/c1-m2" --label "$EVIL_LABEL") || return 1
    attacker revision --config "$(cfg c1-x)" --name f1.desktop --signer "$T/c1-m2" \
        --artifact ffffffff-ffff-4fff-bfff-ffffffffffff \
        --data $'[Desktop Entry]\nExec=sh -c "echo PWNED"\n' --commit >/dev/null || return 1
    rules "$(jq -n --argjson add "$add" --arg x "$x" --arg m2 "$m2" '[
        {name: "forged_add", method: "GET", path: "/v1/account/roster", caller: "cli",
         json_append_copy: [{to: "/data/items", set: {"/index": $add.index, "/statement": $add.statement, "/signature": $add.signature}}]},
        {name: "signer_is_m2", method: "GET", path: "/v1/pouches/[^/]+/(artifacts(/.*)?|events)", caller: "cli",
         response_body_sub: [["\"signer_member_id\":\"" + $x + "\"", "\"signer_member_id\":\"" + $m2 + "\""]]}]')"
    local before day1 day2 copies
    before=$(outside "$base" "$root")
    log_mark
    day1=$(date -u +%F)
    dev c1-v sync "$root"
    day2=$(date -u +%F)
    expect_served forged_add
    expect_served signer_is_m2
    expect_nothing_outside "$base" "$root" "$before"
    expect_true "no directory SOMEWHERE anywhere above the folder" test ! -e "$T/c1/a/SOMEWHERE" -a ! -e "$T/SOMEWHERE"
    expect_true "no directory is made inside the folder for the label ($(find "$root" -mindepth 1 -type d))" \
        test -z "$(find "$root" -mindepth 1 -type d)"
    # The copy is named from the label's file-name form (decisions §15: every character outside
    # [A-Za-z0-9 ._-] becomes _), in the folder itself.
    copies=$(find "$root" -mindepth 1 -maxdepth 1 ! -name f1.desktop -printf '%f|')
    expect_true "the attacker's version is the one copy, f1 (conflict x_.._.._.._.._SOMEWHERE_PWNED <date>).desktop (got $copies)" \
        test "$copies" = "f1 (conflict x_.._.._.._.._SOMEWHERE_PWNED $day1).desktop|" -o \
        "$copies" = "f1 (conflict x_.._.._.._.._SOMEWHERE_PWNED $day2).desktop|"
    expect_true "and holds the attacker's bytes" grep -q PWNED "$root/f1 (conflict x_.._.._.._.._SOMEWHERE_PWNED "*").desktop"
    expect_true "the victim's f1.desktop is untouched" grep -qx "the victim's own launcher" "$root/f1.desktop"
    expect_true "the sync exits 0 (got $RC: $(one "$ERR"))" test "$RC" = 0
}

# --- the service refuses a label outside the alphabet of decisions §15 ----------------------------
s_service_refuses_bad_labels() {
    account c13 && login c13-v || return 1
    flow_cli_keys c13 || return 1
    local name requests
    requests=$(sql "SELECT count(*) FROM cli_login_requests")
    # Byte escapes, not \u: bash writes $'\u202e' as the six characters "\u202E" in a C locale.
    for name in "$EVIL_LABEL" $'evil\x1b[8mhidden' $'\xe2\x80\xaegnp.exe' ' padded' 'a\b'; do
        flow_start_login "$(flow_start_body | jq -c --arg n "$name" '.device_name = $n')"
        expect_true "login start with device_name $(printf '%q' "$name") is 400 invalid_field /device_name (got $STATUS $(json .error.code) $(json .error.field))" \
            test "$STATUS $(json .error.code) $(json .error.field)" = "400 invalid_field /device_name"
    done
    expect_true "no login request was stored for them" test "$(growth "$requests" "$(sql "SELECT count(*) FROM cli_login_requests")")" = 0
    flow_start_login "$(flow_start_body | jq -c '.device_name = "c13 laptop"')"
    expect_true "the same start with a name inside the alphabet is 200 (got $STATUS $(json .error.code))" test "$STATUS" = 200
    expect_true "and stored as sent" test "$(sql "SELECT device_name FROM cli_login_requests WHERE id = '$REQ'")" = "c13 laptop"
    local token
    token=$(jq -r .session_token "$WEB_STATE/web.json")
    req PATCH "/v1/devices/$(device_id c13-v)" "$(jq -nc --arg n "$EVIL_LABEL" '{name: $n}')" -H "Authorization: Bearer $token"
    expect_true "rename to a path is 400 invalid_field /name (got $STATUS $(json .error.code) $(json .error.field))" \
        test "$STATUS $(json .error.code) $(json .error.field)" = "400 invalid_field /name"
    expect_true "the name is unchanged" test "$(sql "SELECT name FROM devices WHERE id = '$(device_id c13-v)'")" = c13-v
}

# --- names that leave the folder are skipped, reported, and the sync goes on -------------------
s_unsafe_names() {
    account c2 && login c2-x && login c2-v || return 1
    local base=$T/c2 root=$T/c2/x/root n
    mkdir -p "$root"
    for n in ../c2-escaped sub/../../c2-escaped2 /c2-absolute ./c2-dot .pouch-tmp-c2; do
        attacker revision --config "$(cfg c2-x)" --name "$n" --data "planted as $n" --commit >/dev/null || return 1
    done
    attacker revision --config "$(cfg c2-x)" --name c2-ok.txt --data "a fine file" --commit >/dev/null || return 1
    local before
    before=$(outside "$base" "$root")
    dev c2-v sync "$root"
    expect_nothing_outside "$base" "$root" "$before"
    expect_true "nor at the root of the file system" test ! -e /c2-absolute
    expect_true "no planted file anywhere in the folder ($(grep -rl planted "$root"))" test -z "$(grep -rl planted "$root")"
    expect_true "all five are reported ($(one "$ERR"))" test "$(grep -c 'is not a safe relative path' <<<"$ERR")" = 5
    expect_true "the other item is applied" grep -qx "a fine file" "$root/c2-ok.txt"
    expect_true "the sync exits 7, done with skipped items (got $RC: $(one "$ERR"))" test "$RC" = 7
    echo "written later" >"$root/c2-local.txt"
    dev c2-v sync "$root"
    expect_true "the next sync still reports them: exit 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
    dev c2-x ls "$POUCH_ID" --json
    expect_true "and still pushes local files" \
        test "$(jq '[.items[] | select(.name == "c2-local.txt")] | length' <<<"$OUT")" = 1
}

# --- symlinks in the folder are never followed ----------------------------------------------------
# The victim keeps a symlink lnk -> OUTSIDE (a private directory). The attacker pushes folder
# artifacts lnk and lnk/made-by-attacker and a file lnk/planted.txt. Today make_dirs follows the
# symlink: it creates OUTSIDE/made-by-attacker and chmods OUTSIDE to 0755.
s_symlinks() {
    account c3 && login c3-x && login c3-v || return 1
    local root=$T/c3/root outside_dir=$T/c3/outside
    mkdir -p "$root" "$outside_dir"
    echo "private" >"$outside_dir/keep"
    chmod 700 "$outside_dir"
    ln -s "$outside_dir" "$root/lnk"
    attacker revision --config "$(cfg c3-x)" --name lnk --kind folder --mode 0777 --commit >/dev/null || return 1
    attacker revision --config "$(cfg c3-x)" --name lnk/made-by-attacker --kind folder --commit >/dev/null || return 1
    attacker revision --config "$(cfg c3-x)" --name lnk/planted.txt --data "planted" --commit >/dev/null || return 1
    attacker revision --config "$(cfg c3-x)" --name c3-ok.txt --data "a fine file" --commit >/dev/null || return 1
    dev c3-v sync "$root"
    expect_true "OUTSIDE keeps mode 700 (got $(stat -c %a "$outside_dir"))" test "$(stat -c %a "$outside_dir")" = 700
    expect_true "nothing is created in OUTSIDE ($(ls -A "$outside_dir" | tr '\n' ' '))" test "$(ls -A "$outside_dir")" = keep
    expect_true "lnk is still the victim's symlink" test -L "$root/lnk"
    expect_true "the other item is applied" grep -qx "a fine file" "$root/c3-ok.txt"
    expect_true "the sync exits 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
}

# --- one unwritable item does not stop the device -------------------------------------------------
s_unwritable_item() {
    account c4 && login c4-x && login c4-v || return 1
    local root=$T/c4/root
    mkdir -p "$root"
    echo "a plain file" >"$root/a"
    dev c4-v sync "$root"
    [[ $RC == 0 ]] || { smoke_fail "setup: first sync $RC: $(one "$ERR")"; return 1; }
    attacker revision --config "$(cfg c4-x)" --name a/x --data "under a" --commit >/dev/null || return 1
    attacker revision --config "$(cfg c4-x)" --name c4-ok.txt --data "a fine file" --commit >/dev/null || return 1
    echo "new here" >"$root/local-1.txt"
    dev c4-v sync "$root"
    expect_true "the sync exits 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
    expect_true "a stays the local file" grep -qx "a plain file" "$root/a"
    expect_true "the other remote item is applied" grep -qx "a fine file" "$root/c4-ok.txt"
    echo "newer here" >"$root/local-2.txt"
    dev c4-v sync "$root"
    expect_true "the next sync exits 7 again, the item kept for later (got $RC: $(one "$ERR"))" test "$RC" = 7
    dev c4-x ls "$POUCH_ID" --json
    expect_true "both local files were pushed ($(jq -c '[.items[].name]' <<<"$OUT"))" \
        test "$(jq '[.items[] | select(.name == "local-1.txt" or .name == "local-2.txt")] | length' <<<"$OUT")" = 2
}

# --- pulled modes ---------------------------------------------------------------------------------
s_modes() {
    account c5 && login c5-x && login c5-v || return 1
    local root=$T/c5/root m
    mkdir -p "$root"
    for m in 0777 04755 02775 01777 0666 0000 0700 0644; do
        attacker revision --config "$(cfg c5-x)" --name "m$m" --data "mode $m" --mode "$m" --commit >/dev/null || return 1
    done
    dev c5-v sync "$root"
    local want
    for m in 0777:755 04755:755 02775:755 01777:755 0666:644 0000:600 0700:700 0644:644; do
        want=${m#*:}
        expect_true "a file sent with mode ${m%:*} is written ${want} (got $(stat -c %a "$root/m${m%:*}" 2>&1))" \
            test "$(stat -c %a "$root/m${m%:*}" 2>&1)" = "$want"
    done
    expect_true "the sync exits 0 (got $RC: $(one "$ERR"))" test "$RC" = 0
}

# --- a rolled-back key generation -----------------------------------------------------------------
# The pouch moved to key_gen 2 (a rotation, after a device left) and the victim holds both keys.
# The server then says the pouch is at key_gen 1 again, a key a revoked device still has.
s_rollback() {
    account c6 && login c6-v || return 1
    local root=$T/c6/root
    mkdir -p "$root"
    web rotate >/dev/null || return 1
    echo "under generation 2" >"$root/gen2.txt"
    dev c6-v sync "$root"
    [[ $RC == 0 ]] || { smoke_fail "setup: sync at gen 2 failed ($RC: $(one "$ERR"))"; return 1; }
    echo "from the web, generation 2" >"$T/c6-web.txt"
    web put from-web.txt --file "$T/c6-web.txt" >/dev/null || return 1
    rules "$(jq -n --arg p "$POUCH_ID" '[
        {name: "rollback", method: "GET", path: ("/v1/pouches/" + $p), caller: "cli", json_set: {"/data/key_gen": 1}},
        {name: "rollback_list", method: "GET", path: "/v1/pouches", caller: "cli",
         response_body_sub: [["(\"id\":\"" + $p + "\"[^{}]*?\"key_gen\":)[0-9]+", "\\g<1>1"]]}]')"
    local revs
    revs=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")
    echo "written after the rollback" >"$root/secret.txt"
    log_mark
    dev c6-v sync "$root"
    expect_served rollback
    expect_true "no op under key_gen 1 left the client ($(ops_sent "$POUCH_ID" 1) sent)" test "$(ops_sent "$POUCH_ID" 1)" = 0
    expect_true "nor any other: the client writes nothing to a rolled-back pouch ($(commits_sent "$POUCH_ID") commits)" \
        test "$(commits_sent "$POUCH_ID")" = 0
    expect_true "nothing was stored ($revs revisions before, $(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'") after)" \
        test "$(growth "$revs" "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")")" = 0
    expect_true "the sync exits 5 (got $RC: $(one "$ERR"))" test "$RC" = 5
    expect_true "what could be pulled was pulled" grep -qx "from the web, generation 2" "$root/from-web.txt"
    expect_true "the local change stays" test -f "$root/secret.txt"
    expect_true "keys.json keeps generation 2 as the pouch's high-water mark" \
        test "$(jq -r --arg p "$POUCH_ID" '.pouches[] | select(.id == $p) | .high' "$(cfg c6-v)/keys.json")" = 2
}

# --- key envelopes and revisions by a removed member ----------------------------------------------
# X wrote a file, then was revoked (the pouch rotated to key_gen 2). X's keys leaked: with the
# server, X offers the victim its own key for generation 2 (an envelope X signs, listed before the
# browser's) and a revision under it. Today the victim takes X's key, writes its next file under
# it (readable by X, not by the account's browser) and applies X's revision.
s_removed_member() {
    account c7 && login c7-x && login c7-v || return 1
    attacker revision --config "$(cfg c7-x)" --name before-removal.txt --data "written before the removal" --commit >/dev/null || return 1
    web revoke "$(device_id c7-x)" >/dev/null || return 1
    [[ $(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'") == 2 ]] || { smoke_fail "setup: no rotation to 2"; return 1; }
    local key env op
    key=$(hex32)
    env=$(attacker envelope --config "$(cfg c7-x)" --pouch "$POUCH_ID" --key-gen 2 --key "$key" --to-config "$(cfg c7-v)") || return 1
    op=$(attacker revision --config "$(cfg c7-x)" --pouch "$POUCH_ID" --key-gen 2 --key "$key" --name planted-by-removed.txt --data "from a removed member") || return 1
    rules "$(jq -n --arg p "$POUCH_ID" --argjson e "$env" --argjson op "$op" '[
        {name: "envelope_by_removed", method: "GET", path: ("/v1/pouches/" + $p + "/key-envelopes"), caller: "cli",
         json_append_copy: [{to: "/data/items", from: "/data/items/0", at: 0,
           set: {"/pouch_id": $e.pouch_id, "/member_id": $e.member_id, "/key_gen": $e.key_gen, "/hpke_enc": $e.hpke_enc,
                 "/ciphertext": $e.ciphertext, "/created_by_member": $e.created_by_member, "/signature": $e.signature}}]},
        {name: "revision_by_removed", method: "GET", path: ("/v1/pouches/" + $p + "/artifacts"), caller: "cli",
         json_append_copy: [{to: "/data/items", from: "/data/items/0",
           set: {"/id": $op.artifact_id, "/head/id": $op.revision_id, "/head/artifact_id": $op.artifact_id,
                 "/head/envelope": $op.envelope, "/head/signature": $op.signature, "/head/key_gen": 2,
                 "/head/signer_member_id": $op.signer_member_id}}]}]')"
    local root=$T/c7/root
    mkdir -p "$root"
    echo "the victim's secret" >"$root/secret.txt"
    log_mark
    dev c7-v sync "$root"
    expect_served envelope_by_removed
    expect_served revision_by_removed
    expect_true "the removed member's revision under its own key is not applied" test ! -e "$root/planted-by-removed.txt"
    expect_true "its revision written before the removal is" grep -qx "written before the removal" "$root/before-removal.txt"
    rules '[]'
    web get secret.txt >"$T/c7-got.txt" 2>"$T/c7-get.err"
    expect_true "the victim's new file opens with the account's real key of generation 2 ($(cat "$T/c7-get.err"))" \
        grep -qx "the victim's secret" "$T/c7-got.txt"
    local key64 held
    key64=$(printf %s "$key" | xxd -r -p | base64 -w0 | tr '+/' '-_' | tr -d =)
    held=$(jq -c --arg p "$POUCH_ID" '[.pouches[] | select(.id == $p) | .keys[] | select(.key_gen == 2)]' "$(cfg c7-v)/keys.json")
    expect_true "keys.json holds one key of generation 2, the browser member's, not the removed member's ($held)" \
        test "$(jq -r --arg k "$key64" '[length, (.[0].creator), (.[0].key == $k)] | join(" ")' <<<"$held")" = \
        "1 $(jq -r .member_id "$WEB_STATE/web.json") false"
    expect_true "the sync exits 7: the revision was skipped and reported (got $RC: $(one "$ERR"))" test "$RC" = 7
}

# --- a folder of more than 1,024 files --------------------------------------------------------------
s_many_files() {
    account c8 && login c8-v || return 1
    local root=$T/c8/root copy=$T/c8/copy i
    mkdir -p "$root/d"
    for i in $(seq 1 1100); do printf 'file %d\n' "$i" >"$root/d/f$i.txt"; done
    dev c8-v push "$root"
    expect_true "push of 1,100 files exits 0 (got $RC: $(one "$ERR"))" test "$RC" = 0
    dev c8-v status
    expect_true "status works afterwards (got $RC: $(one "$ERR"))" test "$RC" = 0
    echo "one more" >"$root/d/f1101.txt"
    dev c8-v sync "$root"
    expect_true "sync works afterwards (got $RC: $(one "$ERR"))" test "$RC" = 0
    dev c8-v pull "$copy"
    expect_true "pull into another folder works (got $RC: $(one "$ERR"))" test "$RC" = 0
    expect_true "and brings the 1,101 files ($(find "$copy" -type f | wc -l))" test "$(find "$copy" -type f | wc -l)" = 1101
}

# --- plain http:// to another computer ------------------------------------------------------------
# A listener on a non-loopback address of this machine records connections: the login must not
# send anything in the clear to it, unless --insecure-http says so.
s_plain_http() {
    local host port listen_on lpid
    host=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -n 1)
    listen_on=$host
    if [[ -z $host ]]; then host=0.0.0.0 listen_on=127.0.0.1; fi
    rm -f "$T/c9.port"
    : >"$T/c9.connections"
    # Records each connection (one line) and closes it; its port (picked by the kernel) in c9.port.
    python3 -c '
import os, socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0)); s.listen(16); s.settimeout(120)
open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1])); os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    try: c, _ = s.accept()
    except socket.timeout: break
    with open(sys.argv[3], "a") as f: f.write("connection\n")
    c.close()
' "$listen_on" "$T/c9.port" "$T/c9.connections" &
    lpid=$!
    retry 30 test -s "$T/c9.port" || { smoke_fail "setup: the listener did not start"; kill "$lpid"; return 1; }
    port=$(cat "$T/c9.port")
    POUCH_CMD_TIMEOUT=30 dev c9 login --server "http://$host:$port" --name c9
    expect_true "login to http://$host is refused as a usage error: exit 2 (got $RC: $(one "$ERR"))" test "$RC" = 2
    # The listener accepts in order: once it has recorded a probe connection made now, it has
    # recorded any connection the login made before it.
    python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 10).close()' "$listen_on" "$port"
    retry 30 test -s "$T/c9.connections"
    expect_true "and nothing was sent there (the listener saw $(($(wc -l <"$T/c9.connections") - 1)) connections besides the probe)" \
        test "$(wc -l <"$T/c9.connections")" = 1
    : >"$T/c9.connections"
    # With the flag the login connects (and, finding no server there, would retry until stopped).
    rm -rf "$T/c9"
    (XDG_CONFIG_HOME=$T/c9 exec timeout 60 "$POUCH" login --server "http://$host:$port" --name c9 --insecure-http \
        >"$T/c9.insecure" 2>&1 </dev/null) &
    local login_pid=$!
    expect_true "--insecure-http lifts it: the login tries that server ($(one "$(cat "$T/c9.insecure")"))" \
        retry 30 test -s "$T/c9.connections"
    kill "$login_pid" 2>/dev/null
    wait "$login_pid" 2>/dev/null
    kill "$lpid" 2>/dev/null
    wait "$lpid" 2>/dev/null
    return 0
}

# --- the server's authorize_url is compared, never shown as it came -------------------------------
s_authorize_url() {
    account c10 || return 1
    local what url name want
    for what in escape fragment origin; do
        case $what in
            escape) url='${/data/authorize_url}\u001b[8m' ;;
            fragment) url='${/data/authorize_url}#x' ;;
            origin) url='http://evil.example/cli/approve?request=${/data/request_id}' ;;
        esac
        rules "$(jq -n --arg u "$url" '[{name: "authorize_url", method: "POST", path: "/v1/cli-auth/requests", json_set: {"/data/authorize_url": ($u | gsub("\\\\u001b"; "\u001b"))}}]')"
        name=c10-$what
        log_mark
        POUCH_CMD_TIMEOUT=30 dev "$name" login --server "$PROXY" --name "$name"
        printf '%s\n%s\n' "$OUT" "$ERR" >"$T/c10.out"
        printf '%s\n' "$ERR" >"$T/$name.err"
        expect_served authorize_url
        expect_true "$what in authorize_url: the login stops with exit 5 (got $RC: $(one "$ERR"))" test "$RC" = 5
        expect_true "$what in authorize_url: no control character reaches the terminal" bash -c '! has_raw_controls "$1"' _ "$T/c10.out"
        want="$PROXY/cli/approve?request="
        expect_true "$what in authorize_url: no approval link is offered" bash -c '! grep -q "^ *$1" "$2"' _ "$want" "$T/c10.out"
        expect_true "$what in authorize_url: nor a code ($(one "$OUT"))" bash -c '! grep -qE "(^|[^0-9a-f-])[0-9]{4}-[0-9]{4}-[0-9]{4}(\$|[^0-9a-f-])" "$1"' _ "$T/c10.out"
        expect_true "$what in authorize_url: no pending login is kept" test ! -e "$(cfg "$name")/login.json"
    done
    expect_true "the escape is shown as U+FFFD ($(one "$(cat "$T/c10-escape.err")"))" \
        grep -qE "/cli/approve\?request=[0-9a-f-]{36}"$'\xef\xbf\xbd'"\[8m" "$T/c10-escape.err"
}
export -f has_raw_controls

# --- everything the server sends is printed defanged ------------------------------------------------
s_defanged_text() {
    account c12 && login c12-v || return 1
    local fffd=$'\xef\xbf\xbd'
    rules "$(jq -n '[{name: "device_names", method: "GET", path: "/v1/devices", caller: "cli",
        json_set: {"/data/items/0/name": "c12\u001b]0;owned\u0007\u001b[2J\u202egnp.exe\u0085"}}]')"
    log_mark
    dev c12-v devices
    printf '%s\n%s\n' "$OUT" "$ERR" >"$T/c12.out"
    expect_served device_names
    expect_true "devices ran ($RC: $(one "$ERR"))" test "$RC" = 0
    expect_true "device names are printed without controls" bash -c '! has_raw_controls "$1"' _ "$T/c12.out"
    # (the listing cuts a name to its column: the first 21 characters are checked)
    expect_true "each control shown as U+FFFD ($(one "$OUT"))" \
        grep -qF "c12$fffd]0;owned$fffd$fffd[2J${fffd}gnp" "$T/c12.out"
    rules "$(jq -n '[{name: "error_text", method: "GET", path: "/v1/devices", caller: "cli",
        respond: {status: 400, body: {ok: false, error: {code: "bad\u001b[2J", message: "\u001b]0;owned\u0007\u001b[8mhidden \u202eevil"}, meta: {request_id: "00000000000000000000000000000000"}}}}]')"
    log_mark
    dev c12-v devices
    printf '%s\n%s\n' "$OUT" "$ERR" >"$T/c12.out"
    expect_served error_text
    expect_true "the refused request exits 1 ($RC: $(one "$ERR"))" test "$RC" = 1
    expect_true "an error message is printed without controls" bash -c '! has_raw_controls "$1"' _ "$T/c12.out"
    expect_true "each control shown as U+FFFD ($(one "$ERR"))" \
        grep -qF "bad$fffd[2J: $fffd]0;owned$fffd$fffd[8mhidden ${fffd}evil" "$T/c12.out"
}

# --- the approval link and code are the terminal's own --------------------------------------------
s_approval_binding() {
    account c11 && login c11-v || return 1
    local jkt fp code keys
    jkt=$("$POUCHCTL" jwk --key "$(cfg c11-v)/sign.pem" | jq -r .jkt)
    fp="${jkt:0:4} ${jkt:4:4} ${jkt:8:4} ${jkt:12:4}"
    keys=$({ "$POUCHCTL" jwk --key "$(cfg c11-v)/sign.pem"; "$POUCHCTL" jwk --key "$(cfg c11-v)/enc.pem"; } |
        jq -rs '[.[].jwk | .x, .y] | join(".")')
    expect_true "the link is built from --server, the request id, the device's own keys and a nonce ($LINK)" \
        grep -qE "^${PROXY//./\\.}/cli/approve\\?request=$REQ#keys=${keys//./\\.}&n=[A-Za-z0-9_-]{22}\$" <<<"$LINK"
    expect_true "the request it names is this device's login" \
        test "$(sql "SELECT device_name FROM cli_login_requests WHERE id = '$REQ'")" = c11-v
    code=$(sed -nE 's/^then type this code on the page: ([0-9]{4}-[0-9]{4}-[0-9]{4})$/\1/p' <<<"$LOGIN_OUT")
    expect_true "the terminal shows a 12-digit code, the one the page accepted ($code)" test -n "$code" -a "$code" = "$CODE"
    expect_true "and the key fingerprint $fp" grep -qxF "The page must show this device key fingerprint: $fp" <<<"$LOGIN_OUT"
    local n
    n=$(sed -n 's/.*&n=\([A-Za-z0-9_-]\{22\}\).*/\1/p' <<<"$LINK")
    expect_true "the nonce never reached the server" \
        test -n "$n" -a "$(grep -c -- "$n" "$HOSTILE_LOG" || true)" = 0
}

# --- a blob id from decrypted content never reaches a URL -----------------------------------------
s_blob_id() {
    account c14 && login c14-x && login c14-v || return 1
    local z h
    z=$(head -c 32 /dev/zero | base64 -w0 | tr '+/' '-_' | tr -d =)
    h=$(flow_b64 32)
    attacker revision --config "$(cfg c14-x)" --name trap.bin \
        --chunks "$(jq -nc --arg k "$z" --arg h "$h" '[{blob_id: "../../../account?hostile=cli", size: 70000, key: $k, hash: $h}]')" \
        --commit >/dev/null || return 1
    attacker revision --config "$(cfg c14-x)" --name trap2.bin \
        --chunks "$(jq -nc --arg k "$z" --arg h "$h" '[{blob_id: "x?hostile=cli2", size: 70000, key: $k, hash: $h}]')" \
        --commit >/dev/null || return 1
    attacker revision --config "$(cfg c14-x)" --name c14-ok.txt --data "a fine file" --commit >/dev/null || return 1
    local root=$T/c14/root
    mkdir -p "$root"
    log_mark
    dev c14-v sync "$root"
    expect_true "no request carried the content's blob id ($(requests_matching hostile=))" test "$(requests_matching 'hostile=')" = 0
    expect_true "the other item is applied" grep -qx "a fine file" "$root/c14-ok.txt"
    expect_true "the sync exits 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
}

# --- a put listed as a delete ---------------------------------------------------------------------
# A revision's `kind` is the service's word, not signed. The server lists the browser's new
# version of a file as a delete: a client that trusted it removed its copy (any file, every
# device). The victim must refuse that revision (exit 7) and keep the file.
s_kind_flip() {
    account c15 && login c15-v || return 1
    local root=$T/c15/root
    mkdir -p "$root"
    echo "version 1" >"$T/c15-web.txt"
    web put kept.txt --file "$T/c15-web.txt" >/dev/null || return 1
    dev c15-v sync "$root"
    [[ $RC == 0 && -f $root/kept.txt ]] || { smoke_fail "setup: first sync $RC: $(one "$ERR")"; return 1; }
    echo "version 2" >"$T/c15-web.txt"
    web put kept.txt --file "$T/c15-web.txt" >/dev/null || return 1
    rules '[{"name": "put_as_delete", "method": "GET", "path": "/v1/pouches/[^/]+/(artifacts(/.*)?|events)", "caller": "cli",
             "response_body_sub": [["\"kind\":\"put\"", "\"kind\":\"delete\""]]}]'
    dev c15-v sync "$root"
    expect_true "the file is not removed" grep -qx "version 1" "$root/kept.txt"
    expect_true "the sync exits 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
    expect_true "and says the kind disagrees with the signed content" grep -q "lists it as a delete" <<<"$ERR"
}

# --- a commit answered stale_key_gen ------------------------------------------------------------
# The pouch moved to another generation while a push was under way (here the server says so of
# every commit). Nothing may leave under the old key after that answer: each round of the push
# sends its first batch only, then plans again; the batches already sealed behind it stay here.
s_stale_key_gen() {
    account c16 && login c16-v || return 1
    local root=$T/c16/root i commits
    mkdir -p "$root"
    for i in $(seq 1 120); do printf 'file %d\n' "$i" >"$root/f$i.txt"; done
    rules '[{"name": "stale", "method": "POST", "path": "/v1/pouches/[^/]+/operations", "caller": "cli",
             "respond": {"status": 200, "body": {"ok": true, "meta": {"request_id": "00000000000000000000000000000000"},
                         "data": {"results": [{"index": 0, "status": "rejected", "code": "stale_key_gen"}]}}}}]'
    log_mark
    dev c16-v push "$root"
    commits=$(log_since | jq -s --arg p "/v1/pouches/$POUCH_ID/operations" \
        '[.[] | select(.method == "POST" and .upstream_path == $p)] | length')
    expect_true "every commit sent was a round's first batch of 50 ($commits commits, $(ops_sent "$POUCH_ID" 1) ops)" \
        test "$commits" -ge 1 -a "$(ops_sent "$POUCH_ID" 1)" = $((commits * 50))
    expect_true "nothing was stored" test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")" = 0
    expect_true "and the push does not call that a success: exit 7 (got $RC: $(one "$ERR"))" test "$RC" = 7
}

# --- sharing between accounts (issue 24) ---------------------------------------------------------

# sharer NAME: a fresh account with its identity and one device NAME-d; WEB_STATE stays NAME's.
sharer() {
    account "$1" && web identity && login "$1-d"
}
email_of() { jq -r .email "$T/web-$1/web.json"; }
account_of() { jq -r .account_id "$T/web-$1/web.json"; }

# A server that swaps an identity: the lookup (and an invitation) name the same account with an
# identity it made itself, bound to a genesis it made too (a server can sign anything with keys
# of its own). The device pinned the real one: it refuses, and accepts nothing.
s_identity_swap() {
    sharer c17a && sharer c17b || return 1
    local ada ada_email fake=$T/c17-fake gen st inv
    ada=$(account_of c17a) ada_email=$(email_of c17a)
    WEB_STATE=$T/web-c17b
    dev c17b-d verify "$ada_email" --json
    expect_true "the real identity is pinned first ($RC: $(one "$ERR"))" test "$RC" = 0
    local pins_before
    pins_before=$(cat "$(cfg c17b-d)/identities.json")
    mkdir -p "$fake"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$fake/member.pem" 2>/dev/null || return 1
    gen=$("$POUCHCTL" genesis-statement --member "$(cat /proc/sys/kernel/random/uuid)" --key "$fake/member.pem") || return 1
    st=$("$POUCHCTL" identity-statement --account "$ada" --genesis "$gen" \
        --key "$fake/member.pem" --sign-out "$fake/isign.pem" --enc-out "$fake/ienc.pem") || return 1
    rules "$(jq -n --argjson g "$gen" --argjson s "$st" '[
        {name: "swap_lookup", method: "GET", path: "/v1/identities", caller: "cli",
         json_set: {"/data/identity": {statement: $s.statement, signature: $s.signature},
                    "/data/genesis": {statement: $g.statement, signature: $g.signature}}},
        {name: "swap_inviter", method: "GET", path: "/v1/invitations", caller: "cli",
         json_set: {"/data/items/0/inviter_identity": {statement: $s.statement, signature: $s.signature,
                    genesis: {statement: $g.statement, signature: $g.signature}}}}]')"
    log_mark
    dev c17b-d verify "$ada_email"
    expect_served swap_lookup
    expect_true "pouch verify refuses the changed identity: exit 5 naming the account (got $RC: $(one "$ERR"))" \
        test "$RC" = 5 -a -n "$(grep -o "$ada" <<<"$ERR")"
    expect_true "and keeps the pin" test "$(cat "$(cfg c17b-d)/identities.json")" = "$pins_before"
    WEB_STATE=$T/web-c17a
    inv=$(web invite --email "$(email_of c17b)" --role write) || return 1
    log_mark
    dev c17b-d invitations accept "$inv"
    expect_served swap_inviter
    expect_true "accepting an invitation whose inviter's identity changed: exit 5 (got $RC: $(one "$ERR"))" test "$RC" = 5
    expect_true "no acceptance was sent" test "$(requests_matching "/v1/invitations/$inv/accept")" = 0
    expect_true "the invitation is still pending" test "$(sql "SELECT state FROM invitations WHERE id = '$inv'")" = pending
    rules '[]'
    dev c17b-d invitations accept "$inv"
    expect_true "with the real identity it is accepted (got $RC: $(one "$ERR"))" test "$RC" = 0
}

# A member of an account whose role is read signs a revision: the service refuses the commit,
# and when a server serves it anyway every client of the pouch refuses it.
s_read_member_forges_a_write() {
    sharer c18a && sharer c18c || return 1
    local shared inv op root=$T/c18/root
    shared=$(jq -r .pouch_id "$T/web-c18a/web.json")
    WEB_STATE=$T/web-c18a
    inv=$(web invite --email "$(email_of c18c)" --role read) || return 1
    dev c18c-d invitations accept "$inv"
    expect_true "the read invitation is accepted ($RC: $(one "$ERR"))" test "$RC" = 0
    attacker revision --config "$(cfg c18c-d)" --pouch "$shared" --name forged.txt --data "written by a reader" --commit >"$T/c18.out" 2>"$T/c18.err"
    expect_true "the service refuses the reader's commit ($(one "$(cat "$T/c18.err")"))" grep -q insufficient_role "$T/c18.err"
    expect_true "and stores nothing" test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$shared'")" = 0
    op=$(attacker revision --config "$(cfg c18c-d)" --pouch "$shared" --name forged.txt --data "written by a reader") || return 1
    mkdir -p "$root"
    echo "the owner's file" >"$root/mine.txt"
    dev c18a-d sync "$root" --pouch "$shared"
    expect_true "the owner's device syncs the pouch ($RC: $(one "$ERR"))" test "$RC" = 0
    rules "$(jq -n --arg p "$shared" --argjson op "$op" '[
        {name: "forged_by_reader", method: "GET", path: ("/v1/pouches/" + $p + "/artifacts"), caller: "cli",
         json_append_copy: [{to: "/data/items", from: "/data/items/0",
           set: {"/id": $op.artifact_id, "/head/id": $op.revision_id, "/head/artifact_id": $op.artifact_id,
                 "/head/envelope": $op.envelope, "/head/signature": $op.signature, "/head/key_gen": $op.key_gen,
                 "/head/signer_member_id": $op.signer_member_id}}]}]')"
    mkdir -p "$T/c18/fresh"
    log_mark
    dev c18a-d pull "$T/c18/fresh" --pouch "$shared"
    expect_served forged_by_reader
    expect_true "the owner's device does not write the reader's forged file" test ! -e "$T/c18/fresh/forged.txt"
    expect_true "it says the role did not allow it, exit 7 (got $RC: $(one "$ERR"))" \
        test "$RC" = 7 -a -n "$(grep -o 'did not allow writing' <<<"$ERR")"
}

scenario member_label_cannot_walk_a_conflict_copy_out_of_the_folder s_conflict_label
scenario service_refuses_labels_outside_the_alphabet s_service_refuses_bad_labels
scenario unsafe_names_are_skipped_reported_and_the_sync_goes_on s_unsafe_names
scenario symlinks_in_the_folder_are_never_followed s_symlinks
scenario an_unwritable_item_does_not_stop_the_device s_unwritable_item
scenario pulled_modes_never_grant_group_or_other_write s_modes
scenario a_rolled_back_key_generation_is_refused s_rollback
scenario envelopes_and_revisions_of_a_removed_member_are_refused s_removed_member
scenario a_folder_of_1100_files_keeps_working s_many_files
scenario plain_http_to_another_computer_is_refused s_plain_http
scenario the_servers_authorize_url_is_checked_not_shown s_authorize_url
scenario server_text_is_printed_defanged s_defanged_text
scenario the_approval_link_and_code_are_the_terminals_own s_approval_binding
scenario a_blob_id_from_content_never_reaches_a_url s_blob_id
scenario a_put_the_server_lists_as_a_delete_removes_nothing s_kind_flip
scenario nothing_leaves_under_the_old_key_after_stale_key_gen s_stale_key_gen
scenario a_swapped_identity_is_refused_and_nothing_is_accepted s_identity_swap
scenario a_read_member_that_forges_a_write_is_refused_by_service_and_clients s_read_member_forges_a_write

echo "HOSTILE END"
exit $((SMOKE_FAILED > 0))
