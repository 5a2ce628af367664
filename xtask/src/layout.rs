//! Where C puts each field of a `#[repr(C)]` struct on the 64-bit platforms bufkit ships for
//! (LP64: x86-64 and aarch64): each field at the next multiple of its alignment, the struct
//! padded to a multiple of its largest. The conformance suite compares every layout written from
//! this with the C compiler's.

use crate::model::{CStruct, CType, Description};

/// A field's place: its offset and size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub offset: usize,
    pub size: usize,
}

/// The size and alignment of `ty`.
pub fn size_align(d: &Description, ty: &CType) -> Result<(usize, usize), String> {
    Ok(match ty {
        CType::U8 | CType::Char => (1, 1),
        CType::U16 => (2, 2),
        CType::U32 | CType::I32 | CType::Int => (4, 4),
        CType::U64 | CType::I64 | CType::Usize | CType::F64 => (8, 8),
        CType::Ptr { .. } | CType::Fn { .. } => (8, 8),
        CType::Array(elem, n) => {
            let (size, align) = size_align(d, elem)?;
            (size * n, align)
        }
        CType::Named(name) if d.is_enum(name) => (4, 4),
        CType::Named(name) if d.callbacks.iter().any(|c| &c.name == name) => (8, 8),
        CType::Named(name) => {
            let s = d.struct_named(name).ok_or_else(|| format!("no struct {name}"))?;
            let (_, size) = places(d, s)?;
            let align = s.fields.iter().try_fold(1, |m, f| size_align(d, &f.ty).map(|(_, a)| m.max(a)))?;
            (size, align)
        }
        CType::Void => return Err("void has no size".into()),
    })
}

/// Each field's place, and the struct's size.
pub fn places(d: &Description, s: &CStruct) -> Result<(Vec<Place>, usize), String> {
    let mut at = 0usize;
    let mut largest = 1usize;
    let mut out = Vec::new();
    for f in &s.fields {
        let (size, align) = size_align(d, &f.ty).map_err(|e| format!("{}.{}: {e}", s.name, f.name))?;
        at = at.next_multiple_of(align);
        out.push(Place { offset: at, size });
        at += size;
        largest = largest.max(align);
    }
    Ok((out, at.next_multiple_of(largest)))
}
