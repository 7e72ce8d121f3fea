//! The host's event loop for the core's [`EventLoop`]: its clock
//! (`Date.now()`, fine for 10 ms slices), when the current call began
//! (each exported function marks it as it starts reading its arguments,
//! which is work of the same task) and a way to let it run — `scheduler.yield()` where
//! the browser has it, else a `MessageChannel` message (no 4 ms clamping,
//! unlike nested `setTimeout`), `setImmediate` in Node, `setTimeout` last.

use ctxpack_core::event_loop::EventLoop;
use js_sys::{Array, Function, Promise, Reflect};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The event loop of the JavaScript host this module runs in.
pub struct HostLoop {
    /// When the current call began (`f64` bits), see [`HostLoop::mark_began`].
    began: AtomicU64,
}

/// The one host loop.
pub static HOST_LOOP: HostLoop = HostLoop {
    began: AtomicU64::new(0),
};

impl HostLoop {
    /// Notes that a call begins now: the slices of its flows count from here.
    pub fn mark_began(&self) {
        self.began.store(self.now_ms().to_bits(), Ordering::Relaxed);
    }
}

fn global_fn(target: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(target, &JsValue::from_str(name))
        .ok()?
        .dyn_into()
        .ok()
}

/// A promise that resolves in a later task.
fn next_task() -> Promise {
    let global = js_sys::global();
    if let Ok(scheduler) = Reflect::get(&global, &"scheduler".into()) {
        if let Some(p) = global_fn(&scheduler, "yield")
            .and_then(|y| y.call0(&scheduler).ok())
            .and_then(|p| p.dyn_into::<Promise>().ok())
        {
            return p;
        }
    }
    Promise::new(&mut |resolve, _| {
        if let Some(f) = global_fn(&global, "setImmediate") {
            if f.call1(&global, &resolve).is_ok() {
                return;
            }
        }
        if let Some(channel) = global_fn(&global, "MessageChannel")
            .and_then(|c| Reflect::construct(&c, &Array::new()).ok())
        {
            let port = |name: &str| Reflect::get(&channel, &name.into()).ok();
            if let (Some(receiver), Some(sender)) = (port("port1"), port("port2")) {
                let _ = Reflect::set(&receiver, &"onmessage".into(), &resolve);
                if let Some(post) = global_fn(&sender, "postMessage") {
                    if post.call1(&sender, &JsValue::NULL).is_ok() {
                        return;
                    }
                }
            }
        }
        if let Some(f) = global_fn(&global, "setTimeout") {
            let _ = f.call2(&global, &resolve, &JsValue::from(0));
        } else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    })
}

impl EventLoop for HostLoop {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn began_ms(&self) -> f64 {
        // A mark left by an earlier call (one that made none) only makes
        // the first checkpoint stop at once.
        f64::from_bits(self.began.load(Ordering::Relaxed)).min(self.now_ms())
    }

    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        Box::pin(async {
            let _ = JsFuture::from(next_task()).await;
        })
    }
}
