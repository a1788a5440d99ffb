//! The process's allocator (glibc's malloc on Linux): a fixed mmap
//! threshold, set once at start by `cli`, and the freed pages handed back
//! between stages by `analysis` (on other platforms both do nothing); and
//! what a command leaves to the kernel at exit instead of freeing it.

/// glibc's malloc raises its mmap threshold each time a large block is
/// freed (up to 32 MiB). After the first few batches, the decoder's
/// per-batch records and the report's PNG buffers are then carved from the
/// per-thread heaps, where small long-lived blocks pin the freed space and it
/// stays resident. A fixed threshold keeps blocks of 256 KiB and more out of
/// those heaps and hands them back to the kernel when freed: a lower peak RSS
/// for `analyze --out` at no measurable cost in time (`examples/bench.rs`
/// prints both). Call it before any other thread exists.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; the caller runs it before
    // any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

/// For many small analyses side by side (`batch`): a high threshold (32 MiB,
/// the ceiling of glibc's own dynamic one). With the fixed 256 KiB one every
/// table buffer of every analysis is an mmap and a munmap, and two workers
/// spend a third of their time in the kernel (docs/lake.md, "Speed").
pub fn raise_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter (under the main arena's
    // lock); 32 MiB is glibc's own upper bound for the dynamic threshold.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
}

/// Give the kernel back the free pages inside glibc's heaps. Blocks under
/// the mmap threshold that were freed among long-lived ones (the frames
/// stage's indexes, among the model's names) stay resident otherwise; once
/// the frames are built, releasing them lowers `analyze --out`'s peak RSS.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the kernel; it takes
    // the allocator's own locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Leave `value` to the kernel, which takes it back at exit: for what a
/// command no longer needs just before it prints its result and exits, where
/// freeing millions of blocks one by one is pure cost.
pub fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}
