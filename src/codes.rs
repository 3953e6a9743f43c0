//! Codes the core shares with the host: the frames' layouts name their parts by small numbers
//! (`record::frame`'s slots and flags, `verdict::answer_frame`'s tags). Each set is declared once,
//! with `shared_codes!`, as a C-like enum that wasm builds also export with `#[wasm_bindgen]`, so the
//! generated glue and its `.d.ts` give the host the same names and values.

/// Declares codes shared with the host: C-like enums that wasm builds also export with
/// `#[wasm_bindgen]` (the using module imports `wasm_bindgen` for wasm32), so that the glue has
/// each as an object from names to codes and its `.d.ts` as a TypeScript enum.
macro_rules! shared_codes {
    ($($(#[$meta:meta])* pub enum $name:ident { $($(#[$doc:meta])* $variant:ident = $code:literal,)* })*) => {$(
        $(#[$meta])*
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$doc])* $variant = $code,)* }
    )*};
}
pub(crate) use shared_codes;
