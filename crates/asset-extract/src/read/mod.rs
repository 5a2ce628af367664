//! An archive's structure: the end records, the central directory, each entry's local header
//! (one parser for every path), and the names they hold, checked and indexed.

pub(crate) mod archive;
pub(crate) mod bytes;
pub(crate) mod end_records;
pub(crate) mod entry;
pub(crate) mod extra;
pub(crate) mod local;
pub(crate) mod name_index;
pub(crate) mod names;
pub(crate) mod windows_names;
