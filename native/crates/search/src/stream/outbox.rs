//! Where a streaming search leaves its output: formatted bytes gathered into chunks of bounded
//! size, a bounded queue of them between the search threads and the one consumer, and the
//! search's outcome once it is over.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::types::{SearchError, StreamSummary};

/// Chunks are handed over at about this size: large enough that the per-chunk cost on the JS side
/// (a promise, a Buffer, a write) is noise, small enough that the first output is not held back.
const CHUNK_BYTES: usize = 256 * 1024;
/// Full chunks waiting for the consumer before the search threads block (backpressure).
const MAX_QUEUED: usize = 4;
/// A waiting consumer takes a partial chunk once it holds this much...
const EAGER_BYTES: usize = 32 * 1024;
/// ...or once it has waited this long with some output there: the first results show at once,
/// without a ping-pong of tiny chunks (one promise and one write each) while output flows fast.
const FLUSH_DELAY: Duration = Duration::from_millis(4);

pub struct Outbox {
    state: Mutex<State>,
    /// The consumer waits here for a chunk or the end.
    ready: Condvar,
    /// Producers wait here for room in the queue.
    room: Condvar,
    chunk_bytes: usize,
    max_queued: usize,
    eager_bytes: usize,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Vec<u8>>,
    current: Vec<u8>,
    /// Some block was written: the next context block is preceded by a `--` line.
    wrote_any: bool,
    outcome: Option<Result<StreamSummary, SearchError>>,
    /// The consumer is gone: producers stop at their next write.
    closed: bool,
    /// Chunks the consumer is done with, reused: a fresh chunk of this size is a fresh mapping
    /// from the allocator, and touching its pages cost more than the search in a profile.
    spare: Vec<Vec<u8>>,
    consumer_waiting: bool,
    /// Some chunk was handed over: until then a waiting consumer takes whatever there is at once,
    /// so `omp grep x | head -1` does not wait out the flush delay.
    handed_any: bool,
}

impl Default for Outbox {
    fn default() -> Self {
        Self::new(CHUNK_BYTES, MAX_QUEUED)
    }
}

