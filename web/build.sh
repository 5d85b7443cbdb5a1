#!/usr/bin/env bash
# Builds the windowed examples for the browser (wasm32-unknown-unknown, Bevy's WebGL2 backend) into
# one static site: an index page linking a page per example. Serve it with any static server:
#
#   web/build.sh && python3 -m http.server -d target/web/site 8000   # then open http://localhost:8000
#
# Usage: web/build.sh [EXAMPLE ...]   (default: every windowed example)
#
# Installs what it needs when missing: the wasm32-unknown-unknown target, and wasm-bindgen-cli at
# the version of `wasm-bindgen` in Cargo.lock (the two must match exactly).
#
# Variables:
#   WEB_PROFILE       cargo profile (default `release`); `web` for a page to publish: half the size,
#                     as fast, a much slower build (docs/performance.md, "In the browser")
#   WEB_OUT           where the site goes (default $CARGO_TARGET_DIR/site)
#   WASM_OPT=1        also run wasm-opt -Oz on each module, when wasm-opt is installed (binaryen)
#   CARGO_TARGET_DIR  default target/web, apart from the native builds, so that a web build neither
#                     waits for nor invalidates them
set -euo pipefail
cd "$(dirname "$0")/.."

all=(hunter_prey flocking obstacles path_following wander seek_flee custom_behaviour
  leader_following queue flocking_3d ground_units)
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=("${all[@]}")
profile=${WEB_PROFILE:-release}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/web}
out=${WEB_OUT:-$CARGO_TARGET_DIR/site}

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

version=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
  echo "== installing wasm-bindgen-cli $version (the version of wasm-bindgen in Cargo.lock)"
  # Its own lock first; if the registry lacks a version that lock names, let cargo pick.
  env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$version" --locked \
    || env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$version"
fi

echo "== cargo build --profile $profile --target wasm32-unknown-unknown (${examples[*]})"
cargo build --profile "$profile" --target wasm32-unknown-unknown \
  $(printf -- '--example %s ' "${examples[@]}")

rm -rf "$out" && mkdir -p "$out"
wasm_dir=$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/examples
for example in "${examples[@]}"; do
  wasm-bindgen --target web --no-typescript --out-dir "$out/$example" "$wasm_dir/$example.wasm"
  module=$out/$example/${example}_bg.wasm
  if [ "${WASM_OPT:-0}" = 1 ] && command -v wasm-opt >/dev/null; then
    # The features rustc enables by default for wasm32-unknown-unknown.
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-reference-types --enable-multivalue --enable-mutable-globals \
      -o "$module.opt" "$module"
    mv "$module.opt" "$module"
  fi
  echo "   $example: $(stat -c %s "$module") bytes of wasm"
done
# A page per example (web/example.html, with the controls table of the example's own docs) and the
# index linking them.
python3 web/pages.py "$out" "${examples[@]}"
echo "== the site is in $out: python3 -m http.server -d $out 8000"
