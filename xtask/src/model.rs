//! The one description of what crosses the boundary, read from `crates/bufkit-ffi/src/*.rs`: the
//! statuses, the C enums, the structs (their fields, and how each binding carries them), the
//! handle types, and every export with its parameters. Everything this tool writes comes from it.

use std::path::Path;

use syn::{Attribute, Expr, Fields, FnArg, Item, Lit, Meta, Pat, ReturnType, Type};

/// A C type, as far as the bindings need to know it.
#[derive(Debug, Clone, PartialEq)]
pub enum CType {
    U8,
    U16,
    U32,
    I32,
    U64,
    I64,
    Usize,
    F64,
    /// `c_char`.
    Char,
    /// `c_int`.
    Int,
    /// A named type of the crate: a struct, a `#[repr(u32)]` enum, a callback type.
    Named(String),
    /// A pointer (`const` unless `mutable`).
    Ptr {
        mutable: bool,
        to: Box<CType>,
    },
    /// `[T; N]`.
    Array(Box<CType>, usize),
    /// A function pointer (`Option<unsafe extern "C" fn(..)>`): its parameters and return.
    Fn {
        params: Vec<CType>,
        ret: Option<Box<CType>>,
    },
    /// `c_void`.
    Void,
}

/// One `bk_status` code.
#[derive(Debug, Clone)]
pub struct Status {
    pub name: String,
    pub value: u32,
    pub doc: String,
}

/// A `#[repr(u32)]` enum (its values the C enum's).
#[derive(Debug, Clone)]
pub struct CEnum {
    pub name: String,
    pub doc: String,
    pub variants: Vec<(String, u32, String)>,
}

impl CEnum {
    /// Its variants' names past their common prefix (`BK_EXTRACT_`), in lower case, in code
    /// order; an error unless the codes run 0, 1, 2..
    pub fn atoms(&self) -> Result<Vec<String>, String> {
        let mut variants = self.variants.clone();
        variants.sort_by_key(|v| v.1);
        if variants.iter().enumerate().any(|(i, v)| v.1 as usize != i) {
            return Err(format!("{}: its values must run 0, 1, 2..", self.name));
        }
        Ok(variants.iter().map(|(name, ..)| self.short(name).to_lowercase()).collect())
    }

    /// A variant's name past the prefix every variant shares, up to its last `_`.
    pub fn short<'a>(&self, variant: &'a str) -> &'a str {
        let first = &self.variants[0].0;
        let mut common = first.len();
        for (name, ..) in &self.variants {
            common = common.min(first.bytes().zip(name.bytes()).take_while(|(a, b)| a == b).count());
        }
        let cut = first[..common].rfind('_').map_or(0, |i| i + 1);
        &variant[cut..]
    }
}

/// How a binding carries a field of a size-first struct (`#[binding(..)]` on the field).
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// The caller's struct size: set by the bindings, never a value.
    Size,
    /// 0 or non-zero: Java `boolean`, Erlang `true`/`false`.
    Flag,
    /// An unsigned integer: Java `int` or `long` (at least 0), Erlang non-negative integer.
    Plain,
    /// `f64`: Java `double` (finite, at least 0), Erlang number.
    Float,
    /// One of a C enum's values (`c`, whose values must run 0, 1, 2..): a Java enum with
    /// `code()` generated from it, Erlang atoms in code order (its variants' names past their
    /// common prefix, in lower case).
    Enum { c: String, java: String, atoms: Vec<String> },
    /// A pointer each binding carries by hand: the Java component's type and default (empty for
    /// none), the Erlang key and type (empty for none), and why a binding does without it.
    Hand { java: String, java_default: String, erlang: String, erlang_type: String, why: String },
}

/// One field of a `#[repr(C)]` struct.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: CType,
    pub doc: String,
    /// For the fields of a struct the bindings marshal (`#[derive(Boundary)]`).
    pub binding: Option<Binding>,
}

/// A `#[repr(C)]` struct.
#[derive(Debug, Clone)]
pub struct CStruct {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
    /// The bindings marshal it field by field (`#[derive(Boundary)]`).
    pub boundary: bool,
    /// The Java record that holds it, filled from a packed `long[]` (`#[binding(record = "..")]`).
    pub record: Option<String>,
}

