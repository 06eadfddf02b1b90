#!/usr/bin/env python3
"""Writes the loaders' CSV: ROWS rows of (k bigint, n int, d double, s text, v blob), with a
header, deterministic for a given ROWS. Every tenth text is quoted and holds a comma."""
import random
import sys

SCHEMA = "CREATE TABLE IF NOT EXISTS bench.load (k bigint PRIMARY KEY, n int, d double, s text, v blob)"
COLUMNS = "k,n,d,s,v"


def main() -> None:
    rows, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(rows)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    with open(path, "w", newline="") as out:
        out.write(COLUMNS + "\n")
        for i in range(rows):
            k = i * 7919 + 1
            n = rng.randrange(-2**31, 2**31)
            d = round(rng.uniform(-1e6, 1e6), 6)
            text = " ".join(rng.choice(words) for _ in range(3))
            s = f'"{text}, {i}"' if i % 10 == 0 else f"{text} {i}"
            v = rng.getrandbits(128).to_bytes(16, "big").hex()
            out.write(f"{k},{n},{d},{s},0x{v}\n")


if __name__ == "__main__":
    main()
