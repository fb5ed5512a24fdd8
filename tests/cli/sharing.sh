# sharing.sh -- the CLI suite's pouches shared between accounts (docs/SHARING.md), sourced by
# run.sh: three accounts, each with its browser member (pouch-testweb) and one `pouch` device.
# Ada's account invites Bea's (write) and Cy's (read); the invitees accept with `pouch
# invitations accept`, compare safety numbers with `pouch verify`, sync the pouch both ways by
# role; then Ada removes Bea, whose device no longer sees the pouch while the others read on
# under the rotated key.
# shellcheck shell=bash disable=SC2154  # OUT ERR RC POUCH_ID: set by tests/lib/devices.sh

share_account() {  # share_account NAME: a fresh account with its identity and one device NAME-cli
    local name=$1
    WEB_STATE=$CLI_TMP/web-$1 web_account || return 1
    WEB_STATE=$CLI_TMP/web-$1 web identity || return 1
    WEB_STATE=$CLI_TMP/web-$1 login "$name-cli"
}
email_of() { jq -r .email "$CLI_TMP/web-$1/web.json"; }
account_of() { jq -r .account_id "$CLI_TMP/web-$1/web.json"; }
sweb() {  # sweb NAME COMMAND ARGS...: pouch-testweb as NAME's browser member
    local name=$1
    shift
    WEB_STATE=$CLI_TMP/web-$name web "$@"
}

share_account ada && share_account bea && share_account cy ||
    smoke_fail "the three sharing accounts could not be set up"
SHARED=$(jq -r .pouch_id "$CLI_TMP/web-ada/web.json")
inv_bea=$(sweb ada invite --email "$(email_of bea)" --role write)
inv_cy=$(sweb ada invite --email "$(email_of cy)" --role read)
expect_true "Ada invites Bea and Cy ($inv_bea, $inv_cy)" test -n "$inv_bea" -a -n "$inv_cy"

dev bea-cli invitations --json
expect_true "Bea's device lists the invitation as received and pending ($RC: $ERR)" \
    test "$(jq -r --arg i "$inv_bea" '.received[] | select(.id == $i) | .state' <<<"$OUT")" = pending
dev bea-cli invitations accept "$inv_bea"
expect_true "Bea accepts (exit 0, got $RC: $ERR)" test "$RC" = 0
expect_true "and is told the role and a safety number of 12 groups of 5 digits" \
    grep -Eq '^  [0-9]{5}  [0-9]{5}  [0-9]{5}  [0-9]{5}$' <<<"$OUT"
dev bea-cli invitations accept "$inv_bea"
expect_true "accepting again says it is no longer pending (exit 1, got $RC: $ERR)" \
    test "$RC" = 1 -a -n "$(grep -o 'accepted' <<<"$ERR")"
dev cy-cli invitations accept "$inv_cy"
expect_true "Cy accepts (exit 0, got $RC: $ERR)" test "$RC" = 0
check invitees_accept_after_checking_the_inviter_and_the_access_list

dev ada-cli verify "$(email_of bea)" --json
sn_ada=$(jq -r .safety_number <<<"$OUT")
dev bea-cli verify "$(email_of ada)" --json
sn_bea=$(jq -r .safety_number <<<"$OUT")
expect_true "both sides compute the same safety number ($sn_ada / $sn_bea)" test "$sn_ada" = "$sn_bea"
expect_true "of 12 groups of 5 digits" grep -Eqx '([0-9]{5} ){11}[0-9]{5}' <<<"$sn_ada"
dev cy-cli verify "$(email_of ada)" --json
expect_true "Ada and Cy have another number" test "$(jq -r .safety_number <<<"$OUT")" != "$sn_ada"
dev bea-cli verify "$(email_of bea)"
expect_true "a safety number with oneself is refused (exit 2, got $RC)" test "$RC" = 2
check both_sides_show_the_same_safety_number

dev bea-cli shared --json
expect_true "Bea's device lists the shared pouch with role write and Ada as owner ($OUT)" \
    test "$(jq -r --arg p "$SHARED" '.items[] | select(.id == $p) | "\(.role) \(.owner_account_id)"' <<<"$OUT")" = "write $(account_of ada)"
dev bea-cli members "$SHARED" --json
expect_true "members lists the three accounts ($OUT)" test "$(jq '.items | length' <<<"$OUT")" = 3
check shared_and_members_list_what_the_access_list_says

