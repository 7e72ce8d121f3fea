//! The wasm build's allocator: Talc, which is smaller (about 7 KB less
//! module) and faster than the standard library's default dlmalloc.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
