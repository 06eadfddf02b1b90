#!/usr/bin/env python3
"""Where one request's CPU goes: a V8 CPU profile's self time, sorted into buckets.

    python3 bench/profile/breakdown.py PROFILE_DIR

PROFILE_DIR holds what bench/run's profile part wrote for each cell (RUNTIME-MODE-CONCURRENCY):
NAME.cpuprofile (the measured loop under the runtime's own profiler, main thread only),
NAME.json (the client's result line of that profiled run) and NAME.plain.json (the same cell
without the profiler: its process and main-thread CPU per op, so the profiler's own cost and
its sampling thread stay out of the figures). Writes PROFILE_DIR/breakdown.jsonl, one line per
cell: µs per op of each bucket (the bucket's share of the main thread's busy samples times the
main thread's CPU per op), background threads (process minus main thread) and memory.
"""
import json
import os
import re
import sys
from collections import Counter

# The buckets, in the order the report lists them.
BUCKETS = [
    ("encode", "argument encoding (TS)"),
    ("crossing", "crossing into WASM (glue, copies)"),
    ("core_send", "core: encode, route, hand bytes out"),
    ("socket", "socket write and read (runtime and kernel)"),
    ("core_receive", "core: frame handling, events out"),
    ("decode", "row decode (TS)"),
    ("promise", "promises, microtasks, event dispatch"),
    ("driver", "driver request path (other TS)"),
    ("clock", "clock reads (performance.now)"),
    ("runtime", "runtime native, unattributed"),
    ("harness", "bench loop (same for every JS client)"),
    ("other", "other"),
    ("gc", "garbage collection (main thread)"),
    ("background", "background threads (GC, compiler, runtime)"),
]

CORE_SEND_ENTRIES = {"executeHandle", "executeStaged", "stagingArea", "pendingOutputs", "execute", "query", "prepare", "batch", "pollTransmit", "pollCommands", "pollTimeout"}
CORE_RECEIVE_ENTRIES = {"handleBytes", "handleEof", "handleTimeout", "handleConnected", "pollEvents"}
ENCODE_NAMES = re.compile(r"encode|Encoder|toBigInt|asBytes|writeElement|nativeValue|packOptions|stage", re.I)
DECODE_CLIENT_NAMES = {"decodeExecute", "toResultSet", "decodeRows", "parseRows", "parseResult"}
PROMISE_NAMES = {"runMicrotasks", "processTicksAndRejections", "nextTick", "queueMicrotask", "enqueueMicrotask", "Promise",
                 "resolve", "reject", "then", "drainEvents", "settle", "AsyncFunctionAwaitResolveClosure",
                 "processPromiseRejections", "pushAsyncContext", "popAsyncContext", "emitBeforeScript", "emitAfterScript"}
SOCKET_NAMES = re.compile(r"^(op_net|op_read|op_write|op_tcp|writeBuffer|writev|writeGeneric|writevGeneric|onStreamRead|"
                          r"handleWriteReq|readableAddChunk|Socket\.|write$|_write|onread)")
SOCKET_URLS = ("node:net", "node:internal/net", "node:internal/stream_base_commons", "node:internal/streams",
               "ext:deno_net", "ext:deno_web/06_streams", "ext:deno_node/internal_binding/stream_wrap",
               "ext:deno_node/internal/streams", "ext:deno_node/net", "node:stream")


class ModuleMap:
    """Source module of a (url, line): a bundle (dist/*.js) says it in esbuild's `// path` markers."""

    def __init__(self):
        self.cache = {}

    def module(self, url, line):
        if not url.startswith("file://"):
            return url
        path = url[len("file://"):]
        if "/dist/" not in path:
            return path
        if path not in self.cache:
            markers = []
            try:
                with open(path) as f:
                    for i, text in enumerate(f):
                        m = re.match(r"^// (\S+\.(?:js|ts|mjs))$", text.rstrip("\n"))
                        if m:
                            markers.append((i, m.group(1)))
            except OSError:
                pass
            self.cache[path] = markers
        found = path
        for start, name in self.cache[path]:
            if start > line:
                break
            found = name
        return found


