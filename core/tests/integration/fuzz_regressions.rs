//! Every fuzz seed and every input a fuzzer ever crashed on, replayed through
//! the same entry points (`src/fuzzing.rs`) on each `cargo test`.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name() == ".gitkeep" {
                continue;
            }
            let data = std::fs::read(entry.path()).unwrap();
            run(&data);
            n += 1;
        }
    }
    assert!(n > 0, "no inputs for {target}");
}

#[test]
fn markdown_inputs() {
    replay("markdown", ctxpack_core::fuzzing::markdown);
}

#[test]
fn data_url_inputs() {
    replay("data_url", ctxpack_core::fuzzing::data_url);
}

#[test]
fn messages_inputs() {
    replay("messages", ctxpack_core::fuzzing::messages);
}

#[test]
fn sanitize_inputs() {
    replay("sanitize", ctxpack_core::fuzzing::sanitize);
}
