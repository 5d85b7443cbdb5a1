//! Determinism across thread counts: a test runs part of itself again in a copy of its own binary
//! whose compute pool has a given size (Bevy's pool is global to a process: the first app sets
//! it), and compares what the copies print. Shared by both builds' tests.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};

/// The variable that tells the copy how many compute threads to use.
const CHILD_THREADS: &str = "BEVY_STEER_TEST_COMPUTE_THREADS";

/// The compute threads this copy was started with, or `None` in the test run itself.
pub fn child_threads() -> Option<usize> {
    std::env::var(CHILD_THREADS)
        .ok()
        .and_then(|threads| threads.parse().ok())
}

/// `TaskPoolPlugin` with exactly `threads` compute threads.
pub fn task_pool_plugin(threads: usize) -> TaskPoolPlugin {
    let mut task_pool_options = TaskPoolOptions::default();
    task_pool_options.compute.min_threads = threads;
    task_pool_options.compute.max_threads = threads;
    TaskPoolPlugin { task_pool_options }
}

/// Prints `values` bit for bit, as [`in_a_child_process`] reads them back.
pub fn print_bits(values: impl IntoIterator<Item = f32>) {
    let bits: Vec<String> = values
        .into_iter()
        .map(|value| format!("{:08x}", value.to_bits()))
        .collect();
    println!("positions {}", bits.join(" "));
}

/// What the ignored test `test` printed with [`print_bits`], run in a copy of this test binary
/// with `threads` compute threads.
pub fn in_a_child_process(test: &str, threads: usize) -> String {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--ignored", "--nocapture"])
        .env(CHILD_THREADS, threads.to_string())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child with {threads} threads failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Anywhere in a line: run on one test thread (`RUST_TEST_THREADS=1`, which the copy
    // inherits), the harness prints "test NAME ... " on the same line first.
    stdout
        .lines()
        .find_map(|line| line.split_once("positions ").map(|(_, bits)| bits))
        .expect("the child printed its positions")
        .to_owned()
}