/// An opaque handle type (`pub struct bk_x { .. }` without `#[repr(C)]`).
#[derive(Debug, Clone)]
pub struct Handle {
    pub name: String,
}

/// One parameter of an export.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: CType,
}

/// One `#[export]` function.
#[derive(Debug, Clone)]
pub struct Export {
    pub name: String,
    pub doc: String,
    pub params: Vec<Param>,
    pub ret: Option<CType>,
    /// `#[export(short)]`: it neither blocks (or only where a plain call made first says it will
    /// not, as `bk_archive_reader_wait` for `bk_archive_reader_read`) nor calls back, and takes only what the caller lends
    /// for the call: bindings may pin the caller's arrays for it (Panama `critical`).
    pub short: bool,
    /// `#[export(short, calls_back)]`: short, except on a handle reading a caller's source
    /// (`bk_source`), where it calls back: bindings get a plain twin for those handles.
    pub calls_back: bool,
}

/// A callback type (`pub type bk_x_fn = Option<unsafe extern "C" fn(..)>`).
#[derive(Debug, Clone)]
pub struct Callback {
    pub name: String,
    pub ty: CType,
}

/// Everything the generators read.
#[derive(Debug, Clone, Default)]
pub struct Description {
    pub statuses: Vec<Status>,
    pub enums: Vec<CEnum>,
    pub structs: Vec<CStruct>,
    pub handles: Vec<Handle>,
    pub exports: Vec<Export>,
    pub callbacks: Vec<Callback>,
    /// `pub const` integers (`BK_ABI_VERSION`, `BK_EXTRACT_OPTIONS_MIN_SIZE`).
    pub consts: Vec<(String, u64)>,
}

