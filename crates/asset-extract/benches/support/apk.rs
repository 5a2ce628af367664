//! An APK-shaped archive for the benches and `bench-reports/programs/src/bin/read_cost.rs`, built in memory.

#[path = "../../tests/zipwriter/mod.rs"]
#[allow(dead_code)]
mod zipwriter;

use zipwriter::{Spec, build};

/// Code-like text from a vocabulary: it compresses about as well as minified JavaScript (3-4×).
fn script(seed: u32, size: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "function",
        "return",
        "const",
        "this",
        "props",
        "render",
        "value",
        "index",
        "children",
        "options",
        "callback",
        "result",
        "filter",
        "reduce",
        "length",
        "undefined",
    ];
    const PUNCT: [&str; 8] = ["(", ")", "{", "}", ".", ", ", ";\n", " = "];
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut body = Vec::with_capacity(size + 16);
    while body.len() < size {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let r = state >> 8;
        body.extend_from_slice(WORDS[(r % 16) as usize].as_bytes());
        if r.is_multiple_of(7) {
            body.extend_from_slice((r % 1000).to_string().as_bytes());
        }
        body.extend_from_slice(PUNCT[((r >> 5) % 8) as usize].as_bytes());
    }
    body.truncate(size);
    body
}

/// 200 deflated scripts of 0.3-120 KB, 20 stored images and a stored table: an APK's shape.
pub fn apk() -> Vec<u8> {
    let mut specs = Vec::new();
    for i in 0..200u32 {
        let size = (300.0 * 400f64.powf(f64::from((i * 37) % 100) / 100.0)) as usize;
        specs.push(Spec::file(&format!("assets/js/module{i}.js"), &script(i, size)));
    }
    for i in 0..20u32 {
        let png: Vec<u8> = (0..8_000u32).map(|b| (b.wrapping_mul(2_654_435_761) ^ i) as u8).collect();
        specs.push(Spec::stored(&format!("res/drawable/icon{i}.png"), &png));
    }
    specs.push(Spec::stored("resources.arsc", &script(999, 60_000)));
    build(&specs, b"").0
}
