//! `#[export]`: the one way a function of bufkit's C ABI is written. It puts the body behind the
//! panic boundary (a panic becomes `BK_STATUS_PANIC`, or the fallback the export names, instead
//! of unwinding into C), and refuses at compile time a function that is not an exported
//! `extern "C"` one. `bufkit-ffi`'s `tests/exports.rs` checks that every export carries it.
//!
//! ```ignore
//! /// Forgets the bytes; keeps the capacity and the counters.
//! #[export]
//! #[unsafe(no_mangle)]
//! pub unsafe extern "C" fn bk_buffer_clear(buffer: *mut bk_buffer) -> bk_status {
//!     // The body returns Result<(), bk_status>: `?` on a failed check, Ok(()) for BK_STATUS_OK.
//!     unsafe { checked_mut(buffer) }?.inner.clear();
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
use syn::{Expr, ItemFn, ReturnType, Token, Type, parse_macro_input};

/// `on_panic = EXPR`, or nothing.
struct Options {
    on_panic: Option<Expr>,
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(Options { on_panic: None });
        }
        let key: syn::Ident = input.parse()?;
        if key != "on_panic" {
            return Err(syn::Error::new(key.span(), "the only option is `on_panic = EXPR`"));
        }
        input.parse::<Token![=]>()?;
        Ok(Options { on_panic: Some(input.parse()?) })
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
    let body = &function.block;
    let wrapped = match (&sig.output, options.on_panic) {
        (ReturnType::Type(_, ty), None) if returns_status(ty) => quote! {{
            crate::macros::boundary(|| -> ::core::result::Result<(), crate::status::bk_status> #body)
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

fn returns_status(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "bk_status"))
}
