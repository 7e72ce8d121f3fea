#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ctxpack_core::fuzzing::sanitize(data));