impl Description {
    /// Reads every module of `crates/bufkit-ffi/src`, in file-name order.
    pub fn read(ffi_src: &Path) -> Result<Description, String> {
        let mut files: Vec<_> = std::fs::read_dir(ffi_src)
            .map_err(|e| format!("reading {}: {e}", ffi_src.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        let mut d = Description::default();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("reading {}: {e}", file.display()))?;
            let parsed = syn::parse_file(&text).map_err(|e| format!("parsing {}: {e}", file.display()))?;
            for item in parsed.items {
                d.item(item).map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
        d.statuses.sort_by_key(|s| s.value);
        d.resolve_enums()?;
        Ok(d)
    }

    /// Fills each enum binding's atoms from its C enum: its variants' names past their common
    /// prefix, in lower case, in code order; the codes must run 0, 1, 2.. (an atom's place is its
    /// code).
    fn resolve_enums(&mut self) -> Result<(), String> {
        let enums = self.enums.clone();
        for st in &mut self.structs {
            for f in &mut st.fields {
                let Some(Binding::Enum { c, atoms, .. }) = &mut f.binding else { continue };
                let e = enums
                    .iter()
                    .find(|e| e.name == *c)
                    .ok_or_else(|| format!("{}.{}: no #[repr(u32)] enum {c:?}", st.name, f.name))?;
                *atoms = e.atoms().map_err(|why| format!("{}.{}: {why}", st.name, f.name))?;
            }
        }
        Ok(())
    }

    fn item(&mut self, item: Item) -> Result<(), String> {
        match item {
            Item::Enum(e) if e.ident == "bk_status" => {
                for v in e.variants {
                    self.statuses.push(Status {
                        name: v.ident.to_string(),
                        value: discriminant(&v.discriminant)?,
                        doc: doc(&v.attrs),
                    });
                }
            }
            Item::Enum(e) if e.ident.to_string().starts_with("bk_") && repr(&e.attrs).as_deref() == Some("u32") => {
                let variants = e
                    .variants
                    .iter()
                    .map(|v| Ok((v.ident.to_string(), discriminant(&v.discriminant)?, doc(&v.attrs))))
                    .collect::<Result<_, String>>()?;
                self.enums.push(CEnum { name: e.ident.to_string(), doc: doc(&e.attrs), variants });
            }
            Item::Struct(s) if s.ident.to_string().starts_with("bk_") => {
                let name = s.ident.to_string();
                if repr(&s.attrs).as_deref() != Some("C") {
                    self.handles.push(Handle { name });
                    return Ok(());
                }
                let record = struct_record(&s.attrs)?;
                // A record's fields are plain numbers; a size-first struct's each say how they cross.
                let boundary = derives(&s.attrs, "Boundary") && record.is_none();
                let Fields::Named(named) = s.fields else { return Err(format!("{name}: named fields only")) };
                let mut fields = Vec::new();
                for f in named.named {
                    let field_name = f.ident.as_ref().map(ToString::to_string).unwrap_or_default();
                    let ty = ctype(&f.ty).map_err(|e| format!("{name}.{field_name}: {e}"))?;
                    let binding = if boundary { Some(field_binding(&f.attrs, &ty)?) } else { None };
                    fields.push(Field { name: field_name, ty, doc: doc(&f.attrs), binding });
                }
                self.structs.push(CStruct { name, doc: doc(&s.attrs), fields, boundary, record });
            }
            Item::Type(t) if t.ident.to_string().starts_with("bk_") => {
                let ty = ctype(&t.ty).map_err(|e| format!("{}: {e}", t.ident))?;
                self.callbacks.push(Callback { name: t.ident.to_string(), ty });
            }
            Item::Const(c) => {
                if let Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) = &*c.expr
                    && let Ok(v) = i.base10_parse::<u64>()
                {
                    self.consts.push((c.ident.to_string(), v));
                }
            }
            Item::Fn(f) => {
                let Some(export) = f.attrs.iter().find(|a| a.path().is_ident("export")) else { return Ok(()) };
                let option = |name: &str| match &export.meta {
                    Meta::List(list) => list.tokens.to_string().split(',').any(|t| t.trim() == name),
                    _ => false,
                };
                let (short, calls_back) = (option("short"), option("calls_back"));
                let name = f.sig.ident.to_string();
                let mut params = Vec::new();
                for input in &f.sig.inputs {
                    let FnArg::Typed(arg) = input else { return Err(format!("{name}: no self")) };
                    let Pat::Ident(ident) = &*arg.pat else {
                        return Err(format!("{name}: plain parameter names only"));
                    };
                    let ty = ctype(&arg.ty).map_err(|e| format!("{name}({}): {e}", ident.ident))?;
                    params.push(Param { name: ident.ident.to_string(), ty });
                }
                let ret = match &f.sig.output {
                    ReturnType::Default => None,
                    ReturnType::Type(_, ty) => Some(ctype(ty).map_err(|e| format!("{name} returns {e}"))?),
                };
                self.exports.push(Export { name, doc: doc(&f.attrs), params, ret, short, calls_back });
            }
            _ => {}
        }
        Ok(())
    }

    /// The struct named `name`.
    pub fn struct_named(&self, name: &str) -> Option<&CStruct> {
        self.structs.iter().find(|s| s.name == name)
    }

    /// Whether `name` is a C enum of the crate (a `u32` in C).
    pub fn is_enum(&self, name: &str) -> bool {
        name == "bk_status" || self.enums.iter().any(|e| e.name == name)
    }

    /// The value of `pub const name`.
    pub fn constant(&self, name: &str) -> Option<u64> {
        self.consts.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// The handle type a function takes first, if it takes one (`bk_buffer *buf`).
    pub fn handle_of(&self, e: &Export) -> Option<&str> {
        let first = e.params.first()?;
        let CType::Ptr { to, .. } = &first.ty else { return None };
        let CType::Named(name) = &**to else { return None };
        self.handles.iter().find(|h| &h.name == name).map(|h| h.name.as_str())
    }
}

/// The doc comment's lines, joined with `\n`, one leading space removed from each.
pub fn doc(attrs: &[Attribute]) -> String {
    attrs
        .iter()
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn repr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("repr")).and_then(|a| match &a.meta {
        Meta::List(list) => Some(list.tokens.to_string()),
        _ => None,
    })
}

fn derives(attrs: &[Attribute], what: &str) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| match &a.meta {
        Meta::List(list) => list.tokens.to_string().split(',').any(|t| t.trim() == what),
        _ => false,
    })
}

