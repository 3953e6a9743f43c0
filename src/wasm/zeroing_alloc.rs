//! The wasm build's global allocator: the standard one (dlmalloc), except that every block is
//! zeroed before it is freed. Freed memory is otherwise left as it was, so an owned copy of a
//! record's text (wasm-bindgen's copy of a JS string and its reallocation for non-ASCII text, a
//! parsed string, the canonical arguments, an error message, a run's tool names after the run
//! ended) would stay readable in the module's memory until reused. Zeroing in the allocator closes
//! every such path at once, including error paths and ones no code names.
//!
//! `realloc` is the trait's default (allocate, copy, `dealloc`), so a moved block is zeroed too.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

pub struct ZeroOnFree;

// SAFETY: every call forwards to `System` with the caller's layout; `dealloc` writes only the
// `layout.size()` bytes the caller owns at `ptr` before handing them back.
unsafe impl GlobalAlloc for ZeroOnFree {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        ptr.write_bytes(0, layout.size());
        // The block is about to be freed: keep the optimiser from treating the zeroing as dead.
        std::hint::black_box(ptr);
        System.dealloc(ptr, layout);
    }
}

#[global_allocator]
static ALLOCATOR: ZeroOnFree = ZeroOnFree;
