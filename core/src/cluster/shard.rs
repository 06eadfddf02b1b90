//! Which shard of a Scylla node owns a token, and which shards a node's pool still lacks.

/// The shard owning `token` by `biased-token-round-robin`: bias the token to unsigned, drop
/// its `ignore_msb` top bits, and scale it onto `nr_shards` with a 128-bit multiply (the
/// document's formula; `ignore_msb` above 63 is clamped, `nr_shards` 0 gives shard 0).
pub fn shard_of(token: i64, nr_shards: u16, ignore_msb: u8) -> u16 {
    let biased = (token as u64) ^ (1u64 << 63);
    let shifted = biased.checked_shl(u32::from(ignore_msb.min(63))).unwrap_or(0);
    ((u128::from(shifted) * u128::from(nr_shards)) >> 64) as u16
}

/// One connection of a sharded node's pool, as far as filling the pool is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolSlot {
    /// It serves this shard, as its SUPPORTED said.
    On(u16),
    /// Still connecting to the shard-aware port, asking for this shard.
    Asking(u16),
    /// Still connecting to the regular port: the server picks the shard.
    Blind,
}

/// The shards to open connections for, so each shard gets `per_shard` connections: one
/// entry per missing connection, lowest shard first. Connections still connecting blindly
/// are counted against the missing ones, since each will cover some shard.
pub fn missing_shards(slots: &[PoolSlot], nr_shards: u16, per_shard: usize) -> Vec<u16> {
    let mut have = vec![0usize; usize::from(nr_shards)];
    let mut blind = 0usize;
    for s in slots {
        match *s {
            PoolSlot::On(x) | PoolSlot::Asking(x) => {
                if let Some(n) = have.get_mut(usize::from(x)) {
                    *n += 1;
                }
            }
            PoolSlot::Blind => blind += 1,
        }
    }
    let mut out = Vec::new();
    for (shard, n) in have.iter().enumerate() {
        for _ in *n..per_shard {
            out.push(shard as u16);
        }
    }
    out.truncate(out.len().saturating_sub(blind));
    out
}