fn discriminant(d: &Option<(syn::token::Eq, Expr)>) -> Result<u32, String> {
    match d {
        Some((_, Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }))) => {
            i.base10_parse().map_err(|e| format!("discriminant: {e}"))
        }
        _ => Err("every variant needs an explicit value".into()),
    }
}

/// `#[binding(record = "Name")]` on a struct.
fn struct_record(attrs: &[Attribute]) -> Result<Option<String>, String> {
    let mut record = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("binding")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("record") {
                let value: syn::LitStr = meta.value()?.parse()?;
                record = Some(value.value());
                Ok(())
            } else {
                Err(meta.error("on a struct: record = \"JavaRecord\""))
            }
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(record)
}

/// A boundary struct's field's `#[binding(..)]`, or its plain kind from its type.
fn field_binding(attrs: &[Attribute], ty: &CType) -> Result<Binding, String> {
    let mut binding = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("binding")) {
        attr.parse_nested_meta(|meta| {
            let pairs = |meta: syn::meta::ParseNestedMeta| -> syn::Result<Vec<(String, String)>> {
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
            binding = Some(if meta.path.is_ident("size") {
                Binding::Size
            } else if meta.path.is_ident("flag") {
                Binding::Flag
            } else if meta.path.is_ident("enumeration") {
                let p = pairs(meta)?;
                // The atoms come from the C enum, once every file is read (Description::read).
                Binding::Enum { c: get(&p, "c"), java: get(&p, "java"), atoms: Vec::new() }
            } else if meta.path.is_ident("hand") {
                let p = pairs(meta)?;
                Binding::Hand {
                    java: get(&p, "java"),
                    java_default: get(&p, "java_default"),
                    erlang: get(&p, "erlang"),
                    erlang_type: get(&p, "erlang_type"),
                    why: get(&p, "why"),
                }
            } else {
                return Err(meta.error("expected size, flag, enumeration(..) or hand(..)"));
            });
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    }
    match binding {
        Some(b) => Ok(b),
        None => match ty {
            CType::U32 | CType::U64 => Ok(Binding::Plain),
            CType::F64 => Ok(Binding::Float),
            other => Err(format!("a field of type {other:?} needs #[binding(..)] to say its kind")),
        },
    }
}

/// The C type of a Rust type as the crate writes it.
pub fn ctype(ty: &Type) -> Result<CType, String> {
    match ty {
        Type::Ptr(p) => Ok(CType::Ptr { mutable: p.mutability.is_some(), to: Box::new(ctype(&p.elem)?) }),
        Type::Array(a) => {
            let Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) = &a.len else {
                return Err("array lengths must be literals".into());
            };
            Ok(CType::Array(Box::new(ctype(&a.elem)?), n.base10_parse().map_err(|e| e.to_string())?))
        }
        Type::Path(p) => {
            let last = p.path.segments.last().ok_or("empty path")?;
            let name = last.ident.to_string();
            Ok(match name.as_str() {
                "u8" => CType::U8,
                "u16" => CType::U16,
                "u32" => CType::U32,
                "i32" => CType::I32,
                "u64" => CType::U64,
                "i64" => CType::I64,
                "usize" => CType::Usize,
                "f64" => CType::F64,
                "c_char" => CType::Char,
                "c_int" => CType::Int,
                "c_void" => CType::Void,
                "Option" => {
                    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                        return Err("Option without an argument".into());
                    };
                    let Some(syn::GenericArgument::Type(Type::BareFn(f))) = args.args.first() else {
                        return Err("Option of a function pointer only".into());
                    };
                    let params = f.inputs.iter().map(|a| ctype(&a.ty)).collect::<Result<_, _>>()?;
                    let ret = match &f.output {
                        ReturnType::Default => None,
                        ReturnType::Type(_, t) => Some(Box::new(ctype(t)?)),
                    };
                    CType::Fn { params, ret }
                }
                other if other.starts_with("bk_") => CType::Named(other.to_string()),
                other => return Err(format!("unknown type {other}")),
            })
        }
        Type::Paren(p) => ctype(&p.elem),
        other => Err(format!("unsupported type {}", quote::ToTokens::to_token_stream(other))),
    }
}
