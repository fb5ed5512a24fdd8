#!/usr/bin/env bash
# render-nginx.sh -- writes nginx/pouch.conf, the production config, from
# nginx/pouch.conf.template (listen 80, sockets /run/pouch, blobs /var/lib/pouch/blobs, rate
# limits on, the web app in /usr/share/pouch/web). --check only compares and fails when pouch.conf is out of date (test.sh runs it).
# Relies on tools/stack/lib.sh for the rendering shared with the local stack.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

render() {
    stack_render_nginx_conf 80 /run/pouch /var/lib/pouch/blobs /var/log/nginx/pouch-access.log on /usr/share/pouch/web
}

case ${1:-} in
    "")
        render >nginx/pouch.conf
        echo "wrote nginx/pouch.conf" >&2
        ;;
    --check)
        if ! render | diff -u nginx/pouch.conf - >&2; then
            echo "nginx/pouch.conf is out of date: run tools/stack/render-nginx.sh" >&2
            exit 1
        fi
        ;;
    *)
        echo "usage: render-nginx.sh [--check]" >&2
        exit 2
        ;;
esac