SA=$CLI_TMP/shared-ada SB=$CLI_TMP/shared-bea SC=$CLI_TMP/shared-cy
mkdir -p "$SA" "$SB" "$SC"
echo "from ada" >"$SA/ada.txt"
dev ada-cli sync "$SA" --pouch "$SHARED"
expect_true "Ada's device pushes into the shared pouch ($RC: $ERR)" test "$RC" = 0
dev bea-cli sync "$SB" --pouch "$SHARED"
expect_true "Bea's device pulls Ada's file ($RC: $ERR)" test "$RC" = 0 -a "$(cat "$SB/ada.txt" 2>/dev/null)" = "from ada"
echo "from bea" >"$SB/bea.txt"
dev bea-cli sync "$SB"
expect_true "Bea (write) pushes ($RC: $ERR)" test "$RC" = 0
dev ada-cli sync "$SA"
expect_true "and Ada's device reads Bea's file, signed by another account's member ($RC: $ERR)" \
    test "$RC" = 0 -a "$(cat "$SA/bea.txt" 2>/dev/null)" = "from bea"
dev cy-cli sync "$SC" --pouch "$SHARED"
expect_true "Cy (read) pulls both ($RC: $ERR)" test "$RC" = 0 -a -e "$SC/ada.txt" -a -e "$SC/bea.txt"
echo "from cy" >"$SC/cy.txt"
dev cy-cli sync "$SC"
expect_true "Cy's push is held: exit 7, the role named ($RC: $ERR)" test "$RC" = 7 -a -n "$(grep -o 'role in the pouch' <<<"$ERR")"
expect_true "and nothing of Cy's reached the pouch" \
    test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$SHARED'")" = 2
check a_shared_pouch_syncs_by_role

sweb ada remove --account "$(account_of bea)" >/dev/null
expect_true "Ada removes Bea (with the rotation)" test $? = 0
echo "after bea" >"$SA/after.txt"
dev ada-cli sync "$SA"
expect_true "Ada writes under the new generation ($RC: $ERR)" test "$RC" = 0
dev bea-cli sync "$SB"
expect_true "Bea's device no longer sees the pouch (exit 1, got $RC: $ERR)" test "$RC" = 1
expect_true "and has nothing written after the removal" test ! -e "$SB/after.txt"
dev cy-cli sync "$SC"
expect_true "Cy reads on: the new key came as a grant, sealed to Cy's device ($RC: $ERR)" \
    test "$(cat "$SC/after.txt" 2>/dev/null)" = "after bea"
check a_removed_account_reads_nothing_new_and_the_others_read_on

mkdir -p "$CLI_TMP/shared-cy2"
dev cy-cli pull "$CLI_TMP/shared-cy2" --pouch "$SHARED"
expect_true "a fresh pull by Cy still reads Bea's file from before her removal, and Ada's since ($RC: $ERR)" \
    test "$(cat "$CLI_TMP/shared-cy2/bea.txt" 2>/dev/null)" = "from bea" -a "$(cat "$CLI_TMP/shared-cy2/after.txt" 2>/dev/null)" = "after bea"
check what_a_removed_account_wrote_before_stays_readable

# Last: a leave owes a rotation, which the next access change of an admin would need first.
share_account dee || smoke_fail "the fourth account could not be set up"
inv_dee=$(sweb ada invite --email "$(email_of dee)" --role write)
before=$(sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$SHARED'")
dev dee-cli invitations decline "$inv_dee"
expect_true "Dee declines (exit 0, got $RC: $ERR)" test "$RC" = 0
expect_true "the invitation is declined" test "$(sql "SELECT state FROM invitations WHERE id = '$inv_dee'")" = declined
expect_true "and Dee's signed leave is the list's last statement" \
    test "$(sql "SELECT count(*) FROM access_statements WHERE pouch_id = '$SHARED'")" = $((before + 1)) -a \
    "$(sql "SELECT kind FROM access_statements WHERE pouch_id = '$SHARED' ORDER BY idx DESC LIMIT 1")" = leave
dev dee-cli shared --json
expect_true "Dee's device lists no shared pouch ($OUT)" test "$(jq '.items | length' <<<"$OUT")" = 0
check an_invitee_declines_with_a_signed_leave
