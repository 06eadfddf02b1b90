#!/usr/bin/env python3
"""Writes the loader's memory-test CSV: at least MIB mebibytes of (k bigint, n int, s text)
rows with ~1 KB of text each, with a header; prints the number of rows. Deterministic per MIB.
Wide rows keep the row count (and so the load's length) down while the file is large: what
is measured is the loader's memory on a file far larger than it may hold."""
import sys

SCHEMA = "CREATE TABLE IF NOT EXISTS bench.wide (k bigint PRIMARY KEY, n int, s text)"
COLUMNS = "k,n,s"
TEXT_BYTES = 1000


def main() -> None:
    mib, path = int(sys.argv[1]), sys.argv[2]
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 "
    # One long pattern to slice from: each row's text starts elsewhere, so rows differ.
    pattern = (alphabet * (2 * TEXT_BYTES // len(alphabet) + 2))
    target = mib * 2**20
    rows = written = 0
    with open(path, "w", newline="") as out:
        out.write(COLUMNS + "\n")
        lines = []
        while written < target:
            start = (rows * 7) % len(alphabet)
            line = f"{rows * 2654435761 % 2**62},{rows % 2**31},{pattern[start:start + TEXT_BYTES]}\n"
            lines.append(line)
            written += len(line)
            rows += 1
            if len(lines) == 10000:
                out.write("".join(lines))
                lines.clear()
        out.write("".join(lines))
    print(rows)


if __name__ == "__main__":
    main()
