//! Path order with parallel search: the walk in `rg --sort path` order (`SortedWalk`) hands its
//! files, numbered, to worker threads that search them;
//! results leave through a reorder window in walk order. The walker hands out a number only when
//! it fits the window, so memory is bounded by the window, never by the result.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use ignore::DirEntry;

use super::window::ReorderWindow;
use crate::walk::lock;
use crate::walk::sorted::SortedWalk;
use crate::types::CancelToken;

/// Results waiting for an earlier, slower file, per worker thread.
pub(crate) const WINDOW_PER_THREAD: usize = 1024;
/// Files handed to a worker at a time, once the search is under way: each hand-over is a channel
/// send and a window lock, and on trees of small files fewer, larger batches measured 5 % faster.
const BATCH: usize = 128;
/// The first batch: small, so that the first results (`omp grep x | head -1`) do not wait for a
/// full batch to be searched. Each batch after it doubles, up to `BATCH`.
const FIRST_BATCH: usize = 8;

/// The turn of the file a worker is searching: whether every earlier file's results are out, so
/// that its own may go straight to the output while it is still being searched.
pub(crate) struct Turn<'a> {
    /// What the window must be waiting for: the file's own number, or that of the first file
    /// before it which the same worker searched and has not handed back yet.
    seq: u64,
    next: &'a (dyn Fn() -> u64 + Sync),
}

impl<'a> Turn<'a> {
    /// Once true it stays true until the worker hands its result back: the window cannot move
    /// past a file whose result is not in, and nothing leaves behind it meanwhile.
    pub fn is_next(&self) -> bool {
        (self.next)() == self.seq
    }
}

struct Shared<T, C> {
    window: ReorderWindow<Option<T>>,
    consume: C,
    walker_waiting: bool,
}

