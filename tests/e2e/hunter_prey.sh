#!/usr/bin/env bash
# End to end, as a person would use it: start hunter_prey in a virtual display, take a screenshot,
# drag the panel's "circle radius" slider of Wander and "radius" slider of Separation with the mouse,
# take another, and fail unless the agents' wander radius and the prey's separation radius really
# changed and both screenshots show the panel and the agents.
#
# Installs what it needs (Xvfb, Mesa's software Vulkan, xdotool) when missing. Exits within about
# five minutes and stops everything it started. Screenshots and logs go to $E2E_OUT
# (default target/e2e).
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/e2e/setup.sh

out=${E2E_OUT:-target/e2e}
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
# The README's command. The root package alone resolves the same features as
# `cargo test --workspace` (`.ci/run` checks it), so after the tests only the example is built.
cargo build --example hunter_prey
export E2E_OUT=$out
timeout --kill-after=10 300 xvfb-run -a -s "-screen 0 1280x720x24" bash "$PWD/tests/e2e/hunter_prey_session.sh"
