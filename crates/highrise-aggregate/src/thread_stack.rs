//! Per-thread state: the stack of open frames, the thread's clock and bucket cursor.

use crate::pair::PairMap;

/// One open call on a thread's stack. 24 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub method_id: u32,
    /// This frame's (method, thread) pair.
    pub pair: u32,
    /// The pair that is charged exclusive time while this frame is on top: its own pair, or
    /// for an excluded method the nearest non-excluded caller's ([`crate::pair::NO_PAIR`] if
    /// there is none).
    pub charge: u32,
    /// No other frame of the same method was open below this one when it was entered; only
    /// outermost frames add inclusive time, so recursion is not counted twice.
    pub outermost: bool,
    pub enter_ns: u64,
}

/// A thread as the aggregator knows it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThreadState {
    pub thread_id: u64,
    /// Timestamp of the thread's latest event; exclusive time is committed up to here.
    pub last_ns: u64,
    /// Bucket containing `last_ns`, and its bounds.
    pub epoch: u64,
    pub epoch_start_ns: u64,
    pub epoch_end_ns: u64,
    /// `frames[..depth]` is the stack (outermost first); `frames[depth..]` are earlier frames
    /// kept as a call-site cache of their pair index.
    pub depth: u32,
    /// Enters beyond the depth limit that are not tracked; exits first cancel these.
    pub phantom_depth: u32,
    pub frames: Vec<Frame>,
    /// Method id → pair index for this thread's live pairs.
    pub map: PairMap,
    /// `touched[..touched_len]`: the pairs whose accumulators hold the current bucket,
    /// flushed as bucket records when the thread moves to a later bucket (may also hold stale
    /// entries, skipped then). The rest of `touched` is free room for the hot path.
    pub touched: Vec<u32>,
    pub touched_len: usize,
    pub ended: bool,
    /// Timestamp of the thread's latest resync: the agent lost some of its events before
    /// then, so the numbers of its methods are estimates while that is in the window.
    pub resynced_ns: Option<u64>,
    /// The slot is unused (thread released).
    pub free: bool,
}

impl ThreadState {
    pub(crate) fn new(thread_id: u64, bucket_ns: u64) -> Self {
        Self {
            thread_id,
            epoch_end_ns: bucket_ns,
            ..Self::default()
        }
    }

    /// Points the bucket cursor at the bucket containing `timestamp_ns`.
    #[inline]
    pub(crate) fn set_epoch(&mut self, timestamp_ns: u64, bucket_shift: u32) {
        self.epoch = timestamp_ns >> bucket_shift;
        self.epoch_start_ns = self.epoch << bucket_shift;
        self.epoch_end_ns = (self.epoch + 1).saturating_mul(1u64 << bucket_shift);
    }

    #[inline]
    pub(crate) fn stack(&self) -> &[Frame] {
        &self.frames[..self.depth as usize]
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.frames.capacity() * size_of::<Frame>()
            + self.map.memory_bytes()
            + self.touched.capacity() * size_of::<u32>()
    }
}
