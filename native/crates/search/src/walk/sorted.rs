//! The walk in `rg --sort path` order, on several threads.
//!
//! The ignore crate's sorted walker is sequential, and what it skips is its decision alone, so
//! every entry here still comes out of one of its walks. A *lister* walks a root down to
//! `FRONTIER` levels and leaves out the directories it finds there; those, in order, are handed
//! to *chunks*: one sorted walk with several of them as its roots, built with the same options
//! (`parents` makes the ignore crate read the ignore files above each root, as the whole walk would
//! have, and one walk reads them once for all its roots — reading and compiling them is what makes
//! a walk cost anything to start). Helper threads run the lister and the chunks; the consumer
//! reads the lister's output and, at each left-out directory, the chunk's output for it, so the
//! entries arrive in exactly the sequential walk's order.
//!
//! Memory is bounded by the limits, never by the tree: each job buffers a bounded number of items
//! for the consumer and only a bounded number of chunks run ahead of it. Nothing deadlocks: a
//! helper only ever waits for the consumer, the consumer runs a chunk nobody has started itself,
//! and a lister closes the chunk it is filling before it waits.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use ignore::{DirEntry, Walk, WalkBuilder};

use super::ancestors::SplitRule;
use super::job::{Item, Job, Room, Taken, Work};
use super::lock;
use crate::types::CancelToken;

/// The caller's own `filter_entry`: false skips an entry and, for a directory, all below it.
pub(crate) type Keep = Arc<dyn Fn(&DirEntry) -> bool + Send + Sync>;

/// Directories this deep below a root go to chunks; the levels above are the lister's. Each one
/// costs a few system calls more than walking it in place (the lister has read it already, and
/// the chunk stats and canonicalizes it as a root): one level down there are few; two levels
/// down, node_modules' hundreds of packages made the whole walk 40% dearer in system calls.
const FRONTIER: usize = 1;
/// Helpers waiting for a job also wake this often to see the walk stop.
const POLL: Duration = Duration::from_millis(20);

/// How far the walk may run ahead of its consumer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Items one job holds for the consumer before its walker waits.
    pub per_job: usize,
    /// Chunks started and not yet consumed.
    pub chunks: usize,
    /// Directories per chunk.
    pub roots_per_chunk: usize,
}

impl Default for Limits {
    /// A chunk walks while the consumer is still in an earlier one, so how far it may run ahead
    /// is what parallelism there is: on the 30,019-entry benchmark tree (two halves of ~15,000)
    /// 8,192 entries per job left the listing 20% slower than 16,384. An entry is ~150 bytes, so
    /// the worst case (the lister and four chunks full) is ~12 MB; typically one chunk runs ahead.
    fn default() -> Self {
        Self { per_job: 16384, chunks: 4, roots_per_chunk: 24 }
    }
}

/// Roots, each walked depth-first by file name, in the order given.
pub(crate) struct SortedWalk<'a> {
    roots: Vec<PathBuf>,
    /// A builder for some roots with the caller's options: no sorter, no `filter_entry`.
    make: &'a (dyn Fn(&[PathBuf]) -> WalkBuilder + Sync),
    keep: Option<Keep>,
    helpers: usize,
    respect_ignore: bool,
    limits: Limits,
}

