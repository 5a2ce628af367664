//! Dynamic-Huffman blocks built bit by bit from chosen code lengths, so the decode-table builder
//! meets every pattern of used and unused symbols: used symbols on and across the boundaries of
//! the eight lengths it reads at a time, 257 to 286 litlen codes (every tail length), one to 256
//! used literals, codeword lengths up to 15, one-codeword and two-codeword distance codes. Each
//! stream must inflate to exactly its literals, as zlib (through flate2) inflates it; codes that
//! overfill or underfill the code space must be refused, as zlib refuses them.

use std::io::Read;

use strided_inflate::{Decoder, Format};

/// xorshift64*: deterministic, so a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Writes bits least significant first, as deflate does.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman codeword, which deflate sends most significant bit first.
    fn put_code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Canonical codewords for `lens` (RFC 1951, 3.2.2); 0 for unused symbols.
fn canonical(lens: &[u8]) -> Vec<u32> {
    let mut count = [0u32; 16];
    for &l in lens.iter().filter(|&&l| l > 0) {
        count[l as usize] += 1;
    }
    let mut next = [0u32; 16];
    let mut code = 0;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lens.iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[l as usize];
            next[l as usize] += 1;
            c
        })
        .collect()
}

/// Huffman code lengths for `weights` (each > 0), or `None` if a length would pass 15.
fn huffman_lens(weights: &[u64]) -> Option<Vec<u8>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if weights.len() == 1 {
        return Some(vec![1]);
    }
    // Nodes: leaves 0..n, then internal ones; parent links give each leaf's depth.
    let mut parent = vec![usize::MAX; weights.len()];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        weights.iter().enumerate().map(|(i, &w)| Reverse((w, i))).collect();
    while heap.len() > 1 {
        let Reverse((wa, a)) = heap.pop().unwrap();
        let Reverse((wb, b)) = heap.pop().unwrap();
        let node = parent.len();
        parent.push(usize::MAX);
        parent[a] = node;
        parent[b] = node;
        heap.push(Reverse((wa + wb, node)));
    }
    let lens: Vec<u8> = (0..weights.len())
        .map(|leaf| {
            let (mut depth, mut at) = (0u8, leaf);
            while parent[at] != usize::MAX {
                depth += 1;
                at = parent[at];
            }
            depth
        })
        .collect();
    lens.iter().all(|&l| l <= 15).then_some(lens)
}

/// One final dynamic block sending `literals` with litlen code `litlen` (its length is the
/// number of litlen codes, 257..=286) and distance code `dist`. The code lengths go out through
/// a precode giving each of the lengths 0 to 15 a 4-bit codeword (a complete code).
fn dynamic_block(litlen: &[u8], dist: &[u8], literals: &[u8]) -> Vec<u8> {
    const ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
    let mut precode = [0u8; 19];
    precode[..16].fill(4);
    let mut bits = Bits::default();
    bits.put(1, 1); // final block
    bits.put(2, 2); // dynamic Huffman
    bits.put((litlen.len() - 257) as u32, 5);
    bits.put((dist.len() - 1) as u32, 5);
    bits.put(19 - 4, 4);
    for &sym in &ORDER {
        bits.put(u32::from(precode[sym]), 3);
    }
    let pre_codes = canonical(&precode);
    for &l in litlen.iter().chain(dist) {
        bits.put_code(pre_codes[l as usize], 4);
    }
    let codes = canonical(litlen);
    for &b in literals {
        bits.put_code(codes[b as usize], u32::from(litlen[b as usize]));
    }
    bits.put_code(codes[256], u32::from(litlen[256]));
    bits.finish()
}

fn zlib_inflate(stream: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(stream).read_to_end(&mut out).ok().map(|_| out)
}

