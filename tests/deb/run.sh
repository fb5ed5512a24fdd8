#!/usr/bin/env bash
# run.sh -- the package test (issue 26; suite "deb" of tools/stack/test.sh, or `make test-deb`):
# builds pouch-server and pouch-cli (tools/deb/build.sh, lintian included), installs them on
# this machine with apt-get, checks what postinst made, verifies every installed unit with
# systemd-analyze, runs the one-time `pouch-setup` against a PostgreSQL cluster of the test's
# own (run by the OS user postgres, peer authentication as in Debian's default cluster), starts
# the six handlers exactly as the installed units say (tests/deb/unit-exec.py: this machine has
# no systemd as PID 1) and nginx with its installed configuration, runs a smoke subset through
# it over https (tests/smoke, POUCH_DEB_SMOKE_FILES; port 80 redirects and serves ACME), runs
# pouch-gc.service as its unit says, upgrades to a newer package (this one repacked with one
# more migration, which postinst must apply), then `apt-get remove` (data, configuration and
# user kept) and `apt-get purge` (what postrm promises is gone). Prints PASS/FAIL lines, ends
# with "SMOKE END". Leaves the machine as it found it, on failure too (EXIT trap); refuses to
# run when the packages, their directories, nginx or ports 80/443/9180 are already in use.
# Needs root; BUILD (default build) holds the built binaries and web bundle.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LC_ALL=C.UTF-8
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH=$PATH:/usr/sbin:/sbin ;; esac

