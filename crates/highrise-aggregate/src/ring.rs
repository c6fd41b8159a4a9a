//! The bucket ring: for each live bucket, the list of per-pair records written into it.

use crate::config::RING_SLOTS;

/// One pair's contribution to one bucket. 16 bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pair: u32,
    pub excl_ns: u32,
    pub incl_ns: u32,
    pub calls: u32,
}

/// Buckets are numbered by epoch `timestamp_ns >> bucket_shift`. Live epochs are
/// `oldest_epoch..=newest_epoch` (the buckets that overlap the window `[now - L, now]`), each
/// stored in slot `epoch % RING_SLOTS`.
#[derive(Debug, Clone)]
pub(crate) struct Ring {
    /// Per slot: the flushed records of that bucket.
    pub logs: Vec<Vec<Entry>>,
    /// Per slot: how many of its records are already added to their pairs' window sums.
    /// Records are appended by the event loop without touching the (cold) sums; they are
    /// summed in batches by [`crate::event_engine::Engine::sum_pending`], whose independent
    /// updates overlap their cache misses.
    pub summed: Vec<usize>,
    pub oldest_epoch: u64,
    pub newest_epoch: u64,
}

impl Default for Ring {
    fn default() -> Self {
        Self {
            logs: vec![Vec::new(); RING_SLOTS],
            summed: vec![0; RING_SLOTS],
            oldest_epoch: 0,
            newest_epoch: 0,
        }
    }
}

impl Ring {
    #[inline(always)]
    pub(crate) fn slot(epoch: u64) -> usize {
        (epoch % RING_SLOTS as u64) as usize
    }

    #[inline]
    pub(crate) fn log_mut(&mut self, epoch: u64) -> &mut Vec<Entry> {
        &mut self.logs[Self::slot(epoch)]
    }

    #[inline]
    pub(crate) fn log(&self, epoch: u64) -> &[Entry] {
        &self.logs[Self::slot(epoch)]
    }

    pub(crate) fn entry_count(&self) -> usize {
        self.logs.iter().map(Vec::len).sum()
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.logs
            .iter()
            .map(|log| log.capacity() * size_of::<Entry>())
            .sum::<usize>()
            + self.logs.capacity() * size_of::<Vec<Entry>>()
    }
}
