//! What the threads of a `SortedWalk` hand each other: jobs (a lister's or a chunk's walk) and
//! the bounded buffer of items each one fills for the consumer.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use ignore::DirEntry;

use super::ancestors::SplitRule;
use super::lock;
use super::sorted::Runner;
use crate::types::CancelToken;

/// A waiting thread also wakes this often to see a cancel token that nobody signals.
const POLL: Duration = Duration::from_millis(20);
/// Entries a job gathers before it wakes a consumer waiting for them: a wake-up per entry costs
/// more than walking it.
const WAKE_BATCH: usize = 256;

/// How much a job may hold, and whether the walk is stopping.
#[derive(Clone, Copy)]
pub(super) struct Room<'a> {
    pub per_job: usize,
    pub stop: &'a AtomicBool,
}

pub(super) enum Item {
    Entry(DirEntry),
    /// The chunk's directory at this index: its entry, then the chunk's items up to an `End`.
    Root(Arc<Job>, usize),
    /// A chunk directory's subtree is over.
    End,
}

pub(super) enum Work {
    Lister { root: PathBuf, rule: Arc<SplitRule> },
    /// Filled by the lister while `closed` is false.
    Chunk { roots: Mutex<Vec<DirEntry>> },
}

pub(super) struct Job {
    pub work: Work,
    /// A chunk takes no more roots and may be run.
    pub closed: AtomicBool,
    pub claimed: AtomicBool,
    out: Mutex<Out>,
    /// Signals the consumer (items, the end, or a chunk closed) and the walker (room).
    moved: Condvar,
    /// Only the consumer's thread uses this.
    pub consumer: Mutex<ConsumerSide>,
}

#[derive(Default)]
struct Out {
    items: VecDeque<Item>,
    done: bool,
    reader_waiting: bool,
    writer_waiting: bool,
}

#[derive(Default)]
pub(super) struct ConsumerSide {
    pub taken: VecDeque<Item>,
    /// The consumer's own run of the job, when it found nobody running it.
    pub runner: Option<Runner>,
    ended_roots: usize,
}

impl ConsumerSide {
    pub fn ended_roots_add(&mut self) -> usize {
        self.ended_roots += 1;
        self.ended_roots
    }
}

pub(super) enum Taken {
    Items,
    /// Nobody runs the job and it may be run: the consumer should.
    Unclaimed,
    End,
}

impl Job {
    pub fn new(work: Work) -> Self {
        Self {
            work,
            closed: AtomicBool::new(false),
            claimed: AtomicBool::new(false),
            out: Mutex::default(),
            moved: Condvar::new(),
            consumer: Mutex::default(),
        }
    }

    pub fn is_chunk(&self) -> bool {
        matches!(self.work, Work::Chunk { .. })
    }

    pub fn chunk_roots(&self) -> MutexGuard<'_, Vec<DirEntry>> {
        match &self.work {
            Work::Chunk { roots } => lock(roots),
            Work::Lister { .. } => unreachable!("only chunks have roots"),
        }
    }

    /// True for the one thread that gets to run it.
    pub fn claim(&self) -> bool {
        !self.claimed.swap(true, Ordering::AcqRel)
    }

    /// Adds an item, waiting while the job holds its share (after calling `before_waiting`,
    /// without the lock); false once the walk is stopping.
    pub fn push(&self, item: Item, room: Room<'_>, cancel: &CancelToken, mut before_waiting: impl FnMut()) -> bool {
        let mut out = lock(&self.out);
        if out.items.len() >= room.per_job {
            drop(out);
            before_waiting();
            out = lock(&self.out);
        }
        while out.items.len() >= room.per_job {
            if room.stop.load(Ordering::Acquire) || cancel.is_cancelled() {
                return false;
            }
            out.writer_waiting = true;
            out = self.moved.wait_timeout(out, POLL).map_or_else(|p| p.into_inner().0, |r| r.0);
            out.writer_waiting = false;
        }
        out.items.push_back(item);
        if out.reader_waiting && out.items.len() >= WAKE_BATCH {
            self.moved.notify_all();
        }
        true
    }

    pub fn finish(&self) {
        let mut out = lock(&self.out);
        out.done = true;
        self.moved.notify_all();
    }

    /// Moves what the job's walker has produced into `into`, waiting for it.
    pub fn take(&self, into: &mut VecDeque<Item>, cancel: &CancelToken) -> Taken {
        let mut out = lock(&self.out);
        loop {
            if !out.items.is_empty() {
                std::mem::swap(&mut out.items, into);
                if out.writer_waiting {
                    self.moved.notify_all();
                }
                return Taken::Items;
            }
            if out.done || cancel.is_cancelled() {
                return Taken::End;
            }
            if self.is_chunk() && self.closed.load(Ordering::Acquire) && !self.claimed.load(Ordering::Acquire) {
                return Taken::Unclaimed;
            }
            out.reader_waiting = true;
            out = self.moved.wait_timeout(out, POLL).map_or_else(|p| p.into_inner().0, |r| r.0);
            out.reader_waiting = false;
        }
    }

    /// Wakes whoever waits on it: the walk is stopping, or the chunk was closed.
    pub fn wake(&self) {
        let _out = lock(&self.out);
        self.moved.notify_all();
    }
}