/// Runs `walk`, passes every entry `select` keeps to a worker made by `make_worker` (one per
/// thread), and calls `consume` with the workers' results in walk order. A worker returns `None`
/// for an entry with nothing to report; while its `Turn` is next it may also write what it finds
/// itself, where `consume` writes. `consume` returning false stops everything (the consumer
/// is gone), as does `cancel`. Returns false when stopped early either way.
pub(crate) fn run<T, W, M, C>(
    walk: &SortedWalk<'_>,
    threads: usize,
    cancel: &CancelToken,
    mut select: impl FnMut(&DirEntry) -> bool,
    mut make_worker: M,
    consume: C,
) -> bool
where
    T: Send,
    W: FnMut(DirEntry, &Turn<'_>) -> Option<T> + Send,
    M: FnMut() -> W,
    C: FnMut(T) -> bool + Send,
{
    let threads = threads.max(1);
    let shared = Mutex::new(Shared {
        window: ReorderWindow::new(WINDOW_PER_THREAD * threads),
        consume,
        walker_waiting: false,
    });
    let room = Condvar::new();
    let stop = AtomicBool::new(false);
    let stopped = || stop.load(Ordering::Relaxed) || cancel.is_cancelled();
    // Files go to the workers in batches: one hand-over (a channel send, maybe a wake-up) and one
    // window lock per batch rather than per file, which a profile showed costing more than
    // the searches on trees of small files.
    let (jobs, queue) = sync_channel::<Vec<(u64, DirEntry)>>(2 * threads);
    let queue = Mutex::new(queue);
    let next = || lock(&shared).window.next();

    std::thread::scope(|scope| {
        for _ in 0..threads {
            let mut work = make_worker();
            let (shared, room, stop, queue, stopped, next) = (&shared, &room, &stop, &queue, &stopped, &next);
            scope.spawn(move || {
                let mut done = Vec::with_capacity(BATCH);
                let publish = |done: &mut Vec<(u64, Option<T>)>| {
                    let mut state = lock(shared);
                    for (seq, item) in done.drain(..) {
                        state.window.insert(seq, item);
                    }
                    while let Some(ready) = state.window.pop_ready() {
                        if let Some(item) = ready {
                            if !stop.load(Ordering::Relaxed) && !(state.consume)(item) {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    if state.walker_waiting {
                        room.notify_one();
                    }
                };
                loop {
                    let batch = match lock(queue).recv() {
                        Ok(batch) => batch,
                        Err(_) => break,
                    };
                    for (seq, dent) in batch {
                        // Once stopped, slots are still filled so that nobody waits on them.
                        // The files before it in `done` have nothing to print (a result is
                        // published at once): the window waiting for the first of them means
                        // every earlier file is out.
                        let waits_for = done.first().map_or(seq, |(first, _)| *first);
                        let item = if stopped() { None } else { work(dent, &Turn { seq: waits_for, next }) };
                        let found = item.is_some();
                        done.push((seq, item));
                        // A result goes out at once, not after the rest of its batch: that may
                        // be slow to search (a FIFO may never end) while a reader waits for it.
                        if found {
                            publish(&mut done);
                        }
                    }
                    if !done.is_empty() {
                        publish(&mut done);
                    }
                }
            });
        }

        let mut seq = 0u64;
        // Numbers below this fit the window without asking: it only moves forward.
        let mut admitted = 0u64;
        let mut batch = Vec::with_capacity(BATCH);
        let mut batch_size = FIRST_BATCH;
        walk.each(cancel, |dent| {
            if stopped() {
                return false;
            }
            if !select(&dent) {
                return true;
            }
            if seq >= admitted {
                // What waits in this batch may be what the window waits for: send it first.
                if !batch.is_empty() && jobs.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).is_err() {
                    return false;
                }
                let mut state = lock(&shared);
                while !state.window.has_room(seq) && !stopped() {
                    state.walker_waiting = true;
                    // A timeout as well: a cancel token tripped from JS does not notify this condvar.
                    state = room.wait_timeout(state, Duration::from_millis(20)).map_or_else(|p| p.into_inner().0, |r| r.0);
                    state.walker_waiting = false;
                }
                admitted = state.window.limit();
            }
            batch.push((seq, dent));
            seq += 1;
            if batch.len() < batch_size {
                return true;
            }
            batch_size = (batch_size * 2).min(BATCH);
            jobs.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).is_ok()
        });
        if !batch.is_empty() && !stopped() {
            let _ = jobs.send(batch);
        }
        drop(jobs);
    });
    !stopped()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ignore::WalkBuilder;
    use std::fs;
    use std::path::PathBuf;
    use std::sync::atomic::AtomicUsize;

    fn tree(name: &str, files: usize) -> PathBuf {
        let root = std::env::temp_dir().join(format!("omp-ordered-{}-{}", name, std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for i in 0..files {
            let dir = root.join(format!("d{}", i % 7));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(format!("f{:04}", i)), b"x").unwrap();
        }
        root
    }

    fn sequential(root: &PathBuf) -> ignore::Walk {
        WalkBuilder::new(root).sort_by_file_name(|a, b| a.cmp(b)).build()
    }

    fn plain(roots: &[PathBuf]) -> WalkBuilder {
        let mut builder = WalkBuilder::new(&roots[0]);
        for root in &roots[1..] {
            builder.add(root);
        }
        builder
    }

    #[test]
    fn workers_finishing_out_of_order_still_yield_walk_order() {
        let root = tree("order", 300);
        let expected: Vec<PathBuf> =
            sequential(&root).filter_map(Result::ok).filter(|d| d.depth() > 0 && d.file_type().unwrap().is_file()).map(|d| d.into_path()).collect();
        let mut got = Vec::new();
        let done = run(
            &SortedWalk::new(vec![root.clone()], &plain, true).helpers(2),
            4,
            &CancelToken::new(),
            |d| d.file_type().map_or(false, |t| t.is_file()),
            || {
                |dent: DirEntry, _: &Turn<'_>| {
                    // Uneven work makes later files finish before earlier ones.
                    let name = dent.file_name().to_string_lossy().into_owned();
                    if name.ends_with('0') {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Some(dent.into_path())
                }
            },
            |path| {
                got.push(path);
                true
            },
        );
        assert!(done);
        assert_eq!(got, expected);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn with_one_worker_every_file_is_next_while_it_is_searched() {
        // Batches hold many files without results; they are handed back after the batch, yet
        // nothing before a file is left to print while the one worker searches it.
        let root = tree("turn", 300);
        let (searched, next) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let done = run(
            &SortedWalk::new(vec![root.clone()], &plain, true).helpers(1),
            1,
            &CancelToken::new(),
            |d| d.file_type().map_or(false, |t| t.is_file()),
            || {
                |dent: DirEntry, turn: &Turn<'_>| {
                    searched.fetch_add(1, Ordering::SeqCst);
                    next.fetch_add(usize::from(turn.is_next()), Ordering::SeqCst);
                    dent.file_name().to_string_lossy().ends_with('7').then(|| dent.into_path())
                }
            },
            |_| true,
        );
        assert!(done);
        assert_eq!((searched.into_inner(), next.into_inner()), (300, 300));
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_consumer_that_stops_stops_the_walk() {
        let root = tree("stop", 2000);
        let handed = std::sync::atomic::AtomicUsize::new(0);
        let mut consumed = 0;
        let done = run(
            &SortedWalk::new(vec![root.clone()], &plain, true).helpers(2),
            2,
            &CancelToken::new(),
            |d| d.file_type().map_or(false, |t| t.is_file()),
            || {
                |dent: DirEntry, _: &Turn<'_>| {
                    handed.fetch_add(1, Ordering::SeqCst);
                    Some(dent)
                }
            },
            |_| {
                consumed += 1;
                consumed < 3
            },
        );
        assert!(!done);
        assert_eq!(consumed, 3);
        // The walker can be at most a window ahead of the consumer when it stops.
        let bound = 3 + 2 * WINDOW_PER_THREAD * 2;
        assert!(handed.load(Ordering::SeqCst) <= bound, "searched {} files after the consumer stopped", handed.load(Ordering::SeqCst));
        let _ = fs::remove_dir_all(&root);
    }
}
