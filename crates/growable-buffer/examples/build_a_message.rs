//! Builds a 4 MB message from small appends, as a serializer writes one, and shows what growth
//! cost: geometric growth, the default, against JInterface's old 2 KiB step (whose copying grows
//! with the square of the size: at 40 MB it takes minutes).
//!
//! ```sh
//! cargo run --release -p bufkit-growable-buffer --example build_a_message
//! ```

use growable_buffer::{GrowableBuffer, Growth};

fn main() -> Result<(), growable_buffer::Error> {
    let piece = b"{\"id\":12345,\"name\":\"an asset\"},";
    let pieces = 4_000_000 / piece.len();
    for (label, growth) in [("geometric (default)", None), ("2 KiB steps", Some(Growth::Linear { step: 2048 }))] {
        let mut message = match growth {
            Some(growth) => GrowableBuffer::with_growth(growth)?,
            None => GrowableBuffer::new(),
        };
        let started = std::time::Instant::now();
        for _ in 0..pieces {
            message.append(piece)?;
        }
        let stats = message.stats();
        println!(
            "{label:>20}: {} bytes in {:?}; {} grows, {} moves, {} bytes copied",
            stats.len,
            started.elapsed(),
            stats.grows,
            stats.moves,
            stats.bytes_copied
        );
    }
    Ok(())
}
