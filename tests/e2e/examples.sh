#!/usr/bin/env bash
# Every windowed example as a newcomer first meets it: each runs for a few seconds in a virtual
# display, with force vectors shown, takes a screenshot and exits by itself. Fails on a panic, an
# early exit, a hang or a missing screenshot, so that no example rots as the API changes.
# (hunter_prey, the main one, is driven through its panel by hunter_prey.sh.)
#
# Installs what it needs when missing (tests/e2e/setup.sh). Screenshots and logs go to $E2E_OUT
# (default target/e2e-examples).
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/e2e/setup.sh

out=${E2E_OUT:-target/e2e-examples}
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
examples=(wander seek_flee custom_behaviour flocking leader_following queue obstacles path_following
  flocking_3d ground_units)
# Arguments of some: flocking_3d's default flock is too slow to draw 200 frames in a debug build
# with software rendering.
declare -A arguments=([flocking_3d]="--boids 300")
# --workspace: the tests' feature set, so nothing but the examples is rebuilt after the tests.
cargo build --workspace $(printf -- '--example %s ' "${examples[@]}")

failed=0
for example in "${examples[@]}"; do
  log=$out/$example.log
  shot=$out/$example.png
  status=0
  STEER_SHOW_FORCES=1 STEER_SCREENSHOT=$shot STEER_SCREENSHOT_FRAME=150 STEER_EXIT_FRAME=200 \
    timeout --kill-after=10 300 xvfb-run -a -s "-screen 0 1280x720x24" \
    "${CARGO_TARGET_DIR:-target}/debug/examples/$example" ${arguments[$example]:-} >"$log" 2>&1 \
    || status=$?
  if [ "$status" -ne 0 ] || grep -q "panicked" "$log" || [ ! -s "$shot" ]; then
    echo "FAIL: $example (exit status $status, screenshot $( [ -s "$shot" ] && echo taken || echo missing))"
    tail -n 20 "$log"
    failed=1
  else
    echo "ok: $example ran 200 frames and took $shot"
  fi
done
exit $failed
