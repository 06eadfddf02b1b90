//! Reconnection delays: exponential backoff with jitter, so that clients that lost a node at
//! the same moment do not all come back at the same moment. Deterministic for a given seed.

use super::rng::SplitMix64;
use super::Decision;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jitter {
    /// Uniform in `[0, min(max, base · 2^n)]` for the n-th delay.
    Full,
    /// Uniform in `[base, min(max, 3 · previous)]`: grows like the exponential on average but
    /// wanders, and never falls back to zero.
    Decorrelated,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    base_us: u64,
    max_us: u64,
    jitter: Jitter,
    rng: SplitMix64,
    attempt: u32,
    previous_us: u64,
}

impl Backoff {
    /// `base_us` is raised to at least 1 µs and `max_us` to at least `base_us`, so the
    /// sequence is always well-defined.
    pub fn new(base_us: u64, max_us: u64, jitter: Jitter, seed: u64) -> Self {
        let base_us = base_us.max(1);
        let max_us = max_us.max(base_us);
        Backoff { base_us, max_us, jitter, rng: SplitMix64::new(seed), attempt: 0, previous_us: base_us }
    }

    /// Delays handed out since the last reset.
    pub fn attempts(&self) -> u32 {
        self.attempt
    }

    /// The delay before the next reconnection attempt.
    pub fn next_delay(&mut self) -> Decision<u64> {
        let decision = match self.jitter {
            Jitter::Full => {
                Decision { value: self.full_jitter(self.attempt), reason: "exponential backoff, full jitter" }
            }
            Jitter::Decorrelated => {
                let ceiling = self.previous_us.saturating_mul(3).min(self.max_us);
                let delay = self.rng.between(self.base_us, ceiling);
                self.previous_us = delay;
                Decision { value: delay, reason: "exponential backoff, decorrelated jitter" }
            }
        };
        self.attempt = self.attempt.saturating_add(1);
        decision
    }

    /// The full-jitter delay of the `attempt`-th try (0 for the first), whatever this
    /// backoff's own count, which it leaves alone: for a caller that counts attempts per
    /// retried thing (a bulk load's groups) and shares one random stream among them.
    pub fn full_jitter(&mut self, attempt: u32) -> u64 {
        let ceiling = self.base_us.checked_shl(attempt).filter(|c| c >> attempt == self.base_us);
        let ceiling = ceiling.map_or(self.max_us, |c| c.min(self.max_us));
        self.rng.between(0, ceiling)
    }

    /// Starts over after a successful connection. The random stream continues, so the next
    /// sequence differs from the first but is still fixed by the seed.
    pub fn reset(&mut self) {
        self.attempt = 0;
        self.previous_us = self.base_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_jitter_ceiling_doubles_then_saturates_without_overflow() {
        let mut backoff = Backoff::new(1_000, 8_000, Jitter::Full, 42);
        for n in 0..200u32 {
            let delay = backoff.next_delay().value;
            let ceiling = if n < 3 { 1_000u64 << n } else { 8_000 };
            assert!(delay <= ceiling, "delay {delay} at attempt {n} over {ceiling}");
        }
    }

    #[test]
    fn degenerate_settings_are_clamped() {
        let mut backoff = Backoff::new(0, 0, Jitter::Decorrelated, 1);
        assert_eq!(backoff.next_delay().value, 1);
        let mut backoff = Backoff::new(u64::MAX, u64::MAX, Jitter::Full, 1);
        for _ in 0..70 {
            backoff.next_delay();
        }
    }
}
