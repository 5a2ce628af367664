//! The header's "Methods:" lists, one per handle type, name every function that takes that handle
//! first (its constructor aside), and nothing else: hand-written lists that a test keeps true
//! (issue 27: `bk_buffer_truncate` was missing from its type's list).

use std::collections::BTreeSet;

fn header() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../include/bufkit.h")).unwrap()
}

/// Each handle type whose doc has a "Methods:" list, with the functions listed.
fn listed(header: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    for (at, _) in header.match_indices("Methods:") {
        let doc_end = at + header[at..].find("*/").unwrap();
        let names: BTreeSet<String> = header[at..doc_end].split('`').skip(1).step_by(2).map(str::to_string).collect();
        let after = &header[doc_end..];
        let typedef = after.find("typedef struct ").map(|i| &after[i + "typedef struct ".len()..]).unwrap();
        let ty = typedef.split_whitespace().next().unwrap().to_string();
        out.push((ty, names));
    }
    out
}

/// Every function whose first parameter is a `ty` handle (`struct ty *` or `const struct ty *`),
/// but the constructor (`_new`, which returns one through its last parameter).
fn methods_of(header: &str, ty: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in header.lines().filter(|l| l.starts_with("bk_status bk_") || l.starts_with("void bk_")) {
        let Some(open) = line.find('(') else { continue };
        let name = line[..open].split_whitespace().last().unwrap().to_string();
        let first = line[open + 1..].split([',', ')']).next().unwrap().trim();
        let first = first.strip_prefix("const ").unwrap_or(first);
        if first.starts_with(&format!("struct {ty} *")) && !name.ends_with("_new") {
            out.insert(name);
        }
    }
    out
}

#[test]
fn every_methods_list_names_exactly_its_types_functions() {
    let header = header();
    let lists = listed(&header);
    let types: BTreeSet<&str> = lists.iter().map(|(ty, _)| ty.as_str()).collect();
    for ty in
        ["bk_buffer", "bk_pool", "bk_inflater", "bk_inflate_stream", "bk_cancel", "bk_archive", "bk_archive_reader"]
    {
        assert!(types.contains(ty), "{ty} has no Methods: list");
    }
    for (ty, names) in lists {
        let methods = methods_of(&header, &ty);
        let missing: Vec<_> = methods.difference(&names).collect();
        let extra: Vec<_> = names.difference(&methods).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{ty}: missing from its list {missing:?}, listed but not its methods {extra:?}"
        );
    }
}
