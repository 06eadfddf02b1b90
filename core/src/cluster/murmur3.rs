//! Murmur3Partitioner tokens, bit for bit as Cassandra computes them.
//!
//! Cassandra's `MurmurHash.hash3_x64_128` is the x64 128-bit MurmurHash3 with one deviation:
//! the tail bytes (the last `len % 16`) are read as signed Java `byte`s and sign-extended to
//! `long` before being shifted into `k1`/`k2`. Every tail byte ≥ 0x80 therefore flips all the
//! bits above its own position, so the result differs from the reference MurmurHash3 for such
//! inputs. The 16-byte body blocks are read unsigned (`& 0xff`), as in the reference.
//!
//! The token is the first 64-bit half of the hash, as a signed `long`. `Long.MIN_VALUE` is the
//! ring's minimum and no key may own it, so Cassandra maps a hash of `i64::MIN` to `i64::MAX`
//! and gives the empty key the minimum token (`Murmur3Partitioner.getToken`).

use crate::error::ProtocolError;

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

/// Builds a tail word the way Cassandra's Java does: `k ^= ((long) byte) << shift`, where the
/// cast sign-extends. XOR order does not matter, but the sign extension does.
///
/// Computed without a loop over the bytes (a request's key is most often 8 bytes, all tail):
/// the bytes read unsigned, then for every byte with its top bit set, every bit above that
/// byte flipped. Those flips XOR together into a prefix parity per byte, filled by `* 0xFF`.
fn tail_word(bytes: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le[..bytes.len()].copy_from_slice(bytes);
    let word = u64::from_le_bytes(le);
    // Bit 8(i+1) set for each byte i whose top bit is set (byte 7's flips fall off the end).
    let mut flips = (word & 0x8080_8080_8080_8080) << 1;
    flips ^= flips << 8;
    flips ^= flips << 16;
    flips ^= flips << 32;
    word ^ flips.wrapping_mul(0xFF)
}

/// One 16-byte body block mixed into the state `(h1, h2)`.
fn mix_block(mut h1: u64, mut h2: u64, block: &[u8; 16]) -> (u64, u64) {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&block[..8]);
    hi.copy_from_slice(&block[8..]);
    h1 ^= mix_k1(u64::from_le_bytes(lo));
    h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dc_e729);
    h2 ^= mix_k2(u64::from_le_bytes(hi));
    h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x3849_5ab5);
    (h1, h2)
}