ROOT=$PWD
case ${BUILD:-build} in
    /*) BUILD_DIR=$BUILD ;;
    *) BUILD_DIR=$ROOT/${BUILD:-build} ;;
esac
GROUPS_=(account admin cliauth devices shares sync)
UNIT_DIR=/lib/systemd/system
# Scripts that fit the production site's rate limits (30-commit's thousand concurrent commits
# do not: 429 from pouch_general, as intended).
SMOKE_FILES=${POUCH_DEB_SMOKE_FILES:-50 41}
APT=(apt-get -y -q -o DPkg::Lock::Timeout=600)
export DEBIAN_FRONTEND=noninteractive

passed=0
failed=0
errors=()
say() { printf 'deb: %s\n' "$*" >&2; }
# expect DESCRIPTION COMMAND...: a failed expectation of the current check.
expect() {
    local what=$1
    shift
    if ! "$@" >/dev/null 2>&1; then errors+=("$what"); fi
}
# check NAME: PASS when no expectation failed since the last check, else FAIL with them.
check() {
    if ((${#errors[@]} == 0)); then
        echo "PASS deb/$1"
        passed=$((passed + 1))
    else
        echo "FAIL deb/$1: $(printf '%s; ' "${errors[@]}")"
        failed=$((failed + 1))
    fi
    errors=()
}
absent() { [[ ! -e $1 && ! -L $1 ]]; }
# die MESSAGE: a step the rest depends on failed.
die() {
    echo "FAIL deb/$1"
    exit 1
}

if ((EUID != 0)); then
    # make test as a developer: the packages are installed only where we may (CI runs as root).
    say "skipped: the package test installs packages on this machine; run it as root"
    echo "SMOKE END"
    exit 0
fi

# --- the machine as we found it -----------------------------------------------------------------
for pkg in pouch-server pouch-cli; do
    if dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^.[^n]'; then
        die "machine_is_clean: $pkg is already installed (or not purged): not ours to touch"
    fi
done
for path in /etc/pouch /var/lib/pouch /run/pouch /usr/share/pouch /etc/nginx/sites-enabled/pouch; do
    absent "$path" || die "machine_is_clean: $path exists: not ours to touch"
done
if [[ -f /run/nginx.pid ]] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then
    die "machine_is_clean: the system nginx is running (/run/nginx.pid)"
fi
for port in 80 443 9180; do   # 9180: the site's metrics listener
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "machine_is_clean: port $port is in use"
    fi
done
user_before=$(getent passwd pouch || true)
default_site_before=$(readlink /etc/nginx/sites-enabled/default 2>/dev/null || true)
# nginx's own logs and pid file (nginx -t leaves an empty one), which our nginx may create or
# append to: made ones are deleted, the others cut back to their size.
new_nginx_logs=()
nginx_log_sizes=()
for f in /var/log/nginx/access.log /var/log/nginx/error.log /run/nginx.pid; do
    if [[ -e $f ]]; then nginx_log_sizes+=("$f=$(stat -c %s "$f")"); else new_nginx_logs+=("$f"); fi
done

T=$(mktemp -d /tmp/pouch-deb.XXXXXX)
chmod 0755 "$T"
mkdir -p "$T/log" "$T/pids"
pids=()          # our children: handlers, nginx, Redis, PostgreSQL
pg_data=$T/pg
pg_sock=$T/pgsock

# stop_pids PID...: TERM, up to 10 s each, then KILL.
stop_pids() {
    local pid
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        for _ in {1..100}; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}

stop_children() {
    stop_pids "${pids[@]}"
    pids=()
}

cleanup() {
    local status=$?
    set +e
    stop_children
    for pkg in pouch-cli pouch-server; do
        if dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^.[^n]'; then
            say "cleanup: purging $pkg"
            "${APT[@]}" purge "$pkg" >>"$T/log/apt.log" 2>&1
        fi
    done
    # What a failed purge could leave; none of it existed when we started.
    rm -rf /etc/pouch /var/lib/pouch /run/pouch /usr/share/pouch /etc/nginx/sites-enabled/pouch
    if [[ -z $user_before ]] && getent passwd pouch >/dev/null; then
        say "cleanup: deleting user pouch, which did not exist before"
        userdel pouch
        getent group pouch >/dev/null && groupdel pouch
    fi
    ((${#new_nginx_logs[@]} == 0)) || rm -f "${new_nginx_logs[@]}"
    for kv in "${nginx_log_sizes[@]}"; do truncate -s "${kv##*=}" "${kv%=*}"; done
    if [[ -n $default_site_before && ! -e /etc/nginx/sites-enabled/default ]]; then
        ln -s "$default_site_before" /etc/nginx/sites-enabled/default
    fi
    if ((status != 0 && ${POUCH_KEEP_VAR:-0} != 1)); then
        for f in "$T"/log/*.log; do
            [[ -s $f ]] || continue
            echo "--- tail of $f" >&2
            tail -n 15 "$f" >&2
        done
    fi
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then say "kept $T"; else rm -rf "$T"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    local port
    for _ in {1..200}; do
        port=$((20000 + RANDOM % 12000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# --- build -------------------------------------------------------------------------------------
start=$SECONDS
if tools/deb/build.sh "$BUILD_DIR" >"$T/log/build.log" 2>&1; then
    echo "PASS deb/packages_build_lintian_clean ($((SECONDS - start)) s)"
    passed=$((passed + 1))
else
    tail -n 40 "$T/log/build.log"
    die "packages_build_lintian_clean: tools/deb/build.sh failed"
fi
server_deb=$(ls build/deb/pouch-server_*.deb)
cli_deb=$(ls build/deb/pouch-cli_*.deb)

# --- install -----------------------------------------------------------------------------------
if ! "${APT[@]}" install "./$server_deb" "./$cli_deb" >"$T/log/apt.log" 2>&1; then
    tail -n 30 "$T/log/apt.log"
    die "apt_get_install: apt-get install failed"
fi
expect "pouch-server not installed (ii)" sh -c "dpkg-query -W -f='\${db:Status-Abbrev}\\n' pouch-server pouch-cli | grep -c '^ii' | grep -qx 2"
for g in "${GROUPS_[@]}"; do expect "/usr/lib/pouch/pouch-$g missing" test -x "/usr/lib/pouch/pouch-$g"; done
expect "pouchctl missing" test -x /usr/bin/pouchctl
expect "pouch-setup missing" test -x /usr/sbin/pouch-setup
expect "pouch missing" test -x /usr/bin/pouch
expect "pouch(1) missing" test -s /usr/share/man/man1/pouch.1.gz
expect "pouch(1) is not the CLI's manual" sh -c 'zcat /usr/share/man/man1/pouch.1.gz | grep -q "^\.TH POUCH 1"'
expect "web app missing" test -s /usr/share/pouch/web/index.html
expect "migrations missing" test -s /usr/share/pouch/sql/001_init.sql
expect "nginx site missing" test -s /etc/nginx/sites-available/pouch
expect "user pouch missing" getent passwd pouch
expect "/var/lib/pouch not pouch:www-data 750" test "$(stat -c %U:%G:%a /var/lib/pouch)" = pouch:www-data:750
expect "/var/lib/pouch/blobs not pouch:www-data 2750" test "$(stat -c %U:%G:%a /var/lib/pouch/blobs)" = pouch:www-data:2750
expect "/etc/pouch not root:pouch 750" test "$(stat -c %U:%G:%a /etc/pouch)" = root:pouch:750
# Runtime libraries only: no -dev package among the dependencies.
expect "pouch-server depends on a -dev package" sh -c "! dpkg-query -W -f='\${Depends}' pouch-server | grep -q -- '-dev'"
expect "pouch-server does not depend on libpq5" sh -c "dpkg-query -W -f='\${Depends}' pouch-server | grep -q libpq5"
check install_makes_user_dirs_and_files

# --- units ---------------------------------------------------------------------------------------
units=(pouch-gc.service pouch-gc.timer)
for g in "${GROUPS_[@]}"; do units+=("pouch-handler@$g.socket" "pouch-handler@$g.service"); done
verify_out=$T/log/systemd-analyze.log
: >"$verify_out"
for u in "${units[@]}"; do
    # A template is verified through an instance: its file is linked under the instance's name.
    file=$UNIT_DIR/$u
    if [[ $u == *@*.* ]]; then
        mkdir -p "$T/units"
        file=$T/units/$u
        ln -sf "$UNIT_DIR/${u%%@*}@.${u##*.}" "$file"
    fi
    if ! SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$file" >>"$verify_out" 2>&1; then
        errors+=("systemd-analyze verify $u failed")
    fi
done
# It prints its complaints without failing for some of them: none is accepted.
if grep -v '^$' "$verify_out" | grep -q .; then errors+=("systemd-analyze said: $(head -c 400 "$verify_out")"); fi
check installed_units_pass_systemd_analyze_verify

# --- PostgreSQL, Redis, pouch-setup ---------------------------------------------------------------
PG_BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d | sort -V | tail -n 1)
pg_port=$(free_port)
mkdir -p "$pg_data" "$pg_sock"
chown postgres:postgres "$pg_data" "$pg_sock"
chmod 0700 "$pg_data"
chmod 0755 "$pg_sock"
(cd / && runuser -u postgres -- "$PG_BIN/initdb" -D "$pg_data" -U postgres -E UTF8 --locale=C.UTF-8 \
    --auth-local=peer --auth-host=reject --no-instructions) >"$T/log/initdb.log" 2>&1 ||
    die "postgres_starts: initdb failed"
# Peer authentication as Debian's cluster has it; the smoke checks (psql as root) read the
# database as role pouch through the ident map.
cat >"$pg_data/pg_hba.conf" <<'EOF'
local all all peer map=deb
EOF
cat >"$pg_data/pg_ident.conf" <<'EOF'
deb postgres postgres
deb pouch pouch
deb root pouch
EOF
(cd / && exec setsid runuser -u postgres -- "$PG_BIN/postgres" -D "$pg_data" -p "$pg_port" \
    -c listen_addresses= -c unix_socket_directories="$pg_sock" -c fsync=off) >"$T/log/postgres.log" 2>&1 &
pids+=("$!")
for _ in {1..300}; do
    "$PG_BIN/pg_isready" -q -h "$pg_sock" -p "$pg_port" && break
    sleep 0.1
done
"$PG_BIN/pg_isready" -q -h "$pg_sock" -p "$pg_port" || die "postgres_starts: not ready"

redis_port=$(free_port)
mkdir -p "$T/redis"
chown redis:redis "$T/redis"
(cd "$T/redis" && exec setsid setpriv --reuid=redis --regid=redis --init-groups -- redis-server \
    --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --dir "$T/redis") \
    >"$T/log/redis.log" 2>&1 &
pids+=("$!")

# The site serves https on 443 with the certificate pouch-setup makes (self-signed for the
# public host), which the smoke scripts and every curl here trust (POUCH_CA_FILE).
public_url=https://127.0.0.1
ca=/etc/pouch/tls/fullchain.pem
database_url="postgresql:///pouch?host=$pg_sock&port=$pg_port"
if ! PGHOST=$pg_sock PGPORT=$pg_port pouch-setup --public-url "$public_url" \
    --database-url "$database_url" --redis-url "redis://127.0.0.1:$redis_port/0" >"$T/log/setup.log" 2>&1; then
    cat "$T/log/setup.log"
    die "pouch_setup: pouch-setup failed"
fi
export POUCH_DATABASE_URL="postgresql://pouch@/pouch?host=$pg_sock&port=$pg_port"
expect "pouch.env not root:pouch 640" test "$(stat -c %U:%G:%a /etc/pouch/pouch.env)" = root:pouch:640
expect "pouch.env lacks the database URL" grep -qxF "POUCH_DATABASE_URL=$database_url" /etc/pouch/pouch.env
expect "pouch.env lacks the public URL" grep -qxF "POUCH_PUBLIC_URL=$public_url" /etc/pouch/pouch.env
expect "database owner is not pouch" test "$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'pouch'")" = pouch
expect "not every migration applied" test "$(psql "$POUCH_DATABASE_URL" -XAtc 'SELECT count(*) FROM schema_migrations')" = "$(ls /usr/share/pouch/sql/*.sql | wc -l)"
expect "no self-signed certificate" openssl x509 -noout -in /etc/pouch/tls/fullchain.pem
expect "private key readable by others" test "$(stat -c %a /etc/pouch/tls/privkey.pem)" = 600
expect "site not enabled" test "$(readlink /etc/nginx/sites-enabled/pouch)" = ../sites-available/pouch
for g in "${GROUPS_[@]}"; do
    expect "pouch-handler@$g.socket not enabled" test -L "/etc/systemd/system/sockets.target.wants/pouch-handler@$g.socket"
done
expect "pouch-gc.timer not enabled" test -L /etc/systemd/system/timers.target.wants/pouch-gc.timer
check pouch_setup_configures_database_tls_site_units

# A second run changes nothing and fails nothing (it is documented as safe to repeat).
sum_before=$(sha256sum /etc/pouch/pouch.env /etc/pouch/tls/*.pem)
PGHOST=$pg_sock PGPORT=$pg_port pouch-setup >>"$T/log/setup.log" 2>&1 || errors+=("second pouch-setup failed")
expect "second pouch-setup changed pouch.env or the certificate" test "$(sha256sum /etc/pouch/pouch.env /etc/pouch/tls/*.pem)" = "$sum_before"
check pouch_setup_runs_again_unchanged

# --- the handlers as their units say, nginx as installed ---------------------------------------
for g in "${GROUPS_[@]}"; do
    setsid python3 tests/deb/unit-exec.py "$UNIT_DIR" pouch-handler "$g" "$T/log/$g.log" &
    pids+=("$!")
    echo "$!" >"$T/pids/$g.pid"
done
# systemd listens on every socket before it starts anything, nginx included. A socket file
# appears at bind(), before unit-exec.py has chowned it and become the handler; so the wait is
# for every handler's own binary to be running.
for _ in {1..100}; do
    missing=0
    for g in "${GROUPS_[@]}"; do
        [[ -S /run/pouch/$g.sock && $(readlink "/proc/$(cat "$T/pids/$g.pid")/exe") == /usr/lib/pouch/pouch-$g ]] ||
            missing=1
    done
    ((missing)) || break
    sleep 0.1
done
setsid nginx -g 'daemon off;' >"$T/log/nginx.log" 2>&1 &
pids+=("$!")
for _ in {1..100}; do
    [[ $(curl -s --cacert "$ca" -o /dev/null -w '%{http_code}' --max-time 2 "$public_url/v1/health") == 200 ]] && break
    sleep 0.2
done
expect "/run/pouch not 755" test "$(stat -c %a /run/pouch)" = 755
for g in "${GROUPS_[@]}"; do
    expect "$g.sock not pouch:www-data 660" test "$(stat -c %U:%G:%a "/run/pouch/$g.sock")" = pouch:www-data:660
    expect "pouch-$g not running as pouch" test "$(stat -c %U "/proc/$(cat "$T/pids/$g.pid")")" = pouch
done
expect "/v1/health through the installed site is not 200" \
    test "$(curl -s --cacert "$ca" -o /dev/null -w '%{http_code}' --max-time 5 "$public_url/v1/health")" = 200
expect "the web app is not served" sh -c "curl -sf --cacert '$ca' --max-time 5 '$public_url/' | grep -qi '<html'"
# Port 80 only redirects to https and serves certbot's webroot challenges.
expect "port 80 does not redirect to https" test "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' --max-time 5 http://127.0.0.1/v1/health)" = "301 https://127.0.0.1/v1/health"
mkdir -p /var/lib/pouch/acme/.well-known/acme-challenge
echo deb-test-token >/var/lib/pouch/acme/.well-known/acme-challenge/deb-test
expect "the ACME webroot is not served on port 80" test "$(curl -s --max-time 5 http://127.0.0.1/.well-known/acme-challenge/deb-test)" = deb-test-token
expect "/var/lib/pouch/acme missing" test "$(stat -c %U:%G:%a /var/lib/pouch/acme)" = root:root:755
check handlers_and_nginx_serve_as_installed

# --- smoke subset through the installed site -----------------------------------------------------
# Rate limits are on in the production site (signup: 5 a minute); each script is a client of
# its own loopback address (curl's --interface through a .curlrc), as different clients are.
n=2
for want in $SMOKE_FILES; do
    for script in tests/smoke/"$want"*.sh; do
        [[ -f $script ]] || continue
        name=$(basename "$script" .sh)
        mkdir -p "$T/curl-$name"
        printf 'interface = 127.0.0.%s\n' "$n" >"$T/curl-$name/.curlrc"
        n=$((n + 1))
        say "smoke $name"
        out=$T/log/smoke-$name.out
        status=0
        CURL_HOME=$T/curl-$name POUCH_URL=$public_url POUCH_CA_FILE=$ca POUCH_VAR=/var/lib/pouch \
            POUCHCTL=/usr/bin/pouchctl POUCH_REDIS_URL="redis://127.0.0.1:$redis_port/0" \
            POUCH_ROOT=$ROOT timeout --kill-after=10 300 bash "$script" >"$out" 2>&1 || status=$?
        sed "s/^\(PASS\|FAIL\) /\1 deb\/$name\//" "$out" | grep -E '^(PASS|FAIL) ' || true
        passed=$((passed + $(grep -c '^PASS ' "$out" || true)))
        failed=$((failed + $(grep -c '^FAIL ' "$out" || true)))
        if ((status != 0)) || ! grep -qx 'SMOKE END' "$out"; then
            tail -n 20 "$out" | sed 's/^/  | /'  # indented: test.sh counts PASS/FAIL lines
            echo "FAIL deb/$name: exited with status $status before its end"
            failed=$((failed + 1))
        fi
    done
done
# The hourly clean-up, as pouch-gc.timer would start pouch-gc.service.
if python3 tests/deb/unit-exec.py "$UNIT_DIR" pouch-gc.service - "$T/log/gc.log"; then
    expect "pouchctl gc printed no counts" grep -q '[0-9]' "$T/log/gc.log"
else
    errors+=("pouch-gc.service's ExecStart failed: $(tail -n 3 "$T/log/gc.log")")
fi
check gc_service_runs_as_installed

blob_files=$(find /var/lib/pouch/blobs -type f | wc -l)
((blob_files > 0)) || errors+=("the smoke subset stored no blob file")
# The setgid blob directory gives every file group www-data, readable by it (umask 0027).
expect "a blob file not pouch:www-data 640" test -z "$(find /var/lib/pouch/blobs -type f \( ! -user pouch -o ! -group www-data -o ! -perm -0040 \) -print -quit)"
check smoke_subset_stored_blobs_nginx_can_read

# --- upgrade: a newer package's pending migrations run, the data stays ----------------------
# The newer package is this one with a later version and one more migration (a table of its
# own), repacked with dpkg-deb: what the next release's package is to the installed one.
# apt-get runs the old prerm upgrade, unpacks, then the new postinst configure with the old
# version, which migrates before it would restart the handler services (systemd is not
# running here, so it restarts none).
old_version=$(dpkg-query -W -f='${Version}' pouch-server)
new_version=$old_version.1
rm -rf "$T/next"
dpkg-deb -R "$server_deb" "$T/next"
cat >"$T/next/usr/share/pouch/sql/999_deb_upgrade_probe.sql" <<'SQL'
-- The package test's migration of a "newer" package (tests/deb/run.sh).
CREATE TABLE deb_upgrade_probe (id int PRIMARY KEY);
SQL
sed -i "s/^Version: .*/Version: $new_version/" "$T/next/DEBIAN/control"
(cd "$T/next" && md5sum usr/share/pouch/sql/999_deb_upgrade_probe.sql >>DEBIAN/md5sums)
next_deb=$T/pouch-server_${new_version}_amd64.deb
dpkg-deb --root-owner-group -b "$T/next" "$next_deb" >/dev/null
users_before=$(psql "$POUCH_DATABASE_URL" -XAtc 'SELECT count(*) FROM users')
if ! "${APT[@]}" install "$next_deb" >"$T/log/apt-upgrade.log" 2>&1; then
    tail -n 30 "$T/log/apt-upgrade.log"
    errors+=("apt-get install of the newer package failed")