impl<'a> SortedWalk<'a> {
    pub fn new(roots: Vec<PathBuf>, make: &'a (dyn Fn(&[PathBuf]) -> WalkBuilder + Sync), respect_ignore: bool) -> Self {
        Self { roots, make, keep: None, helpers: 0, respect_ignore, limits: Limits::default() }
    }

    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = Some(keep);
        self
    }

    /// Threads that walk besides the caller's; 0 walks on the caller's thread alone.
    pub fn helpers(mut self, helpers: usize) -> Self {
        self.helpers = helpers;
        self
    }

    #[cfg(test)]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Calls `visit` with every entry in order on the caller's thread; `visit` returning false
    /// stops the walk, as does `cancel`. Returns false when stopped early either way. Entries
    /// below the frontier have depths counted from their chunk's directory, so only
    /// `depth() == 0` (a root the caller named) means what it means in the sequential walk.
    /// Unreadable entries are skipped, as rg skips them with a warning.
    pub fn each(&self, cancel: &CancelToken, mut visit: impl FnMut(DirEntry) -> bool) -> bool {
        if self.helpers == 0 {
            return self.sequential(cancel, &mut visit);
        }
        let shared = Shared {
            pending: Mutex::new(VecDeque::new()),
            work: Condvar::new(),
            running: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            limits: self.limits,
        };
        std::thread::scope(|scope| {
            for _ in 0..self.helpers {
                let shared = &shared;
                scope.spawn(move || self.help(shared, cancel));
            }
            let finished = self.consume(&shared, cancel, &mut visit);
            shared.stop_all();
            finished
        })
    }

    fn sequential(&self, cancel: &CancelToken, visit: &mut dyn FnMut(DirEntry) -> bool) -> bool {
        let mut builder = self.builder(&self.roots);
        if let Some(keep) = self.keep.clone() {
            builder.filter_entry(move |dent| keep(dent));
        }
        for entry in builder.build() {
            if cancel.is_cancelled() {
                return false;
            }
            if let Ok(dent) = entry {
                if !visit(dent) {
                    return false;
                }
            }
        }
        !cancel.is_cancelled()
    }

    fn builder(&self, roots: &[PathBuf]) -> WalkBuilder {
        let mut builder = (self.make)(roots);
        builder.sort_by_file_path(|a, b| {
            // Entries of one directory share its path up to their names, so comparing the whole
            // paths compares the names, without parsing each path for its last component.
            a.as_os_str().cmp(b.as_os_str())
        });
        builder
    }

    fn consume(&self, shared: &Shared, cancel: &CancelToken, visit: &mut dyn FnMut(DirEntry) -> bool) -> bool {
        for root in &self.roots {
            let rule = Arc::new(SplitRule::for_root(root, self.respect_ignore));
            let lister = Arc::new(Job::new(Work::Lister { root: root.clone(), rule }));
            lister.closed.store(true, Ordering::Release);
            shared.queue(Arc::clone(&lister));
            let mut stack = vec![lister];
            while let Some(job) = stack.last().map(Arc::clone) {
                if cancel.is_cancelled() {
                    return false;
                }
                match self.next_for_consumer(&job, shared, cancel) {
                    Some(Item::Entry(dent)) => {
                        if !visit(dent) {
                            return false;
                        }
                    }
                    Some(Item::Root(chunk, index)) => {
                        let root = chunk.chunk_roots()[index].clone();
                        if !visit(root) {
                            return false;
                        }
                        stack.push(chunk);
                    }
                    Some(Item::End) => {
                        let chunk = stack.pop().expect("an end has its chunk");
                        let ended = lock(&chunk.consumer).ended_roots_add();
                        if ended == chunk.chunk_roots().len() {
                            shared.consumed();
                        }
                    }
                    None => {
                        if cancel.is_cancelled() {
                            return false;
                        }
                        stack.pop();
                    }
                }
            }
        }
        true
    }

    /// The next item of `job` for the consumer: what a helper produced, or what the consumer's
    /// own run of it produces when nobody had started it.
    fn next_for_consumer(&self, job: &Arc<Job>, shared: &Shared, cancel: &CancelToken) -> Option<Item> {
        let mut side = lock(&job.consumer);
        loop {
            if let Some(item) = side.taken.pop_front() {
                return Some(item);
            }
            if let Some(runner) = side.runner.as_mut() {
                return runner.next(self, shared, cancel);
            }
            match job.take(&mut side.taken, cancel) {
                Taken::Items => {}
                Taken::Unclaimed => {
                    if job.claim() {
                        shared.started.fetch_add(1, Ordering::SeqCst);
                        side.runner = Some(Runner::new(self, job));
                    }
                }
                Taken::End => return None,
            }
        }
    }

    /// A helper: runs the earliest job nobody runs yet until the walk is over.
    fn help(&self, shared: &Shared, cancel: &CancelToken) {
        while let Some(job) = shared.next_job() {
            lock(&shared.running).push(Arc::clone(&job));
            let mut runner = Runner::new(self, &job);
            while let Some(item) = runner.next(self, shared, cancel) {
                // Before waiting for room, the lister closes the chunk it fills: the consumer
                // may be about to wait for that chunk.
                if shared.stop.load(Ordering::Relaxed) || !job.push(item, shared.room(), cancel, || runner.close_chunk(shared)) {
                    break;
                }
            }
            runner.close_chunk(shared);
            job.finish();
            lock(&shared.running).retain(|running| !Arc::ptr_eq(running, &job));
        }
    }
}

