//! What the format modules' unit tests share: the inline images a decoded
//! conversation holds, and the exact round trip back to the wire.

use super::walk::for_each_image;
use super::Message;
use crate::json_path::JsonPath;
use serde_json::Value;

/// An image's path, and its declared MIME type and payload when inline.
pub(super) type SeenImage = (String, Option<(Option<String>, String)>);

/// Every inline image of `messages` (paths from `root`): its path and its
/// declared MIME type and payload.
pub(super) fn inline_images(messages: &[Message], root: &str) -> Vec<SeenImage> {
    let mut seen = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for_each_image(m, &JsonPath::root(root).index(i), &mut |_, p, img| {
            seen.push((
                p.to_string(),
                img.source()
                    .inline()
                    .map(|(m, d)| (m.map(str::to_owned), d.to_owned())),
            ));
        });
    }
    seen
}

/// Asserts that `messages` go back to exactly `wire`, key order included.
pub(super) fn assert_round_trips(messages: Vec<Message>, wire: &[Value]) {
    let back: Vec<Value> = messages.into_iter().map(Message::into_wire).collect();
    assert_eq!(back, wire);
    assert_eq!(
        Value::Array(back).to_string(),
        Value::Array(wire.to_vec()).to_string()
    );
}