fi
expect "not upgraded to $new_version" test "$(dpkg-query -W -f='${Version}' pouch-server)" = "$new_version"
expect "postinst did not apply the new migration" grep -q 'applied 999_deb_upgrade_probe' "$T/log/apt-upgrade.log"
expect "the new migration is not recorded" test "$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT count(*) FROM schema_migrations WHERE version = '999_deb_upgrade_probe'")" = 1
expect "the new migration's table is missing" psql "$POUCH_DATABASE_URL" -XAtc 'SELECT 1 FROM deb_upgrade_probe'
expect "the data changed on upgrade" test "$(psql "$POUCH_DATABASE_URL" -XAtc 'SELECT count(*) FROM users')" = "$users_before"
expect "/v1/health after the upgrade is not 200" \
    test "$(curl -s --cacert "$ca" -o /dev/null -w '%{http_code}' --max-time 5 "$public_url/v1/health")" = 200
check upgrade_runs_pending_migrations_and_keeps_data

# --- remove: data, configuration, user and database kept ------------------------------------
stop_children_but_db() {
    local keep=("${pids[@]:0:2}")   # PostgreSQL and Redis were started first
    stop_pids "${pids[@]:2}"
    pids=("${keep[@]}")
}
stop_children_but_db
dpkg-query -L pouch-server pouch-cli | sort -u >"$T/files"
if ! "${APT[@]}" remove pouch-server pouch-cli >>"$T/log/apt.log" 2>&1; then
    tail -n 30 "$T/log/apt.log"
    die "apt_get_remove: apt-get remove failed"