/// A job's walk, run by a helper or by the consumer.
pub(super) struct Runner {
    walk: Walk,
    /// Directories the lister's filter left out and the lister has not yet placed.
    left_out: Arc<Mutex<Vec<DirEntry>>>,
    any_left_out: Arc<AtomicBool>,
    ready: VecDeque<Item>,
    /// For a lister: the chunk being filled, and how many roots it takes. The first chunks take
    /// one: the consumer gets going at once and helpers get the first directories, which may be
    /// all there is; later ones take more and more, so that many small directories share the
    /// cost of starting a walk.
    filling: Option<Arc<Job>>,
    chunk_size: usize,
    /// For a chunk: its roots, and how many of them have ended.
    roots: Vec<PathBuf>,
    ended: usize,
    lister: bool,
    finished: bool,
}

impl Runner {
    fn new(walk: &SortedWalk<'_>, job: &Job) -> Self {
        let left_out = Arc::new(Mutex::new(Vec::new()));
        let any_left_out = Arc::new(AtomicBool::new(false));
        match &job.work {
            Work::Lister { root, rule } => {
                let mut builder = walk.builder(std::slice::from_ref(root));
                let (keep, rule) = (walk.keep.clone(), Arc::clone(rule));
                let (left_out_for_filter, any_for_filter) = (Arc::clone(&left_out), Arc::clone(&any_left_out));
                builder.filter_entry(move |dent| {
                    if let Some(keep) = &keep {
                        if !keep(dent) {
                            return false;
                        }
                    }
                    if dent.depth() == FRONTIER && dent.file_type().map_or(false, |t| t.is_dir()) && rule.allows(dent.path()) {
                        lock(&left_out_for_filter).push(dent.clone());
                        any_for_filter.store(true, Ordering::Release);
                        return false;
                    }
                    true
                });
                Self::with(builder.build(), left_out, any_left_out, Vec::new(), true)
            }
            Work::Chunk { .. } => {
                let roots: Vec<PathBuf> = job.chunk_roots().iter().map(|dent| dent.path().to_path_buf()).collect();
                let mut builder = walk.builder(&roots);
                if let Some(keep) = walk.keep.clone() {
                    builder.filter_entry(move |dent| keep(dent));
                }
                Self::with(builder.build(), left_out, any_left_out, roots, false)
            }
        }
    }

    fn with(walk: Walk, left_out: Arc<Mutex<Vec<DirEntry>>>, any: Arc<AtomicBool>, roots: Vec<PathBuf>, lister: bool) -> Self {
        Self {
            walk,
            left_out,
            any_left_out: any,
            ready: VecDeque::new(),
            filling: None,
            chunk_size: 1,
            roots,
            ended: 0,
            lister,
            finished: false,
        }
    }

