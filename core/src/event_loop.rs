//! Long work in short tasks. On a page's main thread a task longer than
//! 50 ms (the browser's long-task threshold) freezes the page, so the flows
//! that hash, verify or resize one image after another stop now and then
//! to let the host run: between images, once [`SLICE_MS`] have passed since
//! the last stop (or since the call began, for the first stop: reading the
//! caller's messages is part of the first task). The host supplies the clock,
//! when the call began, and the way to stop (a new task of its event loop);
//! results do not depend on any of them.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;

/// How long a flow works before it lets the host run, in milliseconds:
/// well under the 50 ms threshold, so that one more image still ends the
/// task in time. An image costs about 5 ms per MB of payload to read and
/// hash once the engine has optimized the module, but up to 20 ms per MB in
/// the first call after a page loads, while it has not.
pub const SLICE_MS: f64 = 10.0;

/// The host's event loop, as the flows see it.
pub trait EventLoop {
    /// Milliseconds on a monotonic clock.
    fn now_ms(&self) -> f64;
    /// When the work of the current call began, on the same clock: a flow's
    /// first slice counts from there. By default, now.
    fn began_ms(&self) -> f64 {
        self.now_ms()
    }
    /// Resolves in a later task, after the host ran what was waiting.
    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + '_>>;
}

/// Decides when a flow stops to let the host run.
pub struct Slicer<'a> {
    host: Option<&'a dyn EventLoop>,
    since: Cell<f64>,
}

impl<'a> Slicer<'a> {
    /// Stops on `host`'s event loop every [`SLICE_MS`], the first time
    /// [`SLICE_MS`] after the call began ([`EventLoop::began_ms`]).
    pub fn new(host: &'a dyn EventLoop) -> Self {
        Slicer {
            since: Cell::new(host.began_ms()),
            host: Some(host),
        }
    }

    /// Stops on `host`'s event loop when there is one (the event loop of
    /// the host payloads come from: `Payloads::event_loop`).
    pub fn of(host: Option<&'a dyn EventLoop>) -> Self {
        match host {
            Some(host) => Slicer::new(host),
            None => Slicer {
                host: None,
                since: Cell::new(0.0),
            },
        }
    }

    /// Never stops (native callers, tests).
    pub fn never() -> Slicer<'static> {
        Slicer {
            host: None,
            since: Cell::new(0.0),
        }
    }

    /// Lets the host run if this task has gone on for [`SLICE_MS`]; call it
    /// between units of work.
    pub async fn checkpoint(&self) {
        let Some(host) = self.host else { return };
        if host.now_ms() - self.since.get() >= SLICE_MS {
            host.pause().await;
            self.since.set(host.now_ms());
        }
    }

    /// Notes that the host just ran (the flow awaited storage or another
    /// task): the slice starts again.
    pub fn resumed(&self) {
        if let Some(host) = self.host {
            self.since.set(host.now_ms());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::{Context, Poll, Waker};

    /// A clock moved by hand, counting pauses.
    struct Clock {
        now: Cell<f64>,
        pauses: Cell<usize>,
    }

    impl EventLoop for Clock {
        fn now_ms(&self) -> f64 {
            self.now.get()
        }
        fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + '_>> {
            self.pauses.set(self.pauses.get() + 1);
            Box::pin(async {})
        }
    }

    fn run<F: Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("pending"),
        }
    }

    #[test]
    fn stops_once_a_slice_has_passed_and_starts_a_new_one() {
        let clock = Clock {
            now: Cell::new(100.0),
            pauses: Cell::new(0),
        };
        let slicer = Slicer::new(&clock);
        for step in [2.5, 2.5, 2.5, 2.5, 1.0, 2.5] {
            clock.now.set(clock.now.get() + step);
            run(slicer.checkpoint());
        }
        // 10 ms passed after the fourth step; the last two start a new slice.
        assert_eq!(clock.pauses.get(), 1);
        clock.now.set(clock.now.get() + 30.0);
        slicer.resumed();
        run(slicer.checkpoint());
        assert_eq!(clock.pauses.get(), 1);
        clock.now.set(clock.now.get() + SLICE_MS);
        run(slicer.checkpoint());
        assert_eq!(clock.pauses.get(), 2);
    }

    /// A host whose call began 8 ms before the flow made its slicer.
    struct LateStart(Clock);

    impl EventLoop for LateStart {
        fn now_ms(&self) -> f64 {
            self.0.now_ms()
        }
        fn began_ms(&self) -> f64 {
            self.0.now_ms() - 8.0
        }
        fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + '_>> {
            self.0.pause()
        }
    }

    #[test]
    fn the_first_slice_counts_from_when_the_call_began() {
        let host = LateStart(Clock {
            now: Cell::new(100.0),
            pauses: Cell::new(0),
        });
        let slicer = Slicer::new(&host);
        // 8 ms of the call went by before the flow began: 2 more end the slice.
        host.0.now.set(102.0);
        run(slicer.checkpoint());
        assert_eq!(host.0.pauses.get(), 1);
    }

    #[test]
    fn never_stops_without_a_host() {
        run(Slicer::never().checkpoint());
    }
}
