//! The one C ABI of bufkit: `libbufkit.so` / `libbufkit.a`, described by `include/bufkit.h`.
//!
//! C programs, the Erlang NIF, the JNI glue and Java's Panama front all call these functions; no
//! binding reimplements anything. Every export:
//! - is named `bk_<object>_<verb>` and, if it can fail, returns a [`bk_status`] (0 is success);
//! - is written with `#[export]` (crate `bufkit-ffi-macros`), which runs its body inside the panic
//!   boundary: a Rust panic comes back as `BK_STATUS_PANIC`, never unwinds into C (`tests/exports.rs`
//!   checks that no export is written without it);
//! - checks every pointer: NULL where a value is required is `BK_STATUS_NULL_POINTER`, a length
//!   above `PTRDIFF_MAX` is `BK_STATUS_LENGTH_OVERFLOW`;
//! - keeps no thread-local "last error" (JVM virtual threads and BEAM processes migrate threads).
//!
//! # Safety
//! The checks above catch NULL, not garbage. For every export, each non-NULL pointer must point to
//! memory valid for the access its documentation states (reading `len` bytes, writing one value);
//! handles must come from the matching `_new` and not yet be freed; and calls on one handle must
//! not overlap in time unless the handle's documentation says it is thread-safe.
//!
//! ```
//! use bufkit::*;
//!
//! let mut buffer = std::ptr::null_mut();
//! // SAFETY: valid out-pointers and a live handle throughout; freed once at the end.
//! unsafe {
//!     assert_eq!(bk_buffer_new(std::ptr::null(), &mut buffer), bk_status::BK_STATUS_OK);
//!     assert_eq!(bk_buffer_append(buffer, b"hello".as_ptr(), 5), bk_status::BK_STATUS_OK);
//!     let mut len = 0;
//!     assert_eq!(bk_buffer_len(buffer, &mut len), bk_status::BK_STATUS_OK);
//!     assert_eq!(len, 5);
//!     bk_buffer_free(buffer);
//! }
//! ```
#![deny(missing_docs)]
#![allow(non_camel_case_types)]

mod archive;
mod buffer;
mod extract;
mod inflate;
mod macros;
mod pool;
mod progress;
mod source;
mod status;
mod stream;
mod sys;
mod version;

pub use buffer::*;
pub use extract::*;
pub use inflate::*;
pub use pool::*;
pub use source::*;
pub use status::*;
pub use stream::*;
pub use version::*;
