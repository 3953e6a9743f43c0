//! The WebAssembly boundary (wasm32 only): the wasm-bindgen exports that translate between
//! JavaScript and the core, and the allocator that zeroes freed blocks.

mod bindings;
mod zeroing_alloc;
