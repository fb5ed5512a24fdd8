#!/usr/bin/env bash
# render-nginx.sh -- writes nginx/pouch.conf, the production config, from
# nginx/pouch.conf.template (TLS on 443 with /etc/pouch/tls/{fullchain,privkey}.pem, port 80
# redirecting to https and serving ACME challenges from /var/lib/pouch/acme, sockets /run/pouch,
# blobs /var/lib/pouch/blobs, rate limits on, the web app in /usr/share/pouch/web). --check only
# compares and fails when pouch.conf is out of date (test.sh runs it); --print writes to stdout,
# with TLS per POUCH_TLS (on, or off for plain HTTP on port 80 behind a TLS proxy), the
# certificate POUCH_TLS_CERT and key POUCH_TLS_KEY, the ACME webroot POUCH_ACME_DIR, OCSP
# stapling's resolver POUCH_TLS_RESOLVER (docs/OPERATIONS.md "TLS"), trusting the proxies of
# POUCH_REAL_IP_FROM (docs/OPERATIONS.md), serving the metrics on POUCH_METRICS_LISTEN (default
# 127.0.0.1:9180) to the scrapers of POUCH_METRICS_FROM and, when POUCH_HANDLER_HOSTS lists
# handler hosts, passing to them instead of local sockets (docs/SCALING.md).
# Relies on tools/stack/lib.sh for the rendering shared with the local stack.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

# $1: the trusted TLS proxies (space-separated), empty for none; $2: the metrics scrapers
# (default 127.0.0.1); $3: the handler hosts, empty for this machine's unix sockets; $4: the
# metrics server's listen address (default 127.0.0.1:9180).
# TLS from RENDER_TLS etc. (stack_render_nginx_conf): on 443 unless RENDER_TLS=off, then 80.
render() {
    local listen=443
    [[ ${RENDER_TLS:-on} == off || ${RENDER_TLS:-on} == 0 ]] && listen=80
    RENDER_TLS=${RENDER_TLS:-on} stack_render_nginx_conf $listen /run/pouch /var/lib/pouch/blobs /var/log/nginx/pouch-access.log on \
        /var/log/nginx/error.log /usr/share/pouch/web "$1" "${2:-}" "${3:-}" "${4:-}"
}

case ${1:-} in
    "")
        render "" >nginx/pouch.conf
        echo "wrote nginx/pouch.conf" >&2
        ;;
    --check)
        if ! render "" | diff -u nginx/pouch.conf - >&2; then
            echo "nginx/pouch.conf is out of date: run tools/stack/render-nginx.sh" >&2
            exit 1
        fi
        ;;
    --print)
        # For a deployment behind a TLS proxy: POUCH_REAL_IP_FROM="10.0.0.5 10.0.1.0/24";
        # with handler hosts: POUCH_HANDLER_HOSTS="10.0.0.11 10.0.0.12".
        # Behind a proxy that ends TLS: POUCH_TLS=off.
        RENDER_TLS=${POUCH_TLS:-on} RENDER_TLS_CERT=${POUCH_TLS_CERT:-} RENDER_TLS_KEY=${POUCH_TLS_KEY:-} \
            RENDER_ACME_DIR=${POUCH_ACME_DIR:-} RENDER_TLS_RESOLVER=${POUCH_TLS_RESOLVER:-} \
            render "${POUCH_REAL_IP_FROM:-}" "${POUCH_METRICS_FROM:-}" "${POUCH_HANDLER_HOSTS:-}" \
            "${POUCH_METRICS_LISTEN:-}"
        ;;
    *)
        echo "usage: render-nginx.sh [--check | --print]" >&2
        exit 2
        ;;
esac
