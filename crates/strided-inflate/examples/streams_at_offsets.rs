//! Many small zlib streams back to back in one buffer, as a git pack holds them: each is inflated
//! where it starts, and the count of bytes it consumed says where the next one starts, with no
//! copy of the buffer and no guess at the compressed length.
//!
//! ```sh
//! cargo run --release -p bufkit-strided-inflate --example streams_at_offsets
//! ```

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let objects: Vec<String> = (0..1000).map(|i| format!("object {i}: {}\n", "some text ".repeat(i % 50))).collect();
    let mut pack = Vec::new();
    for object in &objects {
        let mut encoder = flate2::write::ZlibEncoder::new(&mut pack, flate2::Compression::default());
        encoder.write_all(object.as_bytes())?;
        encoder.finish()?;
    }
    let mut offset = 0;
    for object in &objects {
        let (data, consumed) = strided_inflate::inflate_at(&pack, offset, object.len())?;
        assert_eq!(data, object.as_bytes());
        offset += consumed;
    }
    println!(
        "{} streams, {} bytes: each inflated at its offset, the last ending at {offset}",
        objects.len(),
        pack.len()
    );
    Ok(())
}
