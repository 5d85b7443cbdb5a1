#!/usr/bin/env bash
# The examples in a real browser: builds the web page (web/build.sh), serves it on 127.0.0.1 with
# python3's http.server, and drives Debian's headless Chromium (software WebGL2) through it with
# playwright-core (tests/web/test.mjs): each example's canvas must draw agents, react to one
# interaction and log no error; a browser without WebGL2 must get a readable message.
#
# Usage: tests/web/run.sh [EXAMPLE ...]   (default: every example web/build.sh builds)
#
# Installs what it needs when missing: Chromium (apt), playwright-core (npm, the version in
# tests/web/package-lock.json; no browser download), and what web/build.sh installs. Needs Node.js
# 20 or later. Nothing is fetched from the network at test time: the page and its wasm come from the
# local server, and any other request fails the test.
#
# Variables: WEB_OUT (default target/web-test) for screenshots, console logs and results.json;
# WEB_OUT_SITE (default $CARGO_TARGET_DIR/site) for the site built and served; WEB_SKIP_BUILD=1 to
# test the site already built; the variables of web/build.sh (WEB_PROFILE=web tests that profile).
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v chromium >/dev/null; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
node_major=$(node --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/' || true)
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ]; then
  echo "tests/web/run.sh needs Node.js 20 or later (playwright-core); found: ${node_major:-none}" >&2
  exit 1
fi
if [ ! -d tests/web/node_modules/playwright-core ]; then
  (cd tests/web && npm ci --no-audit --no-fund)
fi

examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(hunter_prey flocking obstacles path_following wander
  seek_flee custom_behaviour leader_following queue flocking_3d ground_units)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/web}
site=${WEB_OUT_SITE:-$CARGO_TARGET_DIR/site}
if [ "${WEB_SKIP_BUILD:-0}" != 1 ]; then
  WEB_OUT=$site web/build.sh "${examples[@]}"
fi

out=${WEB_OUT:-target/web-test}
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)

# A free port, then the server; stopped however the test ends.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# http.server with the headers that give the page a fine clock (tests/web/serve.py).
python3 tests/web/serve.py "$site" "$port" >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html')" \
    2>/dev/null && break
  sleep 0.2
done

WEB_URL=http://127.0.0.1:$port WEB_OUT=$out WEB_EXAMPLES="${examples[*]}" \
  timeout --kill-after=10 1500 node tests/web/test.mjs