fi
expect "pouch-server not in state rc" sh -c "dpkg-query -W -f='\${db:Status-Abbrev}' pouch-server | grep -q '^rc'"
for f in /usr/lib/pouch/pouch-sync /usr/bin/pouchctl /usr/bin/pouch /usr/share/pouch/web/index.html /lib/systemd/system/pouch-handler@.service; do
    expect "$f left by remove" absent "$f"
done
expect "blobs not kept by remove" test "$(find /var/lib/pouch/blobs -type f | wc -l)" = "$blob_files"
expect "pouch.env not kept by remove" test -f /etc/pouch/pouch.env
expect "certificate not kept by remove" test -f /etc/pouch/tls/privkey.pem
expect "nginx site (conffile) not kept by remove" test -f /etc/nginx/sites-available/pouch
expect "nginx site still enabled after remove" absent /etc/nginx/sites-enabled/pouch
expect "user pouch not kept by remove" getent passwd pouch
expect "database not kept" test "$(psql "$POUCH_DATABASE_URL" -XAtc 'SELECT count(*) > 0 FROM users')" = t
expect "nginx -t fails after remove" nginx -t -q
check remove_keeps_data_configuration_and_user

# --- purge: what postrm promises is gone ---------------------------------------------------
# pouch-cli has no conffiles: remove left nothing of it for purge (dpkg forgot it).
expect "pouch-cli still known to dpkg after remove" sh -c "! dpkg-query -W -f='\${db:Status-Abbrev}' pouch-cli 2>/dev/null | grep -q '^[ir]'"
if ! "${APT[@]}" purge pouch-server >>"$T/log/apt.log" 2>&1; then
    tail -n 30 "$T/log/apt.log"
    die "apt_get_purge: apt-get purge failed"
