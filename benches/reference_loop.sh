#!/usr/bin/env bash
# The plugin against the hand-written reference loop on the loop's own scene, in one run.
#
# Builds the reference loop (a standalone program, not part of the project: FLOCKING_LOOP_DIR,
# by default ../shared/reference/flocking-loop next to the repository) and the `stress` example,
# both in release, then times both on the same scene (`stress --scene reference` is the loop's
# scene through the plugin's public API: see examples/stress/scenes.rs), interleaved: for each
# round, size and thread count, the loop then the plugin, or the plugin then the loop on odd rounds
# (ABBA), one thread pinned to one core with `taskset`. Prints each run's median step and, per size
# and thread count, the median over the rounds of each and their ratio; then the same for the loop's
# counting sort against the plugin's spatial index rebuild.
#
# The loop's README builds it with `target-cpu=native` (here AVX-512: 16 lanes), the plugin is built
# for the default target (x86-64: SSE2, 4 lanes). So that the two kinds of gap can be told apart,
# the loop is also built and timed for the default target (`RUSTFLAGS` overrides its config), as
# "loop x86-64"; the ratio that counts is the plugin's against the native loop.
#
#   benches/reference_loop.sh                      # 10 000 and 100 000 boids, 1 and 2 threads, 3 rounds
#   ROUNDS=5 SIZES="100000" THREADS="2" benches/reference_loop.sh
#
# Three tables: each median step and the ratios; the index rebuild against the loop's counting
# sort; and, when more than one thread count is given, how much faster each gets from the first.
set -euo pipefail
cd "$(dirname "$0")/.."
loop_dir=${FLOCKING_LOOP_DIR:-../shared/reference/flocking-loop}
loop_target=${FLOCKING_LOOP_TARGET:-$HOME/.cache/flocking-loop}
rounds=${ROUNDS:-3}
sizes=${SIZES:-"10000 100000"}
threads_list=${THREADS:-"1 2"}
steps=${STEPS:-60}
warmup=${WARMUP:-10}

if [ ! -d "$loop_dir" ]; then
    echo "reference_loop.sh: no reference loop at $loop_dir (set FLOCKING_LOOP_DIR)" >&2
    exit 1
fi
echo "building the reference loop ($loop_dir) and the stress example, release" >&2
# Built from its own directory, so that its .cargo/config.toml (target-cpu=native) applies.
(cd "$loop_dir" && CARGO_TARGET_DIR="$loop_target" cargo build --release --quiet)
(cd "$loop_dir" && RUSTFLAGS="-C target-cpu=x86-64" CARGO_TARGET_DIR="$loop_target-x86-64" \
    cargo build --release --quiet)
cargo build --release --quiet --example stress
loop_bin=$loop_target/release/flock
default_loop_bin=$loop_target-x86-64/release/flock
stress_bin=target/release/examples/stress

pin() {
    # One thread: pinned to one core, so that neither uses the other core's idle time.
    if [ "$1" = 1 ] && command -v taskset > /dev/null; then echo "taskset -c 0"; fi
}
# Each prints its median step, then the median time of its spatial grid's rebuild (the loop's
# counting sort, the plugin's index rebuild from stress's split).
run_loop() {
    $(pin "$2") "${3:-$loop_bin}" --agents "$1" --steps "$steps" --warmup "$warmup" --threads "$2" \
        | sed -n 's/.*median_ms=\([0-9.]*\).*sort_med_ms=\([0-9.]*\).*/\1 \2/p' | head -1
}
run_plugin() {
    $(pin "$2") "$stress_bin" --scene reference --agents "$1" --steps "$steps" --warmup "$warmup" \
        --threads "$2" 2> /dev/null | awk '
            /^time per step: median/ { step = $5 }
            /index rebuild/ { sub(",", "", $12); rebuild = $12 }
            END { print step, rebuild }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq 1 "$rounds"); do
    for agents in $sizes; do
        for threads in $threads_list; do
            if [ $((round % 2)) = 1 ]; then
                a=$(run_loop "$agents" "$threads"); c=$(run_loop "$agents" "$threads" "$default_loop_bin")
                b=$(run_plugin "$agents" "$threads")
            else
                b=$(run_plugin "$agents" "$threads")
                c=$(run_loop "$agents" "$threads" "$default_loop_bin"); a=$(run_loop "$agents" "$threads")
            fi
            read -r a sort <<< "$a"; read -r b rebuild <<< "$b"; c=${c%% *}
            echo "round $round, $agents boids, $threads thread(s): loop $a ms (sort $sort), loop x86-64 $c ms, plugin $b ms (index rebuild $rebuild)" >&2
            echo "$agents $threads $a $b $c $sort $rebuild" >> "$results"
        done
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# The median over the rounds of field K of the runs of AGENTS boids on THREADS threads.
column() { awk -v n="$1" -v t="$2" -v k="$3" '$1 == n && $2 == t { print $k }' "$results" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
echo "| boids | threads | loop (ms, median of $rounds) | loop x86-64 (ms) | plugin (ms) | plugin / loop | plugin / loop x86-64 |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for agents in $sizes; do
    for threads in $threads_list; do
        a=$(column "$agents" "$threads" 3); b=$(column "$agents" "$threads" 4)
        c=$(column "$agents" "$threads" 5)
        echo "| $agents | $threads | $a | $c | $b | $(ratio "$a" "$b") | $(ratio "$c" "$b") |"
    done
done
echo
echo "| boids | threads | loop's sort (ms, median of $rounds) | plugin's index rebuild (ms) | rebuild / sort |"
echo "| --- | --- | --- | --- | --- |"
for agents in $sizes; do
    for threads in $threads_list; do
        sort=$(column "$agents" "$threads" 6); rebuild=$(column "$agents" "$threads" 7)
        echo "| $agents | $threads | $sort | $rebuild | $(ratio "$sort" "$rebuild") |"
    done
done
# From the first thread count to each other one: how much faster each gets (on a 2-core machine, one
# thread to two; the loop's README reads 1.8 for it).
first_threads=${threads_list%% *}
if [ "$threads_list" != "$first_threads" ]; then
    echo
    echo "| boids | threads | loop: $first_threads thread(s) / these | plugin: $first_threads thread(s) / these |"
    echo "| --- | --- | --- | --- |"
    for agents in $sizes; do
        loop_first=$(column "$agents" "$first_threads" 3)
        plugin_first=$(column "$agents" "$first_threads" 4)
        for threads in ${threads_list#"$first_threads"}; do
            loop=$(column "$agents" "$threads" 3); plugin=$(column "$agents" "$threads" 4)
            echo "| $agents | $threads | $(ratio "$loop" "$loop_first") | $(ratio "$plugin" "$plugin_first") |"
        done
    done
fi