def classify(node, nodes, parent, modules):
    frame = node["callFrame"]
    name, url = frame["functionName"], frame["url"]
    if name == "(garbage collector)":
        return "gc"
    if name == "(idle)":
        return None
    if name in ("(program)", "(root)"):
        return "runtime"
    if name.startswith(("js-to-wasm", "wasm-to-js")):
        return "crossing"
    if url.startswith("wasm://") or name.startswith("wasm-function"):
        # The module has no names: its time belongs to the JS call that entered it.
        up = parent.get(node["id"])
        while up is not None:
            f = nodes[up]["callFrame"]
            if not (f["url"].startswith("wasm://") or f["functionName"].startswith(("wasm-function", "js-to-wasm"))):
                if f["functionName"] in CORE_SEND_ENTRIES:
                    return "core_send"
                if f["functionName"] in CORE_RECEIVE_ENTRIES:
                    return "core_receive"
                return "other"
            up = parent.get(up)
        return "other"
    module = modules.module(url, frame.get("lineNumber", 0))
    if module.endswith("cqlwire_wasm.js"):
        return "crossing"
    if name in ("now", "op_now", "nowMicros"):
        caller = nodes[parent[node["id"]]]["callFrame"]["url"] if node["id"] in parent else ""
        return "harness" if "bench/clients" in caller else "clock"
    if "bench/clients/" in module:
        return "harness"
    if module.endswith("codec/writer.ts") or (module.endswith(("codec/values.ts", "src/client.ts")) and ENCODE_NAMES.search(name)):
        return "encode"
    if name in DECODE_CLIENT_NAMES or module.endswith(("codec/reader.ts", "codec/result.ts", "codec/scalars.ts",
                                                       "codec/values.ts", "src/result.ts", "codec/numeric.ts")):
        return "decode"
    if "driver/transport/" in module or module.startswith(SOCKET_URLS) or SOCKET_NAMES.match(name):
        return "socket"
    if name in PROMISE_NAMES or module.startswith(("ext:core", "node:internal/process/task_queues")):
        return "promise"
    if "driver/src/" in module or "driver/mod.ts" in module or "driver/deno.ts" in module:
        return "driver"
    return "other"


def self_times(profile):
    """node id -> µs of self time (each sample stands for the delta to the next)."""
    samples, deltas = profile["samples"], profile["timeDeltas"]
    out = Counter()
    for i, node_id in enumerate(samples[:-1]):
        out[node_id] += max(0, deltas[i + 1])
    return out


def breakdown(profile):
    """bucket -> share of the main thread's busy (non-idle) time."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    modules = ModuleMap()
    per_bucket = Counter()
    for node_id, micros in self_times(profile).items():
        bucket = classify(nodes[node_id], nodes, parent, modules)
        if bucket:
            per_bucket[bucket] += micros
    busy = sum(per_bucket.values()) or 1
    return {k: v / busy for k, v in per_bucket.items()}


def cell_line(directory, name):
    with open(os.path.join(directory, name + ".cpuprofile")) as f:
        shares = breakdown(json.load(f))
    with open(os.path.join(directory, name + ".json")) as f:
        profiled = json.load(f)
    with open(os.path.join(directory, name + ".plain.json")) as f:
        plain = json.load(f)
    main = plain["main_thread_cpu_us_per_op"]
    us = {bucket: share * main for bucket, share in shares.items()}
    us["background"] = max(0.0, plain["cpu_us_per_op"] - main)
    line = {
        "driver": plain["driver"], "mode": plain["mode"], "concurrency": plain["concurrency"],
        "cpu_us_per_op": plain["cpu_us_per_op"], "main_thread_cpu_us_per_op": main, "ops_per_s": plain["ops_per_s"],
        "buckets_us_per_op": us,
    }
    for key in ("rss_now_mb", "heap_used_mb", "heap_total_mb", "external_mb", "wasm_memory_mb", "core_buffers_mb"):
        if key in profiled:
            line[key] = profiled[key]
    return line


def main():
    directory = sys.argv[1]
    names = sorted(f[: -len(".cpuprofile")] for f in os.listdir(directory) if f.endswith(".cpuprofile"))
    with open(os.path.join(directory, "breakdown.jsonl"), "w") as out:
        for name in names:
            try:
                out.write(json.dumps(cell_line(directory, name)) + "\n")
            except (OSError, ValueError, KeyError) as e:
                print(f"breakdown: {name}: {e}", file=sys.stderr)


if __name__ == "__main__":
    main()
