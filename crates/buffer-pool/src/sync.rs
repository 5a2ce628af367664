//! The concurrency primitives, through one facade: std and crossbeam normally, loom's models under
//! `--cfg loom`, so the same pool code is what loom checks.

#![forbid(unsafe_code)]

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Mutex};
#[cfg(loom)]
pub(crate) use loom::thread_local;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Mutex};
#[cfg(not(loom))]
pub(crate) use std::thread_local;

/// A bounded multi-producer multi-consumer queue.
#[cfg(not(loom))]
pub(crate) type BoundedQueue<T> = crossbeam_queue::ArrayQueue<T>;

/// Under loom: the same interface over a modelled mutex, so loom explores the pool's own
/// interleavings around it (crossbeam's queue is verified by crossbeam).
#[cfg(loom)]
pub(crate) struct BoundedQueue<T> {
    items: Mutex<std::collections::VecDeque<T>>,
    capacity: usize,
}

#[cfg(loom)]
impl<T> BoundedQueue<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        BoundedQueue { items: Mutex::new(std::collections::VecDeque::new()), capacity }
    }

    pub(crate) fn push(&self, item: T) -> Result<(), T> {
        let mut items = self.items.lock().unwrap();
        if items.len() >= self.capacity {
            return Err(item);
        }
        items.push_back(item);
        Ok(())
    }

    pub(crate) fn pop(&self) -> Option<T> {
        self.items.lock().unwrap().pop_front()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }
}
