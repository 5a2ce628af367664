//! `#[export]`: the one way a function of bufkit's C ABI is written. It puts the body behind the
//! panic boundary (a panic becomes `BK_STATUS_PANIC`, or the fallback the export names, instead
//! of unwinding into C), checks the pointer arguments before the body runs, and refuses at
//! compile time a function that is not an exported `extern "C"` one. `bufkit-ffi`'s
//! `tests/exports.rs` checks that every export carries it.
//!
//! Every pointer parameter says how it is checked, with one of these attributes; the body then
//! sees the checked value under the same name, and never the raw pointer:
//!
//! | attribute | parameter | the body sees | NULL |
//! |---|---|---|---|
//! | `#[live]` | `*const T` / `*mut T`, a handle or a struct to read | `&T` / `&mut T` | `BK_STATUS_NULL_POINTER` |
//! | `#[nullable]` | `*const T` | `Option<&T>` | `None` |
//! | `#[out]` | `*mut T` | `&mut MaybeUninit<T>` | `BK_STATUS_NULL_POINTER` |
//! | `#[out = EXPR]` | `*mut T` | `&mut T`, holding `EXPR` before any other check | `BK_STATUS_NULL_POINTER` |
//! | `#[bytes(len)]` | `*const u8` or `*const c_char` | `&[u8]` of `len` bytes | empty if `len` is 0, else `BK_STATUS_NULL_POINTER` |
//! | `#[out_bytes(len)]` | `*mut u8` or `*mut c_char` | `&mut [MaybeUninit<u8>]` | as `bytes` |
//! | `#[slice(len)]` | `*const T` | `&[T]` of `len` elements | as `bytes` |
//! | `#[out_slice(len)]` | `*mut T` | `&mut [MaybeUninit<T>]` | as `bytes` |
//! | `#[c_str]` | `*const c_char` | `&CStr` | `BK_STATUS_NULL_POINTER` |
//! | `#[text_out(len)]` | `*mut c_char` | `TextOut`, holding "" before any other check | no text |
//! | `#[raw]` | anything | the pointer, for the body to check | the body's choice |
//!
//! A pointer parameter with none of them is a compile error, and so is one that the doc comment's
//! `# Safety` section does not name in backticks: the conversions are `unsafe` (a pointer's
//! validity cannot be checked, only its nullness and length), and the section is the contract
//! they rely on. `#[out = ...]` and `#[text_out(..)]` arguments are checked and written first, in order, so an
//! out-parameter a failure must leave zeroed is zeroed whatever fails next; the rest follow in
//! parameter order.
//!
//! ```ignore
//! /// Forgets the bytes; keeps the capacity and the counters.
//! ///
//! /// # Safety
//! /// `buffer` is live.
//! #[export]
//! #[unsafe(no_mangle)]
//! pub unsafe extern "C" fn bk_buffer_clear(#[live] buffer: *mut bk_buffer) -> bk_status {
//!     // The body returns Result<(), bk_status>: `?` on a failed check, Ok(()) for BK_STATUS_OK.
//!     buffer.inner.clear();
//!     Ok(())
//! }
//!
//! /// Returns a value: names what a panic returns instead.
//! #[export(on_panic = 0)]
//! #[unsafe(no_mangle)]
//! pub extern "C" fn bk_abi_version() -> u32 { BK_ABI_VERSION }
//! ```
//!
//! The `#[unsafe(no_mangle)]` stays written out, because cbindgen reads the source, not the
//! expansion, and exports only the functions it sees marked so.

use proc_macro::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Token, Type, parse_macro_input};

/// `on_panic = EXPR`, or nothing.
struct Options {
    on_panic: Option<Expr>,
}

impl Parse for Options {
    /// `short`, `calls_back`, `on_panic = EXPR`, separated by commas. `short` and `calls_back`
    /// only describe the function for the bindings' generator (`cargo xtask bindings`): `short`,
    /// it neither blocks (or only where a plain call made first, as `bk_archive_reader_wait`,
    /// says it will not) nor calls back, so a binding may pin the caller's arrays for it;
    /// `calls_back` with it, except on a handle reading a caller's source (`bk_source`), where it
    /// calls `read_at`: bindings then call it plain, with nothing pinned.
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut options = Options { on_panic: None };
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            if key == "on_panic" {
                input.parse::<Token![=]>()?;
                options.on_panic = Some(input.parse()?);
            } else if key != "short" && key != "calls_back" {
                return Err(syn::Error::new(key.span(), "the options are `short`, `calls_back` and `on_panic = EXPR`"));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(options)
    }
}

