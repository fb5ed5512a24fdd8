# files.sh -- the CLI suite's checks of the file system side (issue 22), sourced by run.sh:
# artifacts written by a member that no reference client would write (pouch-testweb craft) --
# a path through a symlink to a directory outside the folder, a name taken by a local file,
# names with `..` or control characters, modes 0777 and 04755 -- are kept out of the folder,
# skipped, reported (exit 7) and retried, while the rest of the pull and the push go on; then
# a folder of 100,000 small files (POUCH_CLI_BIG_FILES) through push, status, sync and a pull
# on a second device, timed.
# shellcheck shell=bash

# folder_state NAME: the state file of the one folder of device NAME.
folder_state() { cat "$CLI_TMP/$1"/pouch/folders/*.json; }
skipped_count() { folder_state "$1" | jq '.skipped | length'; }
empty_dir() { [[ -d $1 && -z $(ls -A "$1") ]]; }

login files-a
G=$CLI_TMP/G
mkdir -p "$G"
dev files-a sync "$G"
expect_true "a new device syncs the pouch ($RC: $ERR)" test "$RC" = 0

# --- a symlink on the path ------------------------------------------------------------------------

OUTSIDE=$CLI_TMP/OUTSIDE
mkdir -p "$OUTSIDE"
chmod 700 "$OUTSIDE"
ln -s "$OUTSIDE" "$G/lnk"
web craft "lnk/x" --data "written through a symlink" >/dev/null
web craft "lnk/made" --kind folder >/dev/null
web craft "after-the-symlink.txt" --data "still arrives" >/dev/null
dev files-a sync "$G"
expect_true "a pull that meets a symlink on an item's path exits 7 ($RC: $ERR)" test "$RC" = 7
expect_true "nothing is created in the directory the symlink points to" empty_dir "$OUTSIDE"
expect_true "whose mode stays 0700 ($(mode_of "$OUTSIDE"))" test "$(mode_of "$OUTSIDE")" = 700
expect_true "the items are reported, naming the symlink ($ERR)" grep -q "lnk is a symlink" <<<"$ERR"
expect_true "the summary counts them as skipped ($ERR)" said 2 skipped
expect_true "the other files still arrive" test "$(cat "$G/after-the-symlink.txt")" = "still arrives"
expect_true "the folder state remembers both ($(skipped_count files-a))" test "$(skipped_count files-a)" = 2
dev files-a sync "$G"
expect_true "the next sync tries them again and still skips them ($RC)" test "$RC" = 7 -a "$(skipped_count files-a)" = 2
expect_true "still nothing outside" empty_dir "$OUTSIDE"
rm "$G/lnk"
dev files-a sync "$G"
expect_true "once the symlink is gone, the next sync writes them ($RC: $ERR)" test "$RC" = 0
expect_true "as a real directory inside the folder" test -d "$G/lnk" -a ! -L "$G/lnk" -a -d "$G/lnk/made"
expect_true "with the file" test "$(cat "$G/lnk/x")" = "written through a symlink"
expect_true "and forgets them" test "$(skipped_count files-a)" = 0
check a_symlink_on_the_path_is_never_followed_and_the_item_waits

# --- a type clash -------------------------------------------------------------------------------

echo "a local file" >"$G/clash"
web craft "clash/x" --data "inside the directory" >/dev/null
web craft "beside-the-clash.txt" --data "beside" >/dev/null
echo "made here meanwhile" >"$G/new-here.txt"
dev files-a sync "$G"
expect_true "a remote a/x where a is a local file exits 7 ($RC: $ERR)" test "$RC" = 7
expect_true "and says what is in the way ($ERR)" grep -q "clash is a file here, not a directory" <<<"$ERR"
expect_true "the local file is untouched" test "$(cat "$G/clash")" = "a local file"
expect_true "the other remote file arrives" test "$(cat "$G/beside-the-clash.txt")" = beside
expect_true "and the push goes on: the new local file is sent" \
    test "$(web get new-here.txt)" = "made here meanwhile"
dev files-a sync "$G"
expect_true "every later sync still exits 7 while the clash lasts ($RC)" test "$RC" = 7
echo "another one" >"$G/later.txt"
dev files-a sync "$G"
expect_true "and still sends what is new, exit 7 ($RC: $ERR)" test "$RC" = 7
expect_true "the one new file ($ERR)" said 1 sent
rm "$G/clash"
dev files-a sync "$G"
expect_true "once the local file is gone, the next sync writes the item ($RC: $ERR)" test "$RC" = 0
expect_true "under its name" test "$(cat "$G/clash/x")" = "inside the directory"
check a_type_clash_skips_one_item_and_the_sync_goes_on

# --- names no client may write -------------------------------------------------------------------

web craft "../escaped.txt" --data "outside" >/dev/null
web craft "deep/../../escaped2.txt" --data "outside" >/dev/null
web craft "/etc/escaped3.txt" --data "outside" >/dev/null
web craft $'ctl\x1b[8m.txt' --data "control" >/dev/null
web craft ".pouch-tmp-evil" --data "temporary" >/dev/null
dev files-a sync "$G"
expect_true "unsafe names from another member are skipped with exit 7, not 0 ($RC)" test "$RC" = 7
expect_true "all five are reported ($ERR)" test "$(grep -c 'is not a safe relative path' <<<"$ERR")" = 5
expect_true "nothing lands beside the folder" test ! -e "$CLI_TMP/escaped.txt" -a ! -e "$CLI_TMP/escaped2.txt"
expect_true "nor at the absolute path" test ! -e /etc/escaped3.txt
expect_true "nor in the folder" test -z "$(find "$G" -name 'escaped*' -o -name 'ctl*' -o -name '.pouch-tmp-*')"
expect_true "no control character reaches the terminal ($ERR)" bash -c "! grep -q $'\x1b' <<<\"\$1\"" _ "$ERR"
check unsafe_names_are_skipped_and_reported

# --- modes ---------------------------------------------------------------------------------------

web craft "modes/open.sh" --data "#!/bin/sh" --mode 0777 >/dev/null
web craft "modes/setuid" --data "x" --mode 04755 >/dev/null
web craft "modes/private" --data "x" --mode 0600 >/dev/null
web craft "modes/readonly" --data "x" --mode 0444 >/dev/null
web craft "modes/none.txt" --data "x" >/dev/null
dev files-a sync "$G"
# The five unsafe names above stay skipped (kept, retried at every pull): exit 7 from here on.
expect_true "the pull of the modes exits 7, for the five unsafe names ($RC: $ERR)" test "$RC" = 7
expect_true "it receives the five files ($ERR)" said 5 received
expect_true "and skips only the five unsafe names ($ERR)" said 5 skipped
expect_true "mode 0777 is written as 0755 ($(mode_of "$G/modes/open.sh"))" test "$(mode_of "$G/modes/open.sh")" = 755
expect_true "setuid is dropped ($(mode_of "$G/modes/setuid"))" test "$(mode_of "$G/modes/setuid")" = 755
expect_true "0600 stays ($(mode_of "$G/modes/private"))" test "$(mode_of "$G/modes/private")" = 600
expect_true "the owner may always write ($(mode_of "$G/modes/readonly"))" test "$(mode_of "$G/modes/readonly")" = 644
expect_true "a file sent without a mode is 0644 ($(mode_of "$G/modes/none.txt"))" test "$(mode_of "$G/modes/none.txt")" = 644
expect_true "a directory the pull made is 0755" test "$(mode_of "$G/modes")" = 755
chmod 700 "$G/modes"
web craft "modes/later.txt" --data "x" >/dev/null
dev files-a sync "$G"
expect_true "a directory that exists keeps its mode ($(mode_of "$G/modes")), the file arrives ($RC: $ERR)" \
    test "$(mode_of "$G/modes")" = 700 -a "$RC" = 7 -a -f "$G/modes/later.txt"
dev files-a sync "$G"
expect_true "and nothing is sent back for the modes it narrowed ($RC: $ERR)" test "$RC" = 7 -a -z "$(grep " sent" <<<"$ERR")"
check written_modes_never_grant_group_or_other_write

# --- a folder of 100,000 files ---------------------------------------------------------------------
# Its own account (a second browser member), so the rest of the suite never reads it.

big=${POUCH_CLI_BIG_FILES:-100000}
WEB_STATE=$CLI_TMP/web-big web_account
WEB_STATE=$CLI_TMP/web-big login big-a
WEB_STATE=$CLI_TMP/web-big login big-b
H=$CLI_TMP/H
H2=$CLI_TMP/H2
mkdir -p "$H"/d{000..099}
awk -v dir="$H" -v n="$big" 'BEGIN {
    for (i = 0; i < n; i++) { f = sprintf("%s/d%03d/f%06d.txt", dir, i % 100, i); print "file " i > f; close(f) } }'
t0=$(now_ms)
dev big-a push "$H"
t_push=$(($(now_ms) - t0))
expect_true "a push of $big files exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "and sends them all ($ERR)" said "$big" sent
expect_true "the pouch holds $big artifacts" \
    test "$(sql "SELECT count(*) FROM artifacts a JOIN pouches p ON p.id = a.pouch_id WHERE p.account_id = '$(jq -r .account_id "$CLI_TMP/big-a/pouch/device.json")'")" = "$big"
t0=$(now_ms)
dev big-a status --json
t_status=$(($(now_ms) - t0))
expect_true "status reads the folder's state ($RC: $ERR)" test "$RC" = 0 -a "$(jq '.folders[0].files' <<<"$OUT")" = "$big"
echo "one more" >"$H/d000/one-more.txt"
t0=$(now_ms)
dev big-a sync "$H"
t_sync=$(($(now_ms) - t0))
expect_true "a sync of the folder exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "and sends the one new file ($ERR)" said 1 sent
t0=$(now_ms)
dev big-b pull "$H2"
t_pull=$(($(now_ms) - t0))
expect_true "a pull on a second device exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "and receives every file ($ERR)" said $((big + 1)) received
expect_true "the two folders are the same" same_tree "$H" "$H2"
t0=$(now_ms)
dev big-b sync "$H2"
t_idle=$(($(now_ms) - t0))
expect_true "a sync with nothing to do says so ($RC: $ERR)" \
    test "$RC" = 0 -a -n "$(grep "nothing to do" <<<"$ERR")"
echo "# $big files: push ${t_push} ms, status ${t_status} ms, sync ${t_sync} ms, pull on a second device ${t_pull} ms, idle sync ${t_idle} ms; state $(stat -c %s "$CLI_TMP"/big-b/pouch/folders/*.json) bytes"
check a_folder_of_100000_files_pushes_syncs_and_pulls
