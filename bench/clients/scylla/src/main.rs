//! scylla-rust-driver, one connection to the node, protocol v4, no compression, on a
//! current-thread Tokio runtime (the JavaScript clients run one event loop, too).

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::client::PoolSize;
use scylla::statement::prepared::PreparedStatement;

const INSERT_CQL: &str = "INSERT INTO bench.kv (k, v) VALUES (?, ?)";
const SELECT_CQL: &str = "SELECT k, v FROM bench.kv WHERE k = ?";
const VALUE_BYTES: usize = 32;

struct Args {
    host: String,
    port: u16,
    n: usize,
    concurrency: usize,
    insert: bool,
}

fn parse_args() -> Result<Args, String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let [host, port, n, concurrency, mode] = argv.as_slice() else {
        return Err(format!("usage: HOST PORT N CONCURRENCY insert|select (got {argv:?})"));
    };
    let number = |what: &str, s: &str| s.parse::<usize>().map_err(|e| format!("bad {what} {s:?}: {e}"));
    Ok(Args {
        host: host.clone(),
        port: number("port", port)? as u16,
        n: number("N", n)?,
        concurrency: number("concurrency", concurrency)?,
        insert: match mode.as_str() {
            "insert" => true,
            "select" => false,
            other => return Err(format!("mode must be insert or select, not {other}")),
        },
    })
}

/// user + sys CPU time of this process, all threads, in µs (getrusage).
fn process_cpu_micros() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    micros(usage.ru_utime) + micros(usage.ru_stime)
}

struct Bench {
    session: Session,
    statement: PreparedStatement,
    insert: bool,
    value: [u8; VALUE_BYTES],
}

impl Bench {
    async fn op(&self, i: usize) -> Result<(), String> {
        let k = i as i64;
        if self.insert {
            self.session.execute_unpaged(&self.statement, (k, &self.value[..])).await.map_err(|e| e.to_string())?;
            return Ok(());
        }
        let result = self.session.execute_unpaged(&self.statement, (k,)).await.map_err(|e| e.to_string())?;
        let rows = result.into_rows_result().map_err(|e| e.to_string())?;
        let (_, v) = rows.single_row::<(i64, &[u8])>().map_err(|e| e.to_string())?;
        if v.len() != VALUE_BYTES {
            return Err(format!("bad row for k={k}: v has {} bytes", v.len()));
        }
        Ok(())
    }
}

/// Runs ops [offset, offset + n) with `concurrency` in flight; returns (latencies µs, errors).
async fn run_loop(bench: &Arc<Bench>, offset: usize, n: usize, concurrency: usize) -> (Vec<f64>, usize) {
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..concurrency.min(n) {
        let (bench, next) = (bench.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let t0 = Instant::now();
                if let Err(e) = bench.op(offset + i).await {
                    if errors == 0 {
                        eprintln!("bench: error: {e}");
                    }
                    errors += 1;
                }
                latencies.push(t0.elapsed().as_secs_f64() * 1e6);
            }
            (latencies, errors)
        }));
    }
    let mut all = Vec::with_capacity(n);
    let mut errors = 0;
    for worker in workers {
        let (latencies, e) = worker.await.expect("bench worker panicked");
        all.extend(latencies);
        errors += e;
    }
    (all, errors)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let per_shard = std::env::var("BENCH_PER_SHARD").is_ok_and(|v| v == "1");
    let session = SessionBuilder::new()
        .known_node(format!("{}:{}", args.host, args.port))
        // bench/shards/run sets BENCH_PER_SHARD=1: one connection per shard, as the driver's
        // shard awareness wants; every other run keeps one connection, like the other clients.
        // Token-aware routing there needs the keyspaces' replication, so metadata is fetched.
        .pool_size(if per_shard {
            PoolSize::PerShard(NonZeroUsize::new(1).unwrap())
        } else {
            PoolSize::PerHost(NonZeroUsize::new(1).unwrap())
        })
        .compression(None)
        .fetch_schema_metadata(per_shard)
        .build()
        .await
        .unwrap_or_else(|e| panic!("connecting to {}:{}: {e}", args.host, args.port));
    let statement = session
        .prepare(if args.insert { INSERT_CQL } else { SELECT_CQL })
        .await
        .unwrap_or_else(|e| panic!("preparing: {e}"));
    let bench = Arc::new(Bench { session, statement, insert: args.insert, value: [0xab; VALUE_BYTES] });

    let warmup = (args.n / 10).max(1);
    run_loop(&bench, args.n, warmup, args.concurrency).await;
    let cpu_before = process_cpu_micros();
    let started = Instant::now();
    let (mut latencies, errors) = run_loop(&bench, 0, args.n, args.concurrency).await;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = process_cpu_micros() - cpu_before;
    latencies.sort_by(f64::total_cmp);
    let pick = |q: f64| latencies.get(((q * args.n as f64) as usize).min(args.n - 1)).copied().unwrap_or(0.0);
    println!(
        "{{\"driver\":\"scylla-rust\",\"mode\":\"{}\",\"n\":{},\"concurrency\":{},\"elapsed_s\":{},\"ops_per_s\":{},\"p50_us\":{},\"p99_us\":{},\"cpu_us_per_op\":{},\"errors\":{}}}",
        if args.insert { "insert" } else { "select" },
        args.n,
        args.concurrency,
        elapsed,
        args.n as f64 / elapsed,
        pick(0.5),
        pick(0.99),
        cpu as f64 / args.n as f64,
        errors
    );
}