    pub(super) fn next(&mut self, walk: &SortedWalk<'_>, shared: &Shared, cancel: &CancelToken) -> Option<Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if self.finished || cancel.is_cancelled() {
                return None;
            }
            let entry = self.walk.next();
            // A directory is left out while the walker looks at it, before the walk yields
            // whatever comes after it.
            if self.any_left_out.swap(false, Ordering::Acquire) {
                let left_out: Vec<DirEntry> = lock(&self.left_out).drain(..).collect();
                for dent in left_out {
                    let item = self.add_to_chunk(dent, walk, shared);
                    self.ready.push_back(item);
                }
            }
            match entry {
                None => {
                    self.finished = true;
                    self.close_chunk(shared);
                    self.end_roots_before(self.roots.len());
                }
                Some(Ok(dent)) if self.lister => self.ready.push_back(Item::Entry(dent)),
                Some(Ok(dent)) if dent.depth() == 0 => {
                    // A chunk's next root: the subtrees before it are over, including those of
                    // roots that vanished and yielded nothing.
                    if let Some(at) = self.roots[self.ended..].iter().position(|root| root == dent.path()) {
                        self.end_roots_before(self.ended + at);
                    }
                }
                Some(Ok(dent)) => self.ready.push_back(Item::Entry(dent)),
                Some(Err(_)) => {}
            }
        }
    }

    fn end_roots_before(&mut self, index: usize) {
        while self.ended < index {
            self.ready.push_back(Item::End);
            self.ended += 1;
        }
    }

    fn add_to_chunk(&mut self, dent: DirEntry, walk: &SortedWalk<'_>, shared: &Shared) -> Item {
        let chunk = self.filling.get_or_insert_with(|| Arc::new(Job::new(Work::Chunk { roots: Mutex::new(Vec::new()) })));
        let chunk = Arc::clone(chunk);
        let count = match &chunk.work {
            Work::Chunk { roots } => {
                let mut roots = lock(roots);
                roots.push(dent);
                roots.len()
            }
            Work::Lister { .. } => unreachable!("chunks are filled"),
        };
        if count >= self.chunk_size {
            self.chunk_size = (self.chunk_size * 2).min(walk.limits.roots_per_chunk);
            self.close_chunk(shared);
        }
        Item::Root(chunk, count - 1)
    }

    /// Closes the chunk being filled, if any, and queues it.
    fn close_chunk(&mut self, shared: &Shared) {
        if let Some(chunk) = self.filling.take() {
            chunk.closed.store(true, Ordering::Release);
            chunk.wake();
            shared.queue(chunk);
        }
    }
}

pub(super) struct Shared {
    /// Jobs waiting for a helper, in walk order (they are made in that order).
    pending: Mutex<VecDeque<Arc<Job>>>,
    work: Condvar,
    /// Jobs helpers are running, to wake them when the walk stops.
    running: Mutex<Vec<Arc<Job>>>,
    /// Chunks started and not yet consumed.
    started: AtomicUsize,
    stop: AtomicBool,
    limits: Limits,
}

impl Shared {
    fn room(&self) -> Room<'_> {
        Room { per_job: self.limits.per_job, stop: &self.stop }
    }

    fn queue(&self, job: Arc<Job>) {
        lock(&self.pending).push_back(job);
        self.work.notify_one();
    }

    /// A chunk was consumed: one more may start.
    fn consumed(&self) {
        let _pending = lock(&self.pending);
        self.started.fetch_sub(1, Ordering::SeqCst);
        self.work.notify_all();
    }

    /// The earliest job nobody claimed, waiting for one (and, for a chunk, for room to run
    /// ahead); `None` once the walk stops. A job the consumer claimed meanwhile is dropped.
    fn next_job(&self) -> Option<Arc<Job>> {
        let mut pending = lock(&self.pending);
        loop {
            if self.stop.load(Ordering::Acquire) {
                return None;
            }
            if let Some(job) = pending.front() {
                let room = !job.is_chunk() || self.started.load(Ordering::SeqCst) < self.limits.chunks;
                if job.claimed.load(Ordering::Acquire) {
                    pending.pop_front();
                    continue;
                }
                if room {
                    let job = pending.pop_front().expect("a front job");
                    if job.claim() {
                        if job.is_chunk() {
                            self.started.fetch_add(1, Ordering::SeqCst);
                        }
                        return Some(job);
                    }
                    continue;
                }
            }
            pending = self.work.wait_timeout(pending, POLL).map_or_else(|p| p.into_inner().0, |r| r.0);
        }
    }

    fn stop_all(&self) {
        {
            let _pending = lock(&self.pending);
            self.stop.store(true, Ordering::Release);
            self.work.notify_all();
        }
        for job in lock(&self.running).iter() {
            job.wake();
        }
    }
}


#[cfg(test)]
#[path = "sorted_tests.rs"]
mod tests;
