//! The one description of what crosses the boundary: every field of a size-first struct
//! (`bk_extract_options`, `bk_extract_report`) with its name, its offset, its documentation and how
//! each binding spells it. `#[derive(Boundary)]` (crate `bufkit-ffi-macros`) writes this from
//! the struct itself, so the struct is the table: cbindgen turns it into C, and
//! `tests/bindings.rs` turns it into the Java records, the Panama layouts and marshalling, the
//! JNI glue's marshalling and the Erlang NIF's map parsing (committed, and checked to be fresh
//! as the header is). Adding an option is adding a field here and the code that implements it.

#![forbid(unsafe_code)]

/// A struct the bindings are generated from.
#[doc(hidden)]
pub trait Described {
    /// The C name (`bk_extract_options`).
    const C_NAME: &'static str;
    /// Its fields, in declaration order.
    const FIELDS: &'static [Field];
    /// `size_of` the struct.
    const SIZE: usize;
}

/// One field of a [`Described`] struct.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The C name, snake_case; bindings derive theirs from it (Java camelCase, Erlang atoms).
    pub name: &'static str,
    /// Its byte offset.
    pub offset: usize,
    /// Its size in bytes.
    pub size: usize,
    /// Its Rust type as written (`u32`, `usize`, `*const bk_cancel`).
    pub rust_type: &'static str,
    /// Its doc comment, joined into one string.
    pub doc: &'static str,
    /// What it holds, and so how each binding carries it.
    pub kind: Kind,
}

/// What a field holds.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// The caller's struct size (`u64`): the first field, set by the bindings, never a value.
    Size,
    /// `u32` or `u64`, 0 or non-zero: Java `boolean`, Erlang `true`/`false`.
    Flag,
    /// `u32`: Java `int` (at least 0), Erlang non-negative integer.
    U32,
    /// `u64`: Java `long` (at least 0), Erlang non-negative integer.
    U64,
    /// `f64`: Java `double` (finite, at least 0), Erlang number.
    F64,
    /// `u32` holding one of a C enum's values: a Java enum with `code()`/`fromCode`, Erlang atoms
    /// (the values in code order, from 0).
    Enum {
        /// The Java enum's simple name, in `dev.bufkit`.
        java: &'static str,
        /// The Erlang atoms, in code order.
        atoms: &'static [&'static str],
    },
    /// A field each binding carries by hand, because it is a pointer whose meaning is the
    /// binding's own (a list of strings, a callback, a handle): the generated Java record has a
    /// component of type `java`; the marshalling is written in each front.
    Hand {
        /// The Java component's type, or "" for a field no binding sees (a callback's context
        /// pointer, a list's length), with `why` saying what carries it.
        java: &'static str,
        /// The Java component's default.
        java_default: &'static str,
        /// The Erlang option key, or "" where Erlang has none (with `why`).
        erlang: &'static str,
        /// The Erlang type of the key's value.
        erlang_type: &'static str,
        /// Why a binding does without it, where one does.
        why: &'static str,
    },
}

impl Field {
    /// The Java component / accessor name: camelCase of the C name.
    pub fn java_name(&self) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in self.name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }
}
