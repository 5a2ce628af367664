//! `#[derive(Boundary)]`: the one description of a size-first struct's fields, for the bindings'
//! generator (see `bufkit-ffi`'s `boundary` module).

use quote::{ToTokens, quote};
use syn::Expr;

/// The `Described` impl of `input`, or an error naming the field whose kind cannot be told.
pub(crate) fn describe(input: &syn::DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let syn::Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(name, "Boundary describes structs"));
    };
    let mut fields = Vec::new();
    for field in &data.fields {
        let ident = field.ident.as_ref().ok_or_else(|| syn::Error::new_spanned(field, "named fields only"))?;
        let ty = &field.ty;
        let doc = field
            .attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let mut kind = None;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("binding")) {
            attr.parse_nested_meta(|meta| {
                let strings = |meta: syn::meta::ParseNestedMeta| -> syn::Result<Vec<(String, String)>> {
                    let mut pairs = Vec::new();
                    meta.parse_nested_meta(|inner| {
                        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
                        let value: syn::LitStr = inner.value()?.parse()?;
                        pairs.push((key, value.value()));
                        Ok(())
                    })?;
                    Ok(pairs)
                };
                let get = |pairs: &[(String, String)], key: &str| {
                    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or_default()
                };
                if meta.path.is_ident("size") {
                    kind = Some(quote!(crate::boundary::Kind::Size));
                } else if meta.path.is_ident("flag") {
                    kind = Some(quote!(crate::boundary::Kind::Flag));
                } else if meta.path.is_ident("enumeration") {
                    let pairs = strings(meta)?;
                    let java = get(&pairs, "java");
                    let atoms = get(&pairs, "atoms");
                    let atoms = atoms.split_whitespace();
                    kind = Some(quote!(crate::boundary::Kind::Enum { java: #java, atoms: &[#(#atoms),*] }));
                } else if meta.path.is_ident("hand") {
                    let pairs = strings(meta)?;
                    let (java, java_default, erlang, erlang_type, why) = (
                        get(&pairs, "java"),
                        get(&pairs, "java_default"),
                        get(&pairs, "erlang"),
                        get(&pairs, "erlang_type"),
                        get(&pairs, "why"),
                    );
                    kind = Some(quote!(crate::boundary::Kind::Hand {
                        java: #java, java_default: #java_default, erlang: #erlang, erlang_type: #erlang_type, why: #why
                    }));
                } else {
                    return Err(meta.error("expected size, flag, enumeration(..) or hand(..)"));
                }
                Ok(())
            })?;
        }
        let kind = match kind {
            Some(kind) => kind,
            None => match ty.to_token_stream().to_string().as_str() {
                "u32" => quote!(crate::boundary::Kind::U32),
                "u64" => quote!(crate::boundary::Kind::U64),
                "f64" => quote!(crate::boundary::Kind::F64),
                _ => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        "a field of this type needs #[binding(..)] to say its kind",
                    ));
                }
            },
        };
        let field_name = ident.to_string();
        let rust_type = ty.to_token_stream().to_string();
        fields.push(quote! {
            crate::boundary::Field {
                name: #field_name,
                offset: ::core::mem::offset_of!(#name, #ident),
                size: ::core::mem::size_of::<#ty>(),
                rust_type: #rust_type,
                doc: #doc,
                kind: #kind,
            }
        });
    }
    let c_name = name.to_string();
    Ok(quote! {
        impl crate::boundary::Described for #name {
            const C_NAME: &'static str = #c_name;
            const SIZE: usize = ::core::mem::size_of::<#name>();
            const FIELDS: &'static [crate::boundary::Field] = &[#(#fields),*];
        }
    })
}
