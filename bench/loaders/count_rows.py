#!/usr/bin/env python3
"""Counts a table's rows by token ranges, with the DataStax Python driver that cqlsh bundles
(run it with bench/.cache/venv/bin/python3): a single SELECT count(*) of a million rows times
out on the server (range_request_timeout) on a busy machine, a count per range does not.
Independent of cqlwire, which is what the bench checks.

    count_rows.py HOST KEYSPACE.TABLE PARTITION_KEY_COLUMNS   e.g. bench.flights year,month,day
"""
import sys
import time

from cassandra import OperationTimedOut, ReadTimeout
from cassandra.cluster import Cluster

RANGES = 256
MIN_TOKEN, MAX_TOKEN = -(2**63), 2**63 - 1


def count_range(session, statement, low, high):
    # The busy shared server times out now and then: a range is asked again, a few times.
    for attempt in range(5):
        try:
            return session.execute(statement, (low, high)).one()[0]
        except (ReadTimeout, OperationTimedOut):
            if attempt == 4:
                raise
            time.sleep(1)


def main():
    host, table, key = sys.argv[1:4]
    cluster = Cluster([host], protocol_version=4)
    try:
        session = cluster.connect()
        session.default_timeout = 120
        statement = session.prepare(f"SELECT count(*) FROM {table} WHERE token({key}) > ? AND token({key}) <= ?")
        step = (MAX_TOKEN - MIN_TOKEN) // RANGES
        bounds = [MIN_TOKEN + i * step for i in range(RANGES)] + [MAX_TOKEN]
        # "> MIN" leaves out no row: Murmur3 never gives the minimum token (it maps it to the maximum).
        print(sum(count_range(session, statement, low, high) for low, high in zip(bounds, bounds[1:])))
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
