//! The same pure work over many independent items, on the machine's cores.
//!
//! A `diff -f` of a thousand scale sets decodes, builds and compares each one on its own: no item
//! reads another's result. [`map`] splits the items into one contiguous run per core (as many as
//! [`std::thread::available_parallelism`] allows, which follows the process's CPU affinity and
//! cgroup quota), works on each run on a scoped thread, and hands the results back in the items'
//! order, so the output is the same, byte for byte, whatever the number of threads. Few items are
//! worked on the calling thread: a thread costs more than a small run saves.

use std::num::NonZeroUsize;

/// Below this many items, [`map`] stays on the calling thread.
const MIN_ITEMS_PER_THREAD: usize = 16;

/// No more threads than this, however many cores: the work is short, and memory grows per thread.
const MAX_THREADS: usize = 8;

/// `f` of each item, in the items' order, worked on several threads when there are enough items
/// and cores ([`threads_for`]). A panic in `f` is a panic of the caller, as on one thread.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    map_on(threads_for(items.len(), cores), items, f)
}

/// How many threads work `n` items on `cores` cores: one per core, at most [`MAX_THREADS`], and
/// none beyond one per [`MIN_ITEMS_PER_THREAD`] items.
fn threads_for(n: usize, cores: usize) -> usize {
    cores.min(MAX_THREADS).min(n / MIN_ITEMS_PER_THREAD).max(1)
}

/// [`map`] on `threads` threads (the calling thread is one of them).
fn map_on<T: Sync, R: Send>(threads: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let run = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let mut chunks = items.chunks(run);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = Vec::with_capacity(items.len());
        out.extend(first.iter().map(f));
        for handle in others {
            match handle.join() {
                Ok(results) => out.extend(results),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_items_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..1000).collect();
        let one: Vec<u64> = items.iter().map(|i| i * i + 1).collect();
        for threads in [1, 2, 3, 7, 8, 999, 1000, 1001] {
            assert_eq!(map_on(threads, &items, |i| i * i + 1), one, "{threads}");
        }
        assert_eq!(map(&items, |i| i * i + 1), one);
        assert!(map_on(4, &[] as &[u64], |i| *i).is_empty());
    }

    #[test]
    fn work_is_split_only_when_there_is_enough_of_it() {
        assert_eq!(threads_for(0, 8), 1);
        assert_eq!(threads_for(15, 8), 1);
        assert_eq!(threads_for(32, 8), 2);
        assert_eq!(threads_for(1000, 2), 2);
        assert_eq!(threads_for(1000, 64), MAX_THREADS);
        assert_eq!(threads_for(1000, 1), 1);
    }

    #[test]
    fn the_work_runs_on_other_threads_when_split() {
        let items: Vec<u32> = (0..64).collect();
        let ids = map_on(4, &items, |_| std::thread::current().id());
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), 4);
        assert_eq!(ids[0], std::thread::current().id());
    }

    #[test]
    #[should_panic(expected = "item 40")]
    fn a_panic_in_a_worker_is_the_callers() {
        let items: Vec<u32> = (0..64).collect();
        map_on(4, &items, |&i| assert!(i != 40, "item {i}"));
    }
}
