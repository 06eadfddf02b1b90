// cqlwire command line. Exit codes: 0 success, 1 failure, 2 usage error, 3 done with bad rows.

import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CONSISTENCY_NAMES } from "../schemas/job.ts";
import { CliFailure, describeError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.ts";
import { StreamOutput } from "./output.ts";
import { type ScriptStatement, splitScript } from "./split.ts";
import { booleanWord } from "./option_values.ts";
import { addConversionOptions } from "./conversion_options.ts";
import type { OutputFormat, QuerySettings } from "./query.ts";
import { consistencyCode, contextOf, withClient } from "./context.ts";
import { COUNT_DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE, LOAD_DEFAULTS, UNLOAD_DEFAULT_CONCURRENCY } from "./defaults.ts";

const VERSION = "0.1.0";

function positiveInteger(name: string) {
  return (text: string): number => {
    if (!/^[0-9]+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      throw new InvalidArgumentError(`${name} must be a positive integer.`);
    }
    return Number(text);
  };
}

/** --max-errors: a count, or a percentage above 0 and below 100 with at most two decimals. */
function errorLimit(text: string): number | string {
  if (!text.endsWith("%")) return positiveInteger("--max-errors")(text);
  if (/^[0-9]{1,2}(\.[0-9]{1,2})?%$/.test(text) && Number(text.slice(0, -1)) > 0) return text;
  throw new InvalidArgumentError(
    "--max-errors N% must be above 0% and below 100%, with at most two decimals (e.g. 2.5%).",
  );
}

function protocolVersion(text: string): 4 | 5 {
  if (text !== "4" && text !== "5") throw new InvalidArgumentError("the protocol version must be 4 or 5.");
  return Number(text) as 4 | 5;
}

/** One character, with \t and "tab" accepted for a tab that is awkward to type. */
function singleCharacter(text: string): string {
  const value = text === "\\t" || text.toLowerCase() === "tab" ? "\t" : text;
  if (Array.from(value).length !== 1) throw new InvalidArgumentError("expected exactly one character.");
  return value;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function consistencyOption(): Option {
  return new Option("--consistency <level>", "consistency level").choices(CONSISTENCY_NAMES);
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

interface QueryFlags {
  file?: string;
  format?: OutputFormat;
  pageSize?: number;
  maxRows?: number;
  consistency?: string;
  trace?: boolean;
  timeZone?: string;
}

async function queryCommand(cqlArgument: string | undefined, command: Command): Promise<number> {
  const context = await contextOf(command);
  const flags = command.opts() as QueryFlags;
  const fromConfig = context.config.query ?? {};
  if (cqlArgument !== undefined && flags.file !== undefined) {
    throw new UsageError("give either a CQL argument or -f FILE, not both");
  }
  let script: string;
  // Where the statements come from, named in an error as cqlsh names it (`FILE:LINE:`).
  let source: string | null = flags.file === undefined || flags.file === "-" ? "<stdin>" : flags.file;
  if (flags.file !== undefined) {
    try {
      script = flags.file === "-" ? await readAll(Deno.stdin.readable) : await Deno.readTextFile(flags.file);
    } catch (error) {
      throw new UsageError(`cannot read ${flags.file}: ${(error as Error).message}`);
    }
  } else if (cqlArgument === "-") {
    script = await readAll(Deno.stdin.readable);
  } else if (cqlArgument !== undefined) {
    script = cqlArgument;
    source = null;
  } else {
    throw new UsageError('no statement given: cqlwire query "<CQL>", -f FILE, or - for stdin');
  }
  const statements = splitScript(script);
  if (statements.length === 0) throw new UsageError("no CQL statement found in the input");

  const settings: QuerySettings = {
    format: flags.format ?? fromConfig.format ?? "table",
    pageSize: flags.pageSize ?? fromConfig.pageSize ?? DEFAULT_PAGE_SIZE,
    maxRows: flags.maxRows ?? fromConfig.maxRows,
    consistency: await consistencyCode(flags.consistency ?? fromConfig.consistency),
    trace: flags.trace ?? fromConfig.trace ?? false,
    timeZone: flags.timeZone ?? fromConfig.timeZone,
  };
  const { runStatement, printTrace } = await import("./query.ts");
  const stdout = new StreamOutput(Deno.stdout);
  const stderr = new StreamOutput(Deno.stderr);
  return await withClient(context, async (client, secrets) => {
    let results = 0;
    for (const [index, statement] of statements.entries()) {
      let outcome;
      try {
        outcome = await runStatement(client, statement.text, settings, stdout, results === 0);
      } catch (error) {
        await stdout.flush();
        // The core checks the output settings (--time-zone) before the statement is sent, with
        // the same rules and messages as unload's: a refusal is a usage error, as there.
        if ((error as { code?: string }).code === "ERR_ARGUMENT") throw new UsageError((error as Error).message);
        const message = describeError(error, secrets);
        // A single statement given as the argument needs no pointing at.
        if (source === null && statements.length === 1) throw new CliFailure(message);
        throw new CliFailure(locatedFailure(source ?? "<command line>", statement, message, statements.length - index - 1));
      }
      if (outcome.hadResult) results++;
      for (const warning of outcome.warnings) await stderr.write(`warning: ${warning}\n`);
      if (settings.trace) {
        // Machine-readable formats keep stdout clean, so the trace goes to stderr there.
        const traceOut = settings.format === "table" ? stdout : stderr;
        if (outcome.traceId === null) await traceOut.write("\n(the server returned no trace id)\n");
        else await printTrace(client, outcome.traceId, traceOut);
      }
      await stdout.flush();
      await stderr.flush();
    }
    return EXIT_OK;
  });
}

const QUOTED_STATEMENT_CHARS = 60;

/**
 * `FILE:LINE: error (in "statement start…")`, and how many statements after it were not run:
 * unlike cqlsh, which goes on and exits 2, the first failure stops the input.
 */
function locatedFailure(source: string, statement: ScriptStatement, message: string, notRun: number): string {
  const chars = Array.from(statement.code);
  const quoted = chars.length > QUOTED_STATEMENT_CHARS ? `${chars.slice(0, QUOTED_STATEMENT_CHARS).join("")}…` : statement.code;
  const rest = notRun === 0 ? "" : `; ${notRun} later statement${notRun === 1 ? "" : "s"} not run`;
  return `${source}:${statement.line}: ${message} (in "${quoted}")${rest}`;
}

function nonNegativeInteger(name: string) {
  return (text: string): number => {
    if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      throw new InvalidArgumentError(`${name} must be a non-negative integer.`);
    }
    return Number(text);
  };
}

function integerList(name: string) {
  return (text: string): number[] => {
    const values = text.split(",").map((part) => part.trim()).filter((part) => part !== "");
    if (values.length === 0 || values.some((value) => !/^[0-9]+$/.test(value) || Number(value) < 1)) {
      throw new InvalidArgumentError(`${name} must be a comma-separated list of positive integers.`);
    }
    return values.map(Number);
  };
}

export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command("cqlwire")
    .description("CQL client for Apache Cassandra and ScyllaDB: queries, bulk load and unload, counts, benchmarks")
    .version(VERSION)
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(run with --help for usage)")
    .option("--hosts <host[:port],...>", "contact points (default: 127.0.0.1:9042)")
    .option("--port <port>", "port for hosts given without one (default: 9042)", positiveInteger("--port"))
    .option("--dc <name>", "local data center")
    .option("-k, --keyspace <name>", "default keyspace")
    .option("--protocol <version>", "native protocol version: 4 or 5 (default: negotiated)", protocolVersion)
    .addOption(new Option("--compression <algorithm>", "frame compression").choices(["none", "lz4", "snappy"]))
    .option("--tls", "connect with TLS, verifying the server against the system's CAs")
    .option("--tls-ca <file>", "PEM file with the CA certificates to trust (implies --tls)")
    .option(
      "--tls-insecure",
      "skip only the check that the certificate names the host (implies --tls); the CLI runs on Deno, which " +
        "still verifies the certificate chain: trust a private CA with --tls-ca",
    )
    .option("--tls-server-name <name>", "name to verify the server certificate against")
    .option("--username <name>", "user name; the password comes from $CQLWIRE_PASSWORD or --password-prompt")
    .option("--password-prompt", "ask for the password on the terminal, without echo")
    .option(
      "--connect-timeout <ms>",
      "give up connecting after this many milliseconds (default: 5000)",
      positiveInteger("--connect-timeout"),
    )
    .option("--request-timeout <ms>", "per-request timeout in milliseconds", positiveInteger("--request-timeout"))
    .option("--config <file>", "job config (JSON, see schemas/job.schema.json); flags override it");

  program.command("query")
    .description("run CQL statements (separated by ';') and print their results")
    .argument("[cql]", "the statements; '-' reads them from stdin")
    .option("-f, --file <file>", "read the statements from a file ('-' for stdin)")
    .addOption(new Option("--format <format>", "output format (default: table)").choices(["table", "json", "jsonl", "csv"]))
    .option("--page-size <rows>", `rows per page (default: ${DEFAULT_PAGE_SIZE})`, positiveInteger("--page-size"))
    .option("--max-rows <rows>", "print at most this many rows per statement", positiveInteger("--max-rows"))
    .addOption(consistencyOption())
    .option("--trace", "trace the statements and print the trace events")
    .option(
      "--time-zone <zone>",
      "zone timestamps are printed in, as local time with its offset: UTC (default), a fixed offset (+02:00) or a name (America/New_York)",
    )
    .action(async (cql: string | undefined, _options: unknown, command: Command) => {
      setExitCode(await queryCommand(cql, command));
    });

  const load = program.command("load")
    .description(
      "load CSV, JSON Lines or Parquet into a table; bad rows go to <bad-dir>/<name>.bad with reasons in <name>.errors.log",
    )
    .argument(
      "[inputs...]",
      "files, directories, globs (quoted: 'data/*.csv'), '-' for stdin, http(s):// URLs (streamed); " +
        ".gz, .zst/.zstd and .bz2 are decompressed, and stdin and URLs also by their first bytes",
    )
    .option("-t, --table <keyspace.table>", "target table (a name without keyspace is in -k/--keyspace)")
    .option("--url <input>", "an input, as DSBulk's -url; repeatable, read after the positional inputs", collect)
    .option("--query <cql>", "custom INSERT or UPDATE with named bind markers (:name), matched to fields by name")
    .addOption(
      new Option(
        "--format <format>",
        "input format (default: by extension; .jsonl/.ndjson are JSON Lines, .json one JSON array of objects (JSON Lines if it starts with an object, as DSBulk writes) " +
          "read as a stream, .parquet Parquet (flat columns and lists, matched to columns by name; " +
          "a bad row goes to the .bad file as a JSON line), else CSV)",
      )
        .choices(["csv", "jsonl", "json", "parquet"]),
    )
    .option("--header <true|false>", "the first CSV record names the fields (default: true)", booleanWord)
    .option("--delimiter <char>", "field delimiter (default: ,; '\\t' or tab for TSV)", singleCharacter)
    .option("--quote <char>", 'quote character (default: ")', singleCharacter)
    .option("--escape <char>", "escape character inside quotes (default: the quote)", singleCharacter)
    .option("--comment <char>", "lines starting with this character are skipped", singleCharacter)
    .option("--null-value <text>", "unquoted field text meaning null; repeatable (default: empty)", collect);
  addConversionOptions(load, "load")
    .option(
      "--map <field=column,...>",
      "map fields to columns (0-based indexes with --header false); others are skipped",
    )
    .option("--skip <field,...>", "input fields not to load (header names; 0-based indexes without a header)")
    .option("--set <column=value>", "give a column the same value on every row; repeatable", collect)
    .option("--ttl <seconds>", "time to live of the written values", nonNegativeInteger("--ttl"))
    .option("--timestamp <time>", "write time: microseconds since the epoch, or ISO-8601 (2024-05-01T00:00:00Z)")
    .addOption(consistencyOption())
    .option(
      "--max-concurrency <n>",
      `upper bound of requests in flight; the load starts at ${LOAD_DEFAULTS.initialConcurrency} and adapts (AIMD) below it (default: ${LOAD_DEFAULTS.maxConcurrency})`,
      positiveInteger("--max-concurrency"),
    )
    .option("--rate <rows/s>", "write at most this many rows per second", positiveInteger("--rate"))
    .option(
      "--batch-size <n>",
      "group rows into unlogged batches of up to n; 1: no batches (default: 32; a row goes alone when no batch forms within the look-ahead window)",
      positiveInteger("--batch-size"),
    )
    .addOption(
      new Option(
        "--batch-by <grouping>",
        "batch rows of the same partition, or of the same replica set (default: replica)",
      )
        .choices(["partition", "replica"]),
    )
    .option(
      "--max-retries <n>",
      `retries of a row after a timeout or overload, with backoff (default: ${LOAD_DEFAULTS.maxRetries})`,
      nonNegativeInteger("--max-retries"),
    )
    .option(
      "--max-errors <n|n%>",
      "stop the load once n bad rows were recorded, or once more than n% of an input's records were bad " +
        "(judged from its 100th record on) (exit 1)",
      errorLimit,
    )
    .option("--skip-records <n>", "skip the first n records (data rows) of each input", nonNegativeInteger("--skip-records"))
    .option(
      "--max-records <n>",
      "load at most n records of each input, after the skipped ones",
      positiveInteger("--max-records"),
    )
    .option("--bad-dir <dir>", `directory for bad rows and their reasons (default: ${LOAD_DEFAULTS.badDir})`)
    .option("--checkpoint-dir <dir>", "directory for the checkpoint of this job (default: the --bad-dir)")
    .option(
      "--checkpoint-interval <seconds>",
      `seconds between checkpoints (default: ${LOAD_DEFAULTS.checkpointSeconds})`,
      positiveInteger("--checkpoint-interval"),
    )
    .option("--resume", "continue this job (same table, query and inputs) from its checkpoint; refused for URL inputs")
    .option(
      "--http-timeout <ms>",
      "deadline of an http(s) input's answer, and then of each piece of its body (default: 30000)",
      positiveInteger("--http-timeout"),
    )
    .option(
      "--split <i/n|auto>",
      "load share i of n: every n-th file, or the i-th byte range of a single file; auto: i and n from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, CQLWIRE_SPLIT_COUNT), Slurm array (SLURM_ARRAY_TASK_*) or AWS Batch array (AWS_BATCH_JOB_ARRAY_INDEX, CQLWIRE_SPLIT_COUNT)",
    )
    .option(
      "--create-table",
      "sniff the first input (types, NA-like null words, timestamp/date formats) and create --table with its fields " +
        "as columns (CREATE TABLE IF NOT EXISTS; an existing table must have the same columns), then load with the " +
        "sniffed settings; needs --key, and a CSV header",
    )
    .option("--key <field,...>", "with --create-table: the partition key columns, in order")
    .option("--clustering <field,...>", "with --create-table: the clustering columns, in order (default: none)")
    .option(
      "--sniff-rows <n>",
      "with --create-table: records sniffed from the start of the first input (at most 16 MiB; default: 1000)",
      positiveInteger("--sniff-rows"),
    )
    .option(
      "--dry-run",
      "parse and validate every row against the table's schema; write nothing (with --create-table: print the " +
        "CREATE TABLE and the sniffed settings, connect to nothing)",
    )
    .option("--json", "print the summary as one JSON object")
    .option("--quiet", "no progress output")
    .option(
      "--progress-interval <seconds>",
      `seconds between progress lines when stderr is not a terminal (default: ${LOAD_DEFAULTS.progressSeconds})`,
      positiveInteger("--progress-interval"),
    )
    .action(async (files: string[], _options: unknown, command: Command) => {
      const { loadCommand } = await import("./load/command.ts");
      setExitCode(await loadCommand(files, command));
    });

  const unload = program.command("unload")
    .description("write a table (parallel token-range scans) or a query's rows as CSV or JSON Lines")
    .option("-t, --table <keyspace.table>", "table to unload (a name without keyspace is in -k/--keyspace)")
    .option("--query <cql>", "a SELECT to unload instead")
    .option("--columns <column,...>", "columns of --table to unload (default: all)")
    .addOption(new Option("--format <format>", "output format (default: jsonl for an --out named .jsonl, .ndjson or .json, else csv)").choices(["csv", "jsonl"]))
    .option(
      "--out <path>",
      "output file (default: stdout), compressed by its ending: .gz (gzip), .zst/.zstd (zstd); a directory " +
        "(existing, or ending in /) gets one file per range group",
    )
    .option("--url <path>", "the same as --out, as DSBulk's -url")
    .option("--overwrite", "replace output files that exist (default: refuse); files appear only when complete")
    .option(
      "--max-rows-per-file <n>",
      "with --out FILE: one file per n rows, FILE-000001.csv, FILE-000002.csv, ... (compression ending kept last), each with the header",
      positiveInteger("--max-rows-per-file"),
    )
    .option("--header <true|false>", "CSV header row (default: true)", booleanWord)
    .option("--delimiter <char>", "CSV field delimiter (default: ,; '\\t' or tab for TSV)", singleCharacter)
    .option("--quote <char>", 'CSV quote character (default: ")', singleCharacter)
    .option("--escape <char>", "written before a quote inside quotes (default: the quote, doubled)", singleCharacter)
    .option("--null-value <text>", "CSV text of a null, unquoted (default: empty); a value with this text is quoted")
    .addOption(
      new Option(
        "--collection-format <format>",
        "CSV spelling of collections, tuples and UDTs: cql literals as cqlsh COPY writes them (default), " +
          "or json as DSBulk writes and reads them",
      ).choices(["cql", "json"]),
    )
    .option("--page-size <rows>", `rows per page (default: ${DEFAULT_PAGE_SIZE})`, positiveInteger("--page-size"))
    .option(
      "--max-concurrency <n>",
      `token ranges scanned at once (default: ${UNLOAD_DEFAULT_CONCURRENCY})`,
      positiveInteger("--max-concurrency"),
    )
    .addOption(consistencyOption())
    .option("--quiet", "no progress output")
    .option("--with-writetime", "also write each regular column's WRITETIME() (µs) as a field writetime(c); load maps it back")
    .option("--with-ttl", "also write each regular column's TTL() (s) as a field ttl(c); load maps it back");
  addConversionOptions(unload, "unload")
    .action(async (_options: unknown, command: Command) => {
      const { unloadCommand } = await import("./unload.ts");
      setExitCode(await unloadCommand(command));
    });

  program.command("count")
    .description("count a table's rows with parallel token-range scans")
    .option("-t, --table <keyspace.table>", "table to count (a name without keyspace is in -k/--keyspace)")
    .option("--query <select>", "count the rows this SELECT returns (over all its pages) instead of a table's")
    .addOption(
      new Option(
        "--by <breakdown>",
        "also count per node (primary replica), per token range, or per partition (reads every row's key; lists the largest)",
      ).choices(["node", "range", "partition"]),
    )
    .option("--partitions <n>", "with --by partition: how many of the largest partitions to list (default: 10)", positiveInteger("--partitions"))
    .option(
      "--max-concurrency <n>",
      `token ranges counted at once (default: ${COUNT_DEFAULT_CONCURRENCY})`,
      positiveInteger("--max-concurrency"),
    )
    .addOption(consistencyOption())
    .option("--json", "print the result as JSON")
    .action(async (_options: unknown, command: Command) => {
      const { countCommand } = await import("./count.ts");
      setExitCode(await countCommand(command));
    });

  program.command("bench")
    .description(
      "insert then select N rows of <keyspace>.kv (k bigint, v blob) at each concurrency; report throughput and " +
        "latency (the global -k/--keyspace names the keyspace, default: bench)",
    )
    .option("-n, --count <n>", "operations per phase and concurrency (default: 100000)", positiveInteger("--count"))
    .option("--concurrency <list>", "concurrency levels (default: 1,64,1024)", integerList("--concurrency"))
    .option("--out <dir>", "write results.json, throughput.svg and latency.svg there")
    .option("--json", "print the results as JSON")
    .action(async (_options: unknown, command: Command) => {
      const { benchCommand } = await import("./bench.ts");
      setExitCode(await benchCommand(command));
    });

  return program;
}

/**
 * `--password secret` would end up in shell history and process listings, and commander
 * would echo an unknown `--password=secret` back in its error, so such arguments are
 * refused up front without repeating them.
 */
function refusesPasswordArgument(args: string[]): boolean {
  const flagEnd = args.indexOf("--");
  return (flagEnd < 0 ? args : args.slice(0, flagEnd)).some((arg) => /^--?(pass(word)?|pw)(=|$)/i.test(arg));
}

export async function main(args: string[]): Promise<number> {
  if (refusesPasswordArgument(args)) {
    console.error(
      "error: a password is not accepted as a command-line argument: set CQLWIRE_PASSWORD or use --password-prompt",
    );
    return EXIT_USAGE;
  }
  let exitCode = EXIT_OK;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(args, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed the message or the help text.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}`);
      return EXIT_USAGE;
    }
    if (error instanceof CliFailure) {
      console.error(`error: ${error.message}`);
      return error.exitCode;
    }
    console.error(`error: ${describeError(error)}`);
    return EXIT_FAILURE;
  }
}

if (import.meta.main) {
  const code = await main(Deno.args);
  // Exit explicitly: a driver timer or socket must not keep a finished command alive.
  Deno.exit(code);
}