/// The tail (`tail.len() < 16`) and the length mixed into the state: the first 64-bit half of
/// the hash.
fn finish_h1(mut h1: u64, mut h2: u64, tail: &[u8], total_len: u64) -> i64 {
    if tail.len() > 8 {
        h2 ^= mix_k2(tail_word(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(tail_word(&tail[..tail.len().min(8)]));
    }
    // Java XORs an `int` length into a `long`; lengths here never reach 2^31.
    h1 ^= total_len;
    h2 ^= total_len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1.wrapping_add(h2) as i64
}

/// An incremental hasher, so a composite routing key can be hashed component by component
/// without first being copied into one buffer.
#[derive(Clone, Debug)]
pub struct Murmur3Hasher {
    h1: u64,
    h2: u64,
    pending: [u8; 16],
    pending_len: usize,
    total_len: u64,
}

impl Default for Murmur3Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Murmur3Hasher {
    /// Cassandra always hashes with seed 0.
    pub fn new() -> Self {
        Self { h1: 0, h2: 0, pending: [0; 16], pending_len: 0, total_len: 0 }
    }

    fn block(&mut self, block: &[u8; 16]) {
        (self.h1, self.h2) = mix_block(self.h1, self.h2, block);
    }

    pub fn write(&mut self, mut bytes: &[u8]) {
        self.total_len = self.total_len.wrapping_add(bytes.len() as u64);
        if self.pending_len > 0 {
            let take = (16 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 16 {
                return;
            }
            let block = self.pending;
            self.block(&block);
            self.pending_len = 0;
        }
        let mut chunks = bytes.chunks_exact(16);
        for chunk in &mut chunks {
            let mut block = [0u8; 16];
            block.copy_from_slice(chunk);
            self.block(&block);
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The first 64-bit half of Cassandra's `hash3_x64_128`, before token normalisation.
    pub fn finish_h1(&self) -> i64 {
        finish_h1(self.h1, self.h2, &self.pending[..self.pending_len], self.total_len)
    }

    /// The partitioner token of everything written so far.
    pub fn finish_token(&self) -> i64 {
        if self.total_len == 0 {
            return i64::MIN;
        }
        normalize(self.finish_h1())
    }
}

/// `i64::MIN` is the ring minimum, which no key may own.
pub(crate) fn normalize(hash: i64) -> i64 {
    if hash == i64::MIN {
        i64::MAX
    } else {
        hash
    }
}

/// The Murmur3Partitioner token of a routing key (already serialised partition key bytes).
/// Hashed in one pass over `key`, without the incremental hasher's copies into its pending
/// block: a request's token is most often this (a partition key of one column; issue #17).
pub fn murmur3_token(key: &[u8]) -> i64 {
    if key.is_empty() {
        return i64::MIN;
    }
    let (mut h1, mut h2) = (0, 0);
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let mut b = [0u8; 16];
        b.copy_from_slice(block);
        (h1, h2) = mix_block(h1, h2, &b);
    }
    normalize(finish_h1(h1, h2, blocks.remainder(), key.len() as u64))
}

/// The routing key of a partition key: a lone component is its own bytes; a composite key is
/// each component as `[u16 length][bytes][0x00]` (Cassandra's `CompositeType` encoding).
pub fn routing_key(components: &[&[u8]]) -> Result<Vec<u8>, ProtocolError> {
    let mut out = Vec::new();
    routing_key_into(components, &mut out)?;
    Ok(out)
}

/// Like [`routing_key`], into a caller's buffer (cleared first) so a hot path can reuse it.
pub fn routing_key_into(components: &[&[u8]], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    out.clear();
    if let [single] = components {
        out.extend_from_slice(single);
        return Ok(());
    }
    check_component_lengths(components)?;
    out.reserve(components.iter().map(|c| c.len() + 3).sum());
    for component in components {
        // Checked above: every length fits in a u16.
        out.extend_from_slice(&(component.len() as u16).to_be_bytes());
        out.extend_from_slice(component);
        out.push(0);
    }
    Ok(())
}

/// The token of a partition key given as its components, hashed without building the routing
/// key in memory.
pub fn routing_token(components: &[&[u8]]) -> Result<i64, ProtocolError> {
    if let [single] = components {
        return Ok(murmur3_token(single));
    }
    check_component_lengths(components)?;
    let mut hasher = Murmur3Hasher::new();
    for component in components {
        hasher.write(&(component.len() as u16).to_be_bytes());
        hasher.write(component);
        hasher.write(&[0]);
    }
    Ok(hasher.finish_token())
}

fn check_component_lengths(components: &[&[u8]]) -> Result<(), ProtocolError> {
    let mut offset = 0usize;
    for component in components {
        if component.len() > u16::MAX as usize {
            return Err(ProtocolError::local(
                "routing_key.component",
                offset,
                format!(
                    "a composite partition key component is {} bytes; its u16 length prefix allows at most {}",
                    component.len(),
                    u16::MAX
                ),
            ));
        }
        offset += component.len() + 3;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_key_is_the_ring_minimum_even_though_its_hash_is_zero() {
        assert_eq!(Murmur3Hasher::new().finish_h1(), 0);
        assert_eq!(murmur3_token(b""), i64::MIN);
    }

    #[test]
    fn hash_of_minimum_maps_to_maximum() {
        assert_eq!(normalize(i64::MIN), i64::MAX);
        assert_eq!(normalize(i64::MIN + 1), i64::MIN + 1);
        assert_eq!(normalize(0), 0);
    }

    // datastax/ruby-driver spec/cassandra/murmur3_spec.rb: "\xE2\xE7" and "123".
    #[test]
    fn short_tails_match_ruby_driver() {
        assert_eq!(murmur3_token(&[0xe2, 0xe7]), -8582699461035929883);
        assert_eq!(murmur3_token(b"123"), -7468325962851647638);
    }

    #[test]
    fn tail_bytes_are_sign_extended() {
        // The same tail read unsigned (reference MurmurHash3) gives a different word.
        assert_eq!(tail_word(&[0x80]), 0xffff_ffff_ffff_ff80);
        assert_eq!(tail_word(&[0x01, 0x80]), 0xffff_ffff_ffff_8001);
        assert_eq!(tail_word(&[0x80, 0x01]), 0x0000_0000_0000_0180 ^ 0xffff_ffff_ffff_ff00);
    }

    /// Java's `k ^= ((long) b) << 8 * i`, byte by byte, as the word is defined.
    fn java_tail_word(bytes: &[u8]) -> u64 {
        bytes.iter().enumerate().fold(0u64, |k, (i, &b)| k ^ (((b as i8) as i64 as u64) << (8 * i)))
    }

    #[test]
    fn tail_word_is_javas_byte_by_byte_word() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = x.to_le_bytes();
            let len = (x >> 61) as usize + 1;
            assert_eq!(tail_word(&bytes[..len]), java_tail_word(&bytes[..len]), "{:02x?}", &bytes[..len]);
        }
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut bytes = [0x7f; 8];
                bytes[at] = b;
                assert_eq!(tail_word(&bytes), java_tail_word(&bytes));
                assert_eq!(tail_word(&bytes[..=at]), java_tail_word(&bytes[..=at]));
            }
        }
        assert_eq!(tail_word(&[]), 0);
    }

    #[test]
    fn streaming_in_any_split_equals_one_shot() {
        let data: Vec<u8> = (0u8..=60).map(|b| b.wrapping_mul(37).wrapping_add(0x81)).collect();
        for len in 0..data.len() {
            let whole = murmur3_token(&data[..len]);
            for cut in 0..=len {
                let mut hasher = Murmur3Hasher::new();
                hasher.write(&data[..cut]);
                hasher.write(&data[cut..len]);
                assert_eq!(hasher.finish_token(), whole, "len {len} cut {cut}");
            }
        }
    }

    #[test]
    fn composite_key_layout_and_token_agree() {
        let key = routing_key(&[b"ab", b"", b"\xff"]).unwrap();
        assert_eq!(key, b"\x00\x02ab\x00\x00\x00\x00\x00\x01\xff\x00");
        assert_eq!(routing_token(&[b"ab", b"", b"\xff"]).unwrap(), murmur3_token(&key));
        assert_eq!(routing_key(&[b"solo"]).unwrap(), b"solo");
        assert_eq!(routing_token(&[b"solo"]).unwrap(), murmur3_token(b"solo"));
    }

    #[test]
    fn oversized_component_is_a_local_error_not_a_panic() {
        let big = vec![0u8; 70_000];
        let err = routing_key(&[b"a", &big]).unwrap_err();
        assert_eq!(err.side, crate::error::Side::Local);
        assert_eq!(err.field, "routing_key.component");
        assert_eq!(err.offset, 4);
        assert_eq!(
            routing_token(&[b"a", &big]).unwrap_err(),
            ProtocolError::local(
                "routing_key.component",
                4,
                "a composite partition key component is 70000 bytes; its u16 length prefix allows at most 65535"
            )
        );
        // A lone component has no length prefix, so any size is fine.
        assert!(routing_key(&[&big]).is_ok());
    }

    /// The u16 prefix holds 65,535: a component of exactly that length is a valid key part.
    #[test]
    fn component_of_the_largest_u16_length_is_accepted() {
        let widest = vec![0x5au8; u16::MAX as usize];
        let key = routing_key(&[b"a", &widest]).unwrap();
        assert_eq!(key.len(), 4 + 2 + widest.len() + 1);
        assert_eq!(&key[4..6], &[0xff, 0xff]);
        assert_eq!(routing_token(&[b"a", &widest]).unwrap(), murmur3_token(&key));
    }
}
