//! The reorder window: results finish out of order on worker threads and leave in the order they
//! were handed out, holding at most `capacity` of them in between.

use std::collections::VecDeque;

/// Slots for sequence numbers `next .. next + capacity`. The producer asks `has_room(seq)` before
/// handing out `seq`, so the window never grows past its capacity, however slow one item is.
pub struct ReorderWindow<T> {
    next: u64,
    slots: VecDeque<Option<T>>,
    capacity: usize,
}

impl<T> ReorderWindow<T> {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self { next: 0, slots: VecDeque::with_capacity(capacity), capacity }
    }

    /// Whether `seq` may be handed out now: it lies inside the window.
    pub fn has_room(&self, seq: u64) -> bool {
        seq < self.limit()
    }

    /// The first sequence number past the window.
    pub fn limit(&self) -> u64 {
        self.next + self.capacity as u64
    }

    /// Stores the result for `seq`, which must be inside the window and not yet stored.
    pub fn insert(&mut self, seq: u64, item: T) {
        assert!(seq >= self.next && self.has_room(seq), "sequence {} outside the window at {}", seq, self.next);
        let index = (seq - self.next) as usize;
        while self.slots.len() <= index {
            self.slots.push_back(None);
        }
        debug_assert!(self.slots[index].is_none(), "sequence {} stored twice", seq);
        self.slots[index] = Some(item);
    }

    /// The result for `next`, if it is in, advancing the window by one.
    pub fn pop_ready(&mut self) -> Option<T> {
        match self.slots.front_mut() {
            Some(slot) if slot.is_some() => {
                let item = slot.take();
                self.slots.pop_front();
                self.next += 1;
                item
            }
            _ => None,
        }
    }

    /// Results stored and waiting for an earlier one.
    #[cfg(test)]
    pub fn buffered(&self) -> usize {
        self.slots.iter().filter(|slot| slot.is_some()).count()
    }

    /// The sequence number the window waits for.
    pub fn next(&self) -> u64 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::ReorderWindow;

    fn drain(window: &mut ReorderWindow<u64>, out: &mut Vec<u64>) {
        while let Some(item) = window.pop_ready() {
            out.push(item);
        }
    }

    #[test]
    fn out_of_order_completion_leaves_in_order() {
        let mut window = ReorderWindow::new(4);
        let mut out = Vec::new();
        for seq in [2, 1, 3] {
            window.insert(seq, seq);
            drain(&mut window, &mut out);
            assert!(out.is_empty(), "nothing may leave before 0");
        }
        assert_eq!(window.buffered(), 3);
        window.insert(0, 0);
        drain(&mut window, &mut out);
        assert_eq!(out, [0, 1, 2, 3]);
        assert_eq!(window.buffered(), 0);
        assert_eq!(window.next(), 4);
    }

    #[test]
    fn room_is_bounded_by_the_slowest_item() {
        let mut window = ReorderWindow::new(3);
        assert!(window.has_room(0) && window.has_room(2));
        assert!(!window.has_room(3), "a window of 3 holds 0..3 while 0 is outstanding");
        window.insert(2, 2);
        window.insert(1, 1);
        assert!(!window.has_room(3), "later items finishing does not make room");
        assert_eq!(window.pop_ready(), None);
        window.insert(0, 0);
        assert_eq!(window.pop_ready(), Some(0));
        assert!(window.has_room(3) && !window.has_room(4));
    }

    #[test]
    #[should_panic(expected = "outside the window")]
    fn inserting_past_the_window_is_a_bug() {
        let mut window = ReorderWindow::new(2);
        window.insert(2, 2);
    }

    #[test]
    fn shuffled_completion_of_many_items_keeps_order_and_bound() {
        // A deterministic shuffle of completions within the window: each round hands out as much
        // as fits and completes the handed-out items in a scrambled order.
        let capacity = 8;
        let mut window = ReorderWindow::new(capacity);
        let (mut handed, mut out, mut outstanding) = (0u64, Vec::new(), Vec::new());
        let mut seed = 7u64;
        while out.len() < 1000 {
            while handed < 1000 && window.has_room(handed) {
                outstanding.push(handed);
                handed += 1;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pick = (seed >> 33) as usize % outstanding.len();
            let seq = outstanding.swap_remove(pick);
            window.insert(seq, seq);
            assert!(window.buffered() <= capacity);
            drain(&mut window, &mut out);
        }
        assert_eq!(out, (0..1000).collect::<Vec<_>>());
    }
}