/// A random stream: which literals are used, how often, and how many litlen codes are sent.
fn random_case(rng: &mut Rng) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    loop {
        let most = [8, 64, 256][rng.below(3)];
        let used_count = 1 + rng.below(most);
        let mut used: Vec<usize> = Vec::new();
        // Runs of neighbours as well as scattered symbols, so used lengths straddle the eight-length words.
        while used.len() < used_count {
            let start = rng.below(256);
            for s in start..(start + 1 + rng.below(12)).min(256) {
                if used.len() < used_count && !used.contains(&s) {
                    used.push(s);
                }
            }
        }
        used.sort_unstable();
        let mut symbols = used.clone();
        symbols.push(256);
        // A few length codes too (sent but unused by the literals), up to symbol 285.
        for _ in 0..rng.below(4) {
            let s = 257 + rng.below(29);
            if !symbols.contains(&s) {
                symbols.push(s);
            }
        }
        symbols.sort_unstable();
        // Skewed weights give long codewords (up to 15) as well as short ones.
        let weights: Vec<u64> = symbols.iter().map(|_| (1 + (rng.next() % 4096)) >> rng.below(12)).collect();
        let Some(lens) = huffman_lens(&weights.iter().map(|&w| w.max(1)).collect::<Vec<_>>()) else { continue };
        let last = *symbols.last().unwrap();
        let litlen_codes = (last + 1).max(257 + rng.below(30)).min(286);
        let mut litlen = vec![0u8; litlen_codes.max(last + 1)];
        for (&s, &l) in symbols.iter().zip(&lens) {
            litlen[s] = l;
        }
        let literals: Vec<u8> = (0..rng.below(300)).map(|_| used[rng.below(used.len())] as u8).collect();
        let dist = if rng.below(2) == 0 { vec![1u8] } else { vec![1u8, 1] };
        return (litlen, dist, literals);
    }
}

#[test]
fn every_pattern_of_used_symbols_inflates_exactly_as_zlib_inflates_it() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    let mut max_len_seen = 0;
    let mut tails_seen = [false; 8];
    for case in 0..3000 {
        let (litlen, dist, literals) = random_case(&mut rng);
        max_len_seen = max_len_seen.max(*litlen.iter().max().unwrap());
        tails_seen[litlen.len() % 8] = true;
        let stream = dynamic_block(&litlen, &dist, &literals);
        assert_eq!(zlib_inflate(&stream).as_deref(), Some(&literals[..]), "case {case}: the test's own stream");
        let mut out = vec![0u8; literals.len()];
        let consumed = decoder.inflate_at(&stream, 0, &mut out).unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(out, literals, "case {case}");
        assert_eq!(consumed, stream.len(), "case {case}");
    }
    assert_eq!(max_len_seen, 15, "the cases reach 15-bit codewords");
    assert!(tails_seen.iter().all(|&t| t), "every count of litlen codes modulo 8: {tails_seen:?}");
}

#[test]
fn codes_that_do_not_fill_the_code_space_exactly_are_refused_as_zlib_refuses_them() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut decoder = Decoder::new(Format::Raw).unwrap();
    let mut refused = 0;
    for case in 0..2000 {
        let (mut litlen, dist, literals) = random_case(&mut rng);
        // Lengthen or shorten one used codeword: the code overfills or leaves space unused.
        let used: Vec<usize> = (0..litlen.len()).filter(|&s| litlen[s] > 0).collect();
        let victim = used[rng.below(used.len())];
        litlen[victim] = match litlen[victim] {
            1 => 2,
            15 => 14,
            l if rng.below(2) == 0 => l - 1,
            l => l + 1,
        };
        let stream = dynamic_block(&litlen, &dist, &literals);
        let zlib = zlib_inflate(&stream);
        let mut out = vec![0u8; zlib.as_ref().map_or(literals.len(), Vec::len)];
        let ours = decoder.inflate_at(&stream, 0, &mut out);
        match zlib {
            Some(bytes) => {
                // zlib accepts a one-codeword litlen code; so must we, with its bytes.
                assert!(ours.is_ok(), "case {case}: zlib inflates what bufkit refuses");
                assert_eq!(out, bytes, "case {case}");
            }
            None => {
                assert!(ours.is_err(), "case {case}: bufkit inflates what zlib refuses");
                refused += 1;
            }
        }
    }
    assert!(refused > 1500, "most changed codes are invalid: {refused}");
}