/// Wraps an export's body in the panic boundary. See the crate documentation.
#[proc_macro_attribute]
pub fn export(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as Options);
    let function = parse_macro_input!(item as ItemFn);
    match wrap(options, function) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn wrap(options: Options, mut function: ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let sig = &function.sig;
    let is_c = sig.abi.as_ref().and_then(|abi| abi.name.as_ref()).is_some_and(|name| name.value() == "C");
    if !is_c {
        return Err(syn::Error::new_spanned(sig.fn_token, "an export is an `extern \"C\"` function"));
    }
    let exported =
        function.attrs.iter().any(|a| a.to_token_stream().to_string().replace(' ', "").contains("no_mangle"));
    if !exported {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            "an export is marked #[unsafe(no_mangle)] (written out: cbindgen reads the source)",
        ));
    }
    let checks = take_checks(&mut function)?;
    let sig = &function.sig;
    check_safety_section(&function, &checks)?;
    let body = &function.block;
    let returns_a_status = matches!(&sig.output, ReturnType::Type(_, ty) if returns_status(ty));
    let conversions: Vec<_> = checks
        .iter()
        .filter(|c| c.written_first())
        .chain(checks.iter().filter(|c| !c.written_first()))
        .filter_map(Check::conversion)
        .collect();
    if !conversions.is_empty() && !returns_a_status {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            "checked pointer arguments need an export that returns bk_status (a failed check is a status)",
        ));
    }
    let wrapped = match (&sig.output, options.on_panic) {
        (ReturnType::Type(_, ty), None) if returns_status(ty) => quote! {{
            crate::macros::boundary(|| -> ::core::result::Result<(), crate::status::bk_status> {
                #(#conversions)*
                #body
            })
        }},
        (ReturnType::Default, None) => quote! {{ crate::macros::boundary_or((), || #body) }},
        (ReturnType::Default, Some(fallback)) => {
            return Err(syn::Error::new_spanned(fallback, "a function returning nothing needs no `on_panic`"));
        }
        (ReturnType::Type(..), Some(fallback)) => quote! {{ crate::macros::boundary_or(#fallback, || #body) }},
        (ReturnType::Type(_, ty), None) => {
            return Err(syn::Error::new_spanned(
                ty,
                "an export returning something other than bk_status names what a panic returns: #[export(on_panic = EXPR)]",
            ));
        }
    };
    function.block = Box::new(syn::parse2(wrapped)?);
    Ok(function.into_token_stream())
}

/// How one pointer parameter is checked.
enum Kind {
    Live,
    Nullable,
    Out,
    OutInit(Expr),
    Bytes(Ident),
    OutBytes(Ident),
    Slice(Ident),
    OutSlice(Ident),
    CStr,
    TextOut(Ident),
    Raw,
}

struct Check {
    name: Ident,
    kind: Kind,
    mutable: bool,
}

impl Check {
    fn written_first(&self) -> bool {
        matches!(self.kind, Kind::OutInit(_) | Kind::TextOut(_))
    }

    /// The statement that rebinds the parameter to its checked value (none for `#[raw]`).
    fn conversion(&self) -> Option<proc_macro2::TokenStream> {
        let name = &self.name;
        let call = match &self.kind {
            Kind::Live if self.mutable => quote! { crate::macros::checked_mut(#name)? },
            Kind::Live => quote! { crate::macros::checked_ref(#name)? },
            Kind::Nullable => quote! { #name.as_ref() },
            Kind::Out => quote! { crate::macros::checked_out(#name)? },
            Kind::OutInit(value) => quote! { crate::macros::checked_out_init(#name, #value)? },
            Kind::Bytes(len) => quote! { crate::macros::checked_bytes(#name, #len)? },
            Kind::OutBytes(len) => quote! { crate::macros::checked_out_bytes(#name, #len)? },
            Kind::Slice(len) => quote! { crate::macros::checked_slice(#name, #len)? },
            Kind::OutSlice(len) => quote! { crate::macros::checked_out_slice(#name, #len)? },
            Kind::CStr => quote! { crate::macros::checked_c_str(#name)? },
            Kind::TextOut(len) => quote! { crate::macros::checked_text_out(#name, #len)? },
            Kind::Raw => return None,
        };
        // Each conversion relies on the export's `# Safety` section, which names this parameter
        // (check_safety_section) and states what the conversion needs: see the crate doc.
        // A text buffer is set by the body, so it is bound `mut`.
        let binding = match self.kind {
            Kind::TextOut(_) => quote! { mut #name },
            _ => quote! { #name },
        };
        Some(quote! {
            #[allow(clippy::undocumented_unsafe_blocks)]
            let #binding = unsafe { #call };
        })
    }
}

/// Reads and removes the checking attributes of the pointer parameters.
fn take_checks(function: &mut ItemFn) -> syn::Result<Vec<Check>> {
    let mut checks = Vec::new();
    for input in function.sig.inputs.iter_mut() {
        let FnArg::Typed(param) = input else { continue };
        let Type::Ptr(pointer) = &*param.ty else {
            if let Some(attr) = param.attrs.first() {
                return Err(syn::Error::new_spanned(attr, "only pointer parameters take a checking attribute"));
            }
            continue;
        };
        let Pat::Ident(ident) = &*param.pat else {
            return Err(syn::Error::new_spanned(&param.pat, "a pointer parameter of an export is a plain name"));
        };
        let name = ident.ident.clone();
        let mut kinds = Vec::new();
        for attr in std::mem::take(&mut param.attrs) {
            kinds.push(kind_of(&attr)?);
        }
        let kind = match kinds.len() {
            1 => kinds.pop().expect("one"),
            0 => {
                return Err(syn::Error::new_spanned(
                    &name,
                    "say how this pointer is checked: #[live], #[nullable], #[out], #[out = EXPR], #[bytes(len)], \
                     #[out_bytes(len)], #[slice(len)], #[out_slice(len)], #[c_str], #[text_out(len)] or #[raw]",
                ));
            }
            _ => return Err(syn::Error::new_spanned(&name, "one checking attribute per parameter")),
        };
        checks.push(Check { name, kind, mutable: pointer.mutability.is_some() });
    }
    Ok(checks)
}

fn kind_of(attr: &syn::Attribute) -> syn::Result<Kind> {
    let path = attr.path();
    let word = path.get_ident().map(ToString::to_string).unwrap_or_default();
    let length = || attr.parse_args::<Ident>();
    Ok(match (word.as_str(), &attr.meta) {
        ("live", syn::Meta::Path(_)) => Kind::Live,
        ("nullable", syn::Meta::Path(_)) => Kind::Nullable,
        ("out", syn::Meta::Path(_)) => Kind::Out,
        ("out", syn::Meta::NameValue(nv)) => Kind::OutInit(nv.value.clone()),
        ("bytes", syn::Meta::List(_)) => Kind::Bytes(length()?),
        ("out_bytes", syn::Meta::List(_)) => Kind::OutBytes(length()?),
        ("slice", syn::Meta::List(_)) => Kind::Slice(length()?),
        ("out_slice", syn::Meta::List(_)) => Kind::OutSlice(length()?),
        ("c_str", syn::Meta::Path(_)) => Kind::CStr,
        ("text_out", syn::Meta::List(_)) => Kind::TextOut(length()?),
        ("raw", syn::Meta::Path(_)) => Kind::Raw,
        _ => {
            return Err(syn::Error::new_spanned(
                attr,
                "not a checking attribute (see bufkit-ffi-macros' documentation)",
            ));
        }
    })
}

/// Every checked parameter is named, in backticks, in the doc comment's `# Safety` section.
fn check_safety_section(function: &ItemFn, checks: &[Check]) -> syn::Result<()> {
    if checks.is_empty() {
        return Ok(());
    }
    let docs: Vec<String> = function
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let section: String = docs
        .iter()
        .skip_while(|line| line.trim() != "# Safety")
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect();
    for check in checks {
        if !section.contains(&format!("`{}`", check.name)) {
            return Err(syn::Error::new_spanned(
                &check.name,
                format!("the doc comment's `# Safety` section must name `{}` and say what it points to", check.name),
            ));
        }
    }
    Ok(())
}

fn returns_status(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "bk_status"))
}

/// `#[derive(Boundary)]` on a `#[repr(C)]` struct of the C ABI marks it as one the bindings carry,
/// as `cargo xtask bindings` reads it from the source (it generates nothing in Rust). On a
/// size-first struct, a field's kind follows from its type (`u32`, `u64`, `f64`) or from
/// `#[binding(..)]`:
/// - `#[binding(size)]`: the caller's struct size;
/// - `#[binding(flag)]`: a `u32` or `u64` read as a boolean;
/// - `#[binding(enumeration(java = "ExtractMode", atoms = "create replace merge"))]`;
/// - `#[binding(hand(java = "..", java_default = "..", erlang = "..", erlang_type = "..", why = ".."))]`: carried by
///   hand in each binding.
///
/// `#[binding(record = "Name")]` on the struct itself names the Java record filled from it, field
/// by field, as a packed `long[]`.
#[proc_macro_derive(Boundary, attributes(binding))]
pub fn derive_boundary(_item: TokenStream) -> TokenStream {
    TokenStream::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn expand(function: ItemFn) -> syn::Result<String> {
        wrap(Options { on_panic: None }, function).map(|tokens| tokens.to_string())
    }

    #[test]
    fn a_pointer_without_a_checking_attribute_is_refused() {
        let error = expand(parse_quote! {
            /// # Safety
            /// `pool` is live.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn bk_f(pool: *const bk_pool) -> bk_status { Ok(()) }
        })
        .unwrap_err();
        assert!(error.to_string().contains("say how this pointer is checked"), "{error}");
    }

    #[test]
    fn a_checked_pointer_the_safety_section_does_not_name_is_refused() {
        // Named nowhere, then named only above the section: refused both times.
        for summary in ["Does something.", "Stores into `n_out`."] {
            let error = expand(parse_quote! {
                #[doc = #summary]
                ///
                /// # Safety
                /// `pool` is live.
                #[unsafe(no_mangle)]
                pub unsafe extern "C" fn bk_f(#[live] pool: *const bk_pool, #[out] n_out: *mut usize) -> bk_status {
                    Ok(())
                }
            })
            .unwrap_err();
            assert!(error.to_string().contains("must name `n_out`"), "{summary}: {error}");
        }
    }

    #[test]
    fn initialised_outputs_are_written_before_any_other_check_and_attributes_are_removed() {
        let expanded = expand(parse_quote! {
            /// # Safety
            /// `inflater` is live; `input` is readable for `input_len` bytes; `consumed_out` is
            /// valid for one write.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn bk_f(
                #[live] inflater: *mut bk_inflater,
                #[bytes(input_len)] input: *const u8,
                input_len: usize,
                #[out = 0] consumed_out: *mut usize,
            ) -> bk_status {
                Ok(())
            }
        })
        .unwrap();
        let position = |needle: &str| expanded.find(needle).unwrap_or_else(|| panic!("no {needle} in {expanded}"));
        assert!(position("checked_out_init (consumed_out") < position("checked_mut (inflater"));
        assert!(position("checked_mut (inflater") < position("checked_bytes (input , input_len"));
        assert!(!expanded.contains("# [live]") && !expanded.contains("# [out"), "{expanded}");
        assert!(expanded.contains("inflater : * mut bk_inflater"), "{expanded}");
    }

    #[test]
    fn a_raw_pointer_stays_raw_and_an_export_without_checks_needs_no_safety_section() {
        let expanded = expand(parse_quote! {
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn bk_f_free(#[raw] handle: *mut bk_thing) {}
        });
        let error = expanded.unwrap_err();
        assert!(error.to_string().contains("must name `handle`"), "{error}");
        let expanded = expand(parse_quote! {
            /// # Safety
            /// `handle` is NULL or came from `bk_f_new`.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn bk_f_free(#[raw] handle: *mut bk_thing) {}
        })
        .unwrap();
        assert!(!expanded.contains("checked_"), "{expanded}");
        let expanded = expand(parse_quote! {
            #[unsafe(no_mangle)]
            pub extern "C" fn bk_f_count(n: usize) -> bk_status { Ok(()) }
        });
        assert!(expanded.is_ok());
    }

    #[test]
    fn checked_pointers_need_a_status_to_fail_with() {
        let error = wrap(
            Options { on_panic: Some(parse_quote!(0)) },
            parse_quote! {
                /// # Safety
                /// `pool` is live.
                #[unsafe(no_mangle)]
                pub unsafe extern "C" fn bk_f(#[live] pool: *const bk_pool) -> usize { 0 }
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("returns bk_status"), "{error}");
    }

    #[test]
    fn an_unknown_attribute_on_a_pointer_is_refused() {
        let error = expand(parse_quote! {
            /// # Safety
            /// `pool` is live.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn bk_f(#[alive] pool: *const bk_pool) -> bk_status { Ok(()) }
        })
        .unwrap_err();
        assert!(error.to_string().contains("not a checking attribute"), "{error}");
    }
}
