//! A tiny zip writer for tests: builds archives byte by byte so tests can then break any field.

use std::io::Write;

#[derive(Clone)]
pub struct Spec {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    pub deflate: bool,
    pub unix_mode: Option<u32>,
    pub flags: u16,
    pub descriptor: bool,
    /// DOS (date, time), as the headers record them.
    pub dos: (u16, u16),
    /// The central header's extra field.
    pub central_extra: Vec<u8>,
    /// Data already compressed, and its method's number: written as is, in place of `data`
    /// deflated or stored (`data` stays what it decompresses to, for the CRC and the size).
    pub packed: Option<(u16, Vec<u8>)>,
}

impl Spec {
    pub fn file(name: &str, data: &[u8]) -> Spec {
        Spec {
            name: name.as_bytes().to_vec(),
            data: data.to_vec(),
            deflate: true,
            unix_mode: Some(0o100644),
            flags: 0,
            descriptor: false,
            dos: (0x21, 0),
            central_extra: Vec::new(),
            packed: None,
        }
    }
    #[allow(dead_code)] // only the methods tests pack their own data
    pub fn packed(name: &str, data: &[u8], method: u16, body: Vec<u8>) -> Spec {
        Spec { packed: Some((method, body)), ..Spec::file(name, data) }
    }
    pub fn stored(name: &str, data: &[u8]) -> Spec {
        Spec { deflate: false, ..Spec::file(name, data) }
    }
    pub fn dir(name: &str) -> Spec {
        Spec { unix_mode: Some(0o040755), ..Spec::stored(name, b"") }
    }
}

/// Where each part landed, so tests can patch fields.
pub struct Layout {
    pub local: Vec<usize>,
    pub central: Vec<usize>,
    pub eocd: usize,
}

pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn build(entries: &[Spec], comment: &[u8]) -> (Vec<u8>, Layout) {
    let mut out = Vec::new();
    let mut layout = Layout { local: vec![], central: vec![], eocd: 0 };
    let mut meta = vec![];
    for e in entries {
        let (method, body) = match &e.packed {
            Some((method, body)) => (*method, body.clone()),
            None if e.deflate => (8, deflate(&e.data)),
            None => (0, e.data.clone()),
        };
        let crc = crc32fast::hash(&e.data);
        let flags = e.flags | if e.descriptor { 8 } else { 0 } | 0x800;
        layout.local.push(out.len());
        let offset = out.len() as u32;
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&e.dos.1.to_le_bytes()); // time, date
        out.extend_from_slice(&e.dos.0.to_le_bytes());
        let (lcrc, lc, lu) = if e.descriptor { (0, 0, 0) } else { (crc, body.len() as u32, e.data.len() as u32) };
        out.extend_from_slice(&lcrc.to_le_bytes());
        out.extend_from_slice(&lc.to_le_bytes());
        out.extend_from_slice(&lu.to_le_bytes());
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&body);
        if e.descriptor {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(e.data.len() as u32).to_le_bytes());
        }
        meta.push((crc, body.len() as u32, e.data.len() as u32, offset, method, flags));
    }
    let cd_start = out.len();
    for (e, (crc, c, u, offset, method, flags)) in entries.iter().zip(meta) {
        layout.central.push(out.len());
        out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        let made_by: u16 = if e.unix_mode.is_some() { 3 << 8 | 20 } else { 20 };
        out.extend_from_slice(&made_by.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&e.dos.1.to_le_bytes());
        out.extend_from_slice(&e.dos.0.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&c.to_le_bytes());
        out.extend_from_slice(&u.to_le_bytes());
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(e.central_extra.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // comment, disk, internal attrs
        out.extend_from_slice(&(e.unix_mode.unwrap_or(0) << 16).to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&e.central_extra);
    }
    let cd_size = out.len() - cd_start;
    layout.eocd = out.len();
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(cd_size as u32).to_le_bytes());
    out.extend_from_slice(&(cd_start as u32).to_le_bytes());
    out.extend_from_slice(&(comment.len() as u16).to_le_bytes());
    out.extend_from_slice(comment);
    (out, layout)
}

pub fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Two small files with a ZIP64 end record and locator before its end record, whose fields say `entries`,
/// and the end record's fields at `saturate` (byte offsets in it) set to all ones (none: the
/// 32-bit record needs no ZIP64 one).
#[allow(dead_code)] // only the tests of end records use it
pub fn with_zip64_record(entries: u64, saturate: &[usize]) -> Vec<u8> {
    let (zip, l) = build(&[Spec::file("a", b"abc"), Spec::file("b", b"def")], b"");
    let eocd = &zip[l.eocd..];
    let (cd_size, cd_offset) = (
        u64::from(u32::from_le_bytes(eocd[12..16].try_into().unwrap())),
        u64::from(u32::from_le_bytes(eocd[16..20].try_into().unwrap())),
    );
    let mut record = Vec::new();
    record.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
    record.extend_from_slice(&44u64.to_le_bytes());
    record.extend_from_slice(&[45, 3, 45, 0]);
    record.extend_from_slice(&[0; 8]);
    record.extend_from_slice(&entries.to_le_bytes());
    record.extend_from_slice(&entries.to_le_bytes());
    record.extend_from_slice(&cd_size.to_le_bytes());
    record.extend_from_slice(&cd_offset.to_le_bytes());
    let mut locator = Vec::new();
    locator.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
    locator.extend_from_slice(&0u32.to_le_bytes());
    locator.extend_from_slice(&(l.eocd as u64).to_le_bytes());
    locator.extend_from_slice(&1u32.to_le_bytes());
    let mut out = [&zip[..l.eocd], &record, &locator, eocd].concat();
    let at = out.len() - 22;
    for &field in saturate {
        match field {
            12 | 16 => put_u32(&mut out, at + field, 0xffff_ffff),
            _ => put_u16(&mut out, at + field, 0xffff),
        }
    }
    out
}
