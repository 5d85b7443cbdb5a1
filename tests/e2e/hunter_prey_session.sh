#!/usr/bin/env bash
# The part of hunter_prey.sh that runs inside the virtual display (DISPLAY is set by xvfb-run).
set -euo pipefail
out=$E2E_OUT
state=$out/state.txt
trigger=$out/screenshot-request

STEER_STATE_FILE=$state STEER_SCREENSHOT_TRIGGER=$trigger \
  "${CARGO_TARGET_DIR:-target}/debug/examples/hunter_prey" >"$out/hunter_prey.log" 2>&1 &
app=$!
trap 'kill $app 2>/dev/null || true; wait $app 2>/dev/null || true' EXIT

fail() { echo "FAIL: $*"; tail -n 20 "$out/hunter_prey.log"; exit 1; }

# The example writes its state file twice a second once it runs.
for _ in $(seq 1 240); do
  [ -s "$state" ] && break
  kill -0 $app 2>/dev/null || fail "hunter_prey exited early"
  sleep 0.5
done
[ -s "$state" ] || fail "no state file after two minutes"

# Without a window manager the window sits at the screen's origin; read it to be sure.
window=$(xdotool search --sync --name "bevy_steer: hunter" | head -n 1)
eval "$(xdotool getwindowgeometry --shell "$window")"
at() { echo $((X + $1)) $((Y + $2)); }

radius_of() { sed -n "s/^$1 .*circle_radius=\([0-9.]*\).*/\1/p" "$state"; }
separation_of() { sed -n "s/^$1 separation_radius=\([0-9.]*\).*/\1/p" "$state"; }

shoot() {
  rm -f "$out/$1"
  echo "$out/$1" >"$trigger"
  for _ in $(seq 1 60); do
    [ -s "$out/$1" ] && sleep 0.5 && return 0
    sleep 0.5
  done
  fail "no screenshot $1"
}

# Keep the cursor away from the agents' middle, then let the scene run a little.
xdotool mousemove $(at 1100 650)
sleep 3
shoot before.png
before_prey=$(radius_of Prey)
before_hunters=$(radius_of Hunter)
echo "before: Prey circle_radius=$before_prey, Hunter circle_radius=$before_hunters"

# The panel (group "All") lists the limits, then each behaviour the agents carry by name: Evade,
# Pursue, Seek, Separation, Wander. Drag Wander's "circle radius" slider to the left, then
# Separation's "radius" (a flocking rule's slider, from the components' reflection) to the right.
drag() { # y, then the x positions of the drag
  local y=$1; shift
  xdotool mousemove $(at "$1" "$y")
  sleep 0.3
  xdotool mousedown 1
  for x in "$@"; do
    xdotool mousemove $(at "$x" "$y")
    sleep 0.1
  done
  xdotool mouseup 1
  # Let the release reach egui before the pointer leaves, or it counts as part of the drag.
  sleep 0.5
}
before_separation=$(separation_of Prey)
drag 490 129 125 115 105 95 85
drag 367 87 95 105 115 125 135
xdotool mousemove $(at 1100 650)
sleep 2
shoot after.png
after_prey=$(radius_of Prey)
after_hunters=$(radius_of Hunter)
after_separation=$(separation_of Prey)
echo "after: Prey circle_radius=$after_prey, Hunter circle_radius=$after_hunters"
echo "Prey separation radius: $before_separation -> $after_separation"

grep -q "applied" "$out/hunter_prey.log" || fail "the panel logged no change"
python3 - "$before_prey" "$after_prey" "$before_hunters" "$after_hunters" <<'PY' || fail "wander radius did not change"
import sys
before_prey, after_prey, before_hunters, after_hunters = map(float, sys.argv[1:])
assert after_prey < before_prey * 0.8, (before_prey, after_prey)
assert after_hunters < before_hunters * 0.8, (before_hunters, after_hunters)
PY
python3 - "$before_separation" "$after_separation" <<'PY' || fail "separation radius did not change"
import sys
before, after = map(float, sys.argv[1:])
assert after > before * 1.5, (before, after)
PY
# The drag on the panel must not have reached the game: a click there would show force vectors.
python3 tests/e2e/png_check.py --no-forces "$out/before.png" "$out/after.png" || fail "screenshots"
cmp -s "$out/before.png" "$out/after.png" && fail "the two screenshots are identical"

# A click on the game itself does show them.
xdotool mousemove $(at 800 420) click 1
sleep 0.5
xdotool mousemove $(at 1100 650)
sleep 1
shoot forces.png
python3 tests/e2e/png_check.py --forces "$out/forces.png" || fail "a click outside the panel did not show the forces"
echo "PASS: dragging the sliders changed every agent's wander radius ($before_prey -> $after_prey) and the prey's separation radius ($before_separation -> $after_separation)"
