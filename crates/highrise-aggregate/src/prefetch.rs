//! One CPU hint shared by the tables: bring a cache line in before it is read.

/// Asks the CPU to bring `value`'s cache line in, without waiting for it (unlike a load,
/// a prefetch does not hold up retirement, so many more misses can be in flight).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect; SSE is part of the x86_64 baseline.
    // (Newer compilers consider the intrinsic safe, hence `unused_unsafe`.)
    #[allow(unsafe_code, unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