fi
expect "pouch-server still known to dpkg" sh -c "! dpkg-query -W -f='\${db:Status-Abbrev}' pouch-server 2>/dev/null | grep -q '^[ir]'"
for path in /var/lib/pouch /etc/pouch /run/pouch /etc/nginx/sites-available/pouch /etc/nginx/sites-enabled/pouch \
    /etc/systemd/system/timers.target.wants/pouch-gc.timer /var/log/nginx/pouch-access.log; do
    expect "$path left by purge" absent "$path"
done
for g in "${GROUPS_[@]}"; do
    expect "enable link of pouch-handler@$g.socket left by purge" absent "/etc/systemd/system/sockets.target.wants/pouch-handler@$g.socket"
done
# Every file the packages held (directories shared with others, like /usr/bin, stay).
while IFS= read -r f; do
    [[ -d $f ]] && continue   # directories (and /lib, a link to one) are shared
    if ! absent "$f"; then errors+=("$f left by purge"); fi
done <"$T/files"
if [[ -n $user_before ]]; then
    # A pouch user that existed before the package (the local stack's) is not the package's.
    expect "purge deleted a pouch user the package had not made" test "$(getent passwd pouch)" = "$user_before"
else
    expect "user pouch left by purge" sh -c '! getent passwd pouch'
    expect "group pouch left by purge" sh -c '! getent group pouch'
fi
check purge_deletes_what_it_promises

# The database stays (documented): the test's cluster goes with its directory.
stop_children
echo "SMOKE END"
say "$passed passed, $failed failed"
((failed == 0))
