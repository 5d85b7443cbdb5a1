//! The compute pool's machinery shared by the stepping systems and the spatial index's rebuild:
//! [`run_phases`] runs the items of a few phases on the pool, the calling thread included, and
//! the locks it hands work through.

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bevy::platform::sync::{
    Mutex, MutexGuard, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard,
};
use bevy::tasks::TaskPool;

/// How many threads [`run_phases`] works on with `pool`: the calling thread and the pool's, one
/// per core at most (more would take turns on the cores, each turn a wait for the others at the
/// end of a phase).
pub(crate) fn working_threads(pool: &TaskPool) -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(bevy::tasks::available_parallelism);
    (pool.thread_num() + 1).min(cores).max(1)
}

std::thread_local! {
    /// The [`run_phases`] calls whose work this thread is doing, innermost last, each known by an
    /// address on its stack.
    static WORKING_IN: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Runs `step(phase, item)` for the `items[phase]` items of each phase in turn, on the calling
/// thread and `pool`'s threads (one thread per core at most) in one scope: whichever thread is
/// free takes the next item of the phase, and a thread that finds none left waits for the phase's
/// last item to finish before it starts on the next phase.
///
/// One scope rather than one per phase (or a pool task per item): the pool's threads sleep between
/// scopes, and waking them (tens of microseconds each time on a small machine) cost more than a
/// light pass of a few thousand agents. A thread waits only while another runs an item it has
/// taken, so the phases finish however many threads take part, one included; a thread that comes
/// to the work again from inside one of its own steps (a step that runs a scope of its own, whose
/// wait may pick up this scope's tasks) leaves it to the others. A panic in a step stops the other
/// threads at their next item and comes out of this function, as a panic in the system would.
pub(crate) fn run_phases<const PHASES: usize>(
    pool: &TaskPool,
    items: [usize; PHASES],
    step: impl Fn(usize, usize) + Sync,
) {
    /// Counts its item as finished when dropped, and calls the work off if the step panicked.
    struct Finishing<'a> {
        finished: &'a AtomicUsize,
        stopped: &'a AtomicBool,
    }
    impl Drop for Finishing<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.stopped.store(true, Ordering::Release);
            }
            self.finished.fetch_add(1, Ordering::Release);
        }
    }
    let taken: [AtomicUsize; PHASES] = core::array::from_fn(|_| AtomicUsize::new(0));
    let finished: [AtomicUsize; PHASES] = core::array::from_fn(|_| AtomicUsize::new(0));
    let stopped = AtomicBool::new(false);
    /// Takes its call off [`WORKING_IN`] when dropped, however the work ends.
    struct Working;
    impl Drop for Working {
        fn drop(&mut self) {
            WORKING_IN.with_borrow_mut(|calls| calls.pop());
        }
    }
    let call = &raw const stopped as usize;
    let work = || {
        if WORKING_IN.with_borrow(|calls| calls.contains(&call)) {
            return;
        }
        WORKING_IN.with_borrow_mut(|calls| calls.push(call));
        let _working = Working;
        'phases: for (phase, &count) in items.iter().enumerate() {
            while !stopped.load(Ordering::Acquire) {
                let item = taken[phase].fetch_add(1, Ordering::Relaxed);
                if item >= count {
                    break;
                }
                let _finishing = Finishing {
                    finished: &finished[phase],
                    stopped: &stopped,
                };
                step(phase, item);
            }
            let mut spins = 0_u32;
            while finished[phase].load(Ordering::Acquire) < count {
                if stopped.load(Ordering::Acquire) {
                    break 'phases;
                }
                spins += 1;
                if spins.is_multiple_of(64) {
                    // The thread running the last item may have been put off its core.
                    std::thread::yield_now();
                } else {
                    core::hint::spin_loop();
                }
            }
        }
    };
    // The calling thread works too: the pool lends the others.
    let helpers = working_threads(pool)
        .min(items.iter().copied().max().unwrap_or(0))
        .saturating_sub(1);
    if helpers == 0 {
        return work();
    }
    let work = &work;
    pool.scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(async move { work() });
        }
        work();
    });
}

/// The lock on `lock`. None is left poisoned: a panic in a step comes out of [`run_phases`].
pub(crate) fn lock<T>(lock: &Mutex<T>) -> MutexGuard<'_, T> {
    lock.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A read lock on `lock` (see [`lock`]).
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// A write lock on `lock` (see [`read`]).
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::tasks::TaskPoolBuilder;

    #[test]
    fn phases_run_each_item_once_and_start_only_when_the_phase_before_has_finished() {
        let items = [40, 0, 3, 25];
        for threads in [1, 4] {
            let pool = TaskPoolBuilder::new().num_threads(threads).build();
            let runs: Vec<Vec<AtomicUsize>> = items
                .iter()
                .map(|&count| (0..count).map(|_| AtomicUsize::new(0)).collect())
                .collect();
            let finished: [AtomicUsize; 4] = core::array::from_fn(|_| AtomicUsize::new(0));
            let early = AtomicUsize::new(0);
            run_phases(&pool, items, |phase, item| {
                if (0..phase).any(|before| finished[before].load(Ordering::Acquire) < items[before])
                {
                    early.fetch_add(1, Ordering::Relaxed);
                }
                runs[phase][item].fetch_add(1, Ordering::Relaxed);
                finished[phase].fetch_add(1, Ordering::Release);
            });
            assert_eq!(early.into_inner(), 0, "{threads} threads");
            for (phase, runs) in runs.into_iter().enumerate() {
                for (item, runs) in runs.into_iter().enumerate() {
                    assert_eq!(runs.into_inner(), 1, "phase {phase}, item {item}");
                }
            }
        }
    }

    #[test]
    fn a_panic_in_a_step_comes_out_and_leaves_the_threads_fit_for_the_next_call() {
        let pool = TaskPoolBuilder::new().num_threads(3).build();
        let run = |panic_at: Option<usize>| {
            let done = AtomicUsize::new(0);
            let outcome = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
                run_phases(&pool, [40, 40], |phase, item| {
                    if phase == 0 && Some(item) == panic_at {
                        panic!("a step failed");
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                });
            }));
            (outcome.is_ok(), done.into_inner())
        };
        let (finished, _) = run(Some(3));
        assert!(!finished, "the step's panic came out of run_phases");
        assert_eq!(run(None), (true, 80));
    }

    #[test]
    fn steps_may_run_scopes_and_phases_of_their_own() {
        let pool = TaskPoolBuilder::new().num_threads(3).build();
        let inner_items = AtomicUsize::new(0);
        run_phases(&pool, [16, 16], |_, _| {
            // A scope of the step's own, whose wait runs whatever task the pool has, this call's
            // included.
            pool.scope(|scope| {
                scope.spawn(async {});
            });
            run_phases(&pool, [4], |_, _| {
                inner_items.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(inner_items.into_inner(), 32 * 4);
    }
}
