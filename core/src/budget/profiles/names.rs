//! The names a profile carries (its id, its source), kept for the life of
//! the program once each, so a profile stays a plain copyable value; their
//! number is bounded.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// The most distinct names kept (ids and sources).
const MAX_NAMES: usize = 1024;

static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// A lock that a panic elsewhere cannot poison for good.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `name` kept for the life of the program (once per distinct name); `None`
/// when the bound is reached.
pub(super) fn intern(name: &str) -> Option<&'static str> {
    let mut names = lock(&NAMES);
    if let Some(n) = names.iter().find(|n| **n == name) {
        return Some(n);
    }
    if names.len() >= MAX_NAMES {
        return None;
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.push(kept);
    Some(kept)
}

/// `name` kept, or `fallback` once the bound is reached.
pub(super) fn name_or(name: &str, fallback: &'static str) -> &'static str {
    intern(name).unwrap_or(fallback)
}
