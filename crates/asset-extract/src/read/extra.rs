//! Extra fields, as central and local headers carry them: whether an area is made of whole
//! fields, and the ZIP64 extended information.

#![forbid(unsafe_code)]

use crate::Error;
use crate::read::bytes::{Shown, u16_at, u64_at};

/// ZIP64 extended information: the 64-bit values of fields whose 32-bit value is all ones, in
/// the order size, compressed size, local header offset; then, for a central record whose disk
/// number is 0xFFFF, its 32-bit disk number.
pub(super) fn zip64_extra(
    extra: &[u8],
    size: &mut u64,
    csize: &mut u64,
    offset: Option<&mut u64>,
    disk: Option<&mut u32>,
    name: Shown<'_>,
) -> Result<(), Error> {
    let needs = [
        *size == 0xffff_ffff,
        *csize == 0xffff_ffff,
        offset.as_ref().is_some_and(|o| **o == 0xffff_ffff),
        disk.as_ref().is_some_and(|d| **d == 0xffff),
    ];
    if !needs.contains(&true) {
        return Ok(());
    }
    let mut at = 0;
    while at + 4 <= extra.len() {
        let (id, len) = (u16_at(extra, at).expect("checked"), usize::from(u16_at(extra, at + 2).expect("checked")));
        let body = extra
            .get(at + 4..at + 4 + len)
            .ok_or_else(|| Error::malformed_entry("extra field runs past its end", &name.text()))?;
        if id == 1 {
            let mut next = 0;
            let mut take = |need: bool| -> Result<Option<u64>, Error> {
                if !need {
                    return Ok(None);
                }
                let v = u64_at(body, next)
                    .ok_or_else(|| Error::malformed_entry("ZIP64 extra field is truncated", &name.text()))?;
                next += 8;
                Ok(Some(v))
            };
            if let Some(v) = take(needs[0])? {
                *size = v;
            }
            if let Some(v) = take(needs[1])? {
                *csize = v;
            }
            if let (Some(v), Some(o)) = (take(needs[2])?, offset) {
                *o = v;
            }
            if let Some(d) = disk.filter(|_| needs[3]) {
                *d = body
                    .get(next..next + 4)
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .ok_or_else(|| Error::malformed_entry("ZIP64 extra field is truncated", &name.text()))?;
            }
            return Ok(());
        }
        at += 4 + len;
    }
    Err(Error::malformed_entry("ZIP64 sizes are needed but the ZIP64 extra field is missing", &name.text()))
}

/// Whether an extra field area is made of whole (id, length, data) blocks that end where it does,
/// but for 1 to 3 zero bytes after the last block (the padding `zipalign` adds to local headers).
/// A block whose length runs past the area, or any other trailing bytes, do not fit (`unzip -t`
/// reports them). Checked in central and local headers alike.
pub(super) fn extra_fields_fit(extra: &[u8]) -> bool {
    let mut at = 0;
    while let Some(len) = u16_at(extra, at + 2) {
        at += 4 + usize::from(len);
    }
    match extra.get(at..) {
        Some(rest) => rest.len() <= 3 && rest.iter().all(|&b| b == 0),
        None => false, // the last block runs past the area
    }
}

/// Whether an extra field area holds a ZIP64 extended information field (id 1).
pub(super) fn has_zip64_extra(extra: &[u8]) -> bool {
    let mut at = 0;
    while let (Some(id), Some(len)) = (u16_at(extra, at), u16_at(extra, at + 2)) {
        if id == 1 {
            return true;
        }
        at += 4 + usize::from(len);
    }
    false
}