impl Outbox {
    pub fn new(chunk_bytes: usize, max_queued: usize) -> Self {
        Self {
            state: Mutex::default(),
            ready: Condvar::new(),
            room: Condvar::new(),
            chunk_bytes: chunk_bytes.max(1),
            max_queued: max_queued.max(1),
            eager_bytes: EAGER_BYTES.min(chunk_bytes.max(1)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends one block (a file's lines, a path). `separator` goes before it unless it is the
    /// first block. Blocks until the queue has room. False once the consumer has closed: stop.
    pub fn write(&self, separator: Option<&[u8]>, block: &[u8]) -> bool {
        self.write_with(separator, |out| out.extend_from_slice(block))
    }

    /// `write`, with the block written in place by `fill`: formatted straight into the chunk,
    /// never into a buffer of its own first.
    pub fn write_with(&self, separator: Option<&[u8]>, fill: impl FnOnce(&mut Vec<u8>)) -> bool {
        let mut state = self.lock();
        if state.closed {
            return false;
        }
        let was_empty = state.current.is_empty();
        if let Some(separator) = separator.filter(|_| state.wrote_any) {
            state.current.extend_from_slice(separator);
        }
        state.wrote_any = true;
        fill(&mut state.current);
        if state.current.len() >= self.chunk_bytes {
            let full = self.swap_current(&mut state);
            state.queue.push_back(full);
            while state.queue.len() > self.max_queued && !state.closed {
                state = self.room.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        }
        // A waiting consumer hears of the first bytes (to start its flush timer) and of enough
        // bytes; not of every block in between.
        if state.consumer_waiting && (was_empty || !state.queue.is_empty() || state.current.len() >= self.eager_bytes) {
            self.ready.notify_one();
        }
        !state.closed
    }

    /// Ends the stream with the search's outcome; what was written is still delivered first.
    pub fn finish(&self, outcome: Result<StreamSummary, SearchError>) {
        let mut state = self.lock();
        state.outcome.get_or_insert(outcome);
        self.ready.notify_all();
    }

    /// The next chunk, blocking until there is one; `None` once the stream ended or was closed.
    pub fn next_chunk(&self) -> Option<Vec<u8>> {
        let mut state = self.lock();
        let mut partial_since: Option<Instant> = None;
        loop {
            if let Some(chunk) = state.queue.pop_front() {
                state.handed_any = true;
                self.room.notify_all();
                return Some(chunk);
            }
            let pending = state.current.len();
            let ended = state.outcome.is_some() || state.closed;
            let waited_enough = partial_since.map_or(false, |since| since.elapsed() >= FLUSH_DELAY);
            if pending > 0 && (ended || !state.handed_any || pending >= self.eager_bytes || waited_enough) {
                state.handed_any = true;
                return Some(self.swap_current(&mut state));
            }
            if ended {
                return None;
            }
            state.consumer_waiting = true;
            state = if pending > 0 {
                let since = *partial_since.get_or_insert_with(Instant::now);
                let left = FLUSH_DELAY.saturating_sub(since.elapsed());
                self.ready.wait_timeout(state, left).map_or_else(|p| p.into_inner().0, |r| r.0)
            } else {
                self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner())
            };
            state.consumer_waiting = false;
        }
    }

    /// Hands a chunk `next_chunk` gave out back for reuse, once its bytes were copied out.
    pub fn recycle(&self, mut chunk: Vec<u8>) {
        let mut state = self.lock();
        if chunk.capacity() >= self.chunk_bytes && state.spare.len() <= self.max_queued && !state.closed {
            chunk.clear();
            state.spare.push(chunk);
        }
    }

    /// Takes the chunk being filled, putting a spare (or a new one of full size) in its place.
    fn swap_current(&self, state: &mut State) -> Vec<u8> {
        let next = state.spare.pop().unwrap_or_else(|| Vec::with_capacity(self.chunk_bytes + self.chunk_bytes / 4));
        std::mem::replace(&mut state.current, next)
    }

    /// The outcome, once `next_chunk` returned `None` after the search finished.
    pub fn outcome(&self) -> Option<Result<StreamSummary, SearchError>> {
        self.lock().outcome.clone()
    }

    /// The consumer stops listening: pending output is dropped and blocked producers wake up
    /// and stop.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.queue.clear();
        state.current = Vec::new();
        state.spare = Vec::new();
        self.room.notify_all();
        self.ready.notify_all();
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }
}

#[cfg(test)]
mod tests {
    use super::Outbox;
    use crate::types::StreamSummary;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn separators_go_between_blocks_only() {
        let outbox = Outbox::new(1024, 2);
        assert!(outbox.write(Some(b"--\n"), b"a\n"));
        assert!(outbox.write(Some(b"--\n"), b"b\n"));
        outbox.finish(Ok(StreamSummary::default()));
        assert_eq!(outbox.next_chunk().unwrap(), b"a\n--\nb\n");
        assert_eq!(outbox.next_chunk(), None);
        assert!(outbox.outcome().unwrap().is_ok());
    }

    #[test]
    fn producers_block_on_a_full_queue_and_stop_on_close() {
        let outbox = Arc::new(Outbox::new(4, 2));
        let producer = {
            let outbox = Arc::clone(&outbox);
            thread::spawn(move || {
                let mut written = 0;
                while outbox.write(None, b"1234") {
                    written += 1;
                }
                written
            })
        };
        // The producer can get at most max_queued + 1 chunks ahead of a consumer that reads none.
        let first = outbox.next_chunk().unwrap();
        assert_eq!(first, b"1234");
        outbox.close();
        let written = producer.join().unwrap();
        assert!(written <= 5, "wrote {} chunks past a queue of 2", written);
        assert_eq!(outbox.next_chunk(), None);
    }

    #[test]
    fn a_waiting_consumer_gets_partial_chunks() {
        let outbox = Arc::new(Outbox::new(1 << 20, 2));
        let consumer = {
            let outbox = Arc::clone(&outbox);
            thread::spawn(move || outbox.next_chunk())
        };
        thread::sleep(std::time::Duration::from_millis(20));
        outbox.write(None, b"first\n");
        assert_eq!(consumer.join().unwrap().unwrap(), b"first\n");
    }
}
