// cqlwire command line. Exit codes: 0 success, 1 failure, 2 usage error, 3 done with bad rows.

import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CONSISTENCY_NAMES, type JobConfig } from "../schemas/job.ts";
import { CliFailure, describeError, EXIT_BAD_ROWS, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.ts";
import { StreamOutput } from "./output.ts";
import { type GlobalFlags, loadJobConfig, resolveConnection } from "./settings.ts";
import { splitStatements } from "./split.ts";
import type { OutputFormat, QuerySettings } from "./query.ts";

const VERSION = "0.1.0";
const DEFAULT_PAGE_SIZE = 5000;
const DEFAULT_MAX_CONCURRENCY = 64;
const DEFAULT_BAD_DIR = "./cqlwire-logs";
const SHUTDOWN_GRACE_MS = 2000;

function positiveInteger(name: string) {
  return (text: string): number => {
    if (!/^[0-9]+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      throw new InvalidArgumentError(`${name} must be a positive integer.`);
    }
    return Number(text);
  };
}

function protocolVersion(text: string): 4 | 5 {
  if (text !== "4" && text !== "5") throw new InvalidArgumentError("the protocol version must be 4 or 5.");
  return Number(text) as 4 | 5;
}

function booleanWord(text: string): boolean {
  const lowered = text.toLowerCase();
  if (["true", "yes", "1", "on"].includes(lowered)) return true;
  if (["false", "no", "0", "off"].includes(lowered)) return false;
  throw new InvalidArgumentError("expected true or false.");
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

/** local_quorum → the driver's types.consistencies.localQuorum. */
async function consistencyCode(name: string | undefined): Promise<number | undefined> {
  if (name === undefined) return undefined;
  const { types } = await import("../driver/deno.ts");
  const key = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const code = (types.consistencies as Record<string, number>)[key];
  if (code === undefined) throw new UsageError(`unknown consistency level '${name}'`);
  return code;
}

interface Context {
  flags: GlobalFlags;
  config: JobConfig;
}

async function contextOf(command: Command): Promise<Context> {
  const flags = command.optsWithGlobals() as GlobalFlags;
  const config = flags.config !== undefined ? await loadJobConfig(flags.config) : {};
  return { flags, config };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

async function withClient<T>(
  context: Context,
  work: (client: import("../driver/deno.ts").Client, secrets: string[]) => Promise<T>,
): Promise<T> {
  const settings = resolveConnection(context.flags, context.config.connection);
  const { obtainPassword, openClient } = await import("./connect.ts");
  const password = await obtainPassword(settings.username, context.flags.passwordPrompt ?? false);
  const { client, secrets } = await openClient(settings, password);
  try {
    return await work(client, secrets);
  } catch (error) {
    if (error instanceof UsageError || error instanceof CliFailure) throw error;
    throw new CliFailure(describeError(error, secrets));
  } finally {
    await Promise.race([
      client.shutdown().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS)),
    ]);
  }
}

interface QueryFlags {
  file?: string;
  format?: OutputFormat;
  pageSize?: number;
  maxRows?: number;
  consistency?: string;
  trace?: boolean;
}

async function queryCommand(cqlArgument: string | undefined, command: Command): Promise<number> {
  const context = await contextOf(command);
  const flags = command.opts() as QueryFlags;
  const fromConfig = context.config.query ?? {};
  if (cqlArgument !== undefined && flags.file !== undefined) {
    throw new UsageError("give either a CQL argument or -f FILE, not both");
  }
  let script: string;
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
  } else {
    throw new UsageError('no statement given: cqlwire query "<CQL>", -f FILE, or - for stdin');
  }
  const statements = splitStatements(script);
  if (statements.length === 0) throw new UsageError("no CQL statement found in the input");

  const settings: QuerySettings = {
    format: flags.format ?? fromConfig.format ?? "table",
    pageSize: flags.pageSize ?? fromConfig.pageSize ?? DEFAULT_PAGE_SIZE,
    maxRows: flags.maxRows ?? fromConfig.maxRows,
    consistency: await consistencyCode(flags.consistency ?? fromConfig.consistency),
    trace: flags.trace ?? fromConfig.trace ?? false,
  };
  const { runStatement, printTrace } = await import("./query.ts");
  const stdout = new StreamOutput(Deno.stdout);
  const stderr = new StreamOutput(Deno.stderr);
  return await withClient(context, async (client, secrets) => {
    let results = 0;
    for (const statement of statements) {
      let outcome;
      try {
        outcome = await runStatement(client, statement, settings, stdout, results === 0);
      } catch (error) {
        await stdout.flush();
        throw new CliFailure(describeError(error, secrets));
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

interface LoadFlags {
  table?: string;
  header?: boolean;
  delimiter?: string;
  quote?: string;
  escape?: string;
  comment?: string;
  nullValue?: string[];
  map?: string;
  maxConcurrency?: number;
  maxErrors?: number;
  badDir?: string;
  consistency?: string;
  json?: boolean;
}

async function loadCommand(fileArguments: string[], command: Command): Promise<number> {
  const context = await contextOf(command);
  const flags = command.opts() as LoadFlags;
  const fromConfig = context.config.load ?? {};
  const files = fileArguments.length > 0 ? fileArguments : fromConfig.files ?? [];
  if (files.length === 0) throw new UsageError("no input file given: cqlwire load FILE... --table ks.tbl");
  const tableText = flags.table ?? fromConfig.table;
  if (tableText === undefined) throw new UsageError("--table keyspace.table is required");
  if (files.filter((file) => file === "-").length > 1) throw new UsageError("stdin (-) can be read only once");
  for (const file of files) {
    if (file === "-") continue;
    try {
      const info = await Deno.stat(file);
      if (!info.isFile) throw new UsageError(`${file} is not a file`);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }

  const { parseMapSpec, parseTableName, resolveLayout, buildInsert } = await import("./load/table.ts");
  const { CsvFileSource } = await import("./load/csv_source.ts");
  const { CsvRowConverter } = await import("./load/row_converter.ts");
  const { BadRowLog, uniqueStems } = await import("./load/bad_rows.ts");
  const { runLoad } = await import("./load/loader.ts");
  const { readTableSchema } = await import("./load/schema.ts");

  const connection = resolveConnection(context.flags, context.config.connection);
  const { keyspace, table } = parseTableName(tableText, connection.keyspace);
  const mapSetting = flags.map ?? fromConfig.map;
  const map = mapSetting === undefined
    ? null
    : typeof mapSetting === "string"
    ? parseMapSpec(mapSetting)
    : Object.entries(mapSetting);
  const hasHeader = flags.header ?? fromConfig.header ?? true;
  const format = {
    delimiter: flags.delimiter ?? fromConfig.delimiter ?? ",",
    quote: flags.quote ?? fromConfig.quote ?? '"',
    escape: flags.escape ?? fromConfig.escape,
    comment: flags.comment ?? fromConfig.comment,
  };
  const nullValues = flags.nullValue ?? fromConfig.nullValues ?? [""];
  const maxConcurrency = flags.maxConcurrency ?? fromConfig.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const maxErrors = flags.maxErrors ?? fromConfig.maxErrors;
  const badDir = flags.badDir ?? fromConfig.badDir ?? DEFAULT_BAD_DIR;
  const json = flags.json ?? fromConfig.json ?? false;
  const consistency = await consistencyCode(flags.consistency ?? fromConfig.consistency);

  return await withClient(context, async (client, secrets) => {
    const schema = await readTableSchema(client, keyspace, table);
    // Mapping problems show up before any file is touched when there is no header.
    if (!hasHeader) resolveLayout(schema, null, map);
    try {
      await Deno.mkdir(badDir, { recursive: true });
    } catch (error) {
      throw new CliFailure(`cannot create --bad-dir ${badDir}: ${(error as Error).message}`);
    }
    const stems = uniqueStems(files);
    const inputs = files.map((file, i) => ({
      source: new CsvFileSource(file, format),
      badLog: new BadRowLog(badDir, stems[i]),
    }));
    for (const { badLog } of inputs) await badLog.removeStale();

    const executeOptions: { prepare: boolean; idempotent: boolean; consistency?: number } = {
      prepare: true,
      idempotent: true,
    };
    if (consistency !== undefined) executeOptions.consistency = consistency;
    const progress = Deno.stderr.isTerminal() && !json ? new ProgressLine() : null;
    const summary = await runLoad(
      inputs,
      (header) => {
        const layout = resolveLayout(schema, header, map);
        return { statement: buildInsert(schema, layout.bindings), converter: new CsvRowConverter(layout, nullValues) };
      },
      { insert: async (statement, values) => void await client.execute(statement, values, executeOptions) },
      {
        hasHeader,
        maxConcurrency,
        maxErrors,
        secrets,
        onProgress: progress ? (state) => progress.update(state.rowsLoaded, state.badRows) : undefined,
      },
    );
    progress?.clear();

    const seconds = summary.elapsedMs / 1000;
    if (json) {
      console.log(JSON.stringify({
        rowsLoaded: summary.rowsLoaded,
        badRows: summary.badRows,
        elapsedMs: Math.round(summary.elapsedMs),
        rowsPerSecond: Math.round(summary.rowsPerSecond),
        aborted: summary.abortedBecause,
        badFiles: summary.badFiles,
      }));
    } else {
      console.log(
        `${summary.rowsLoaded} rows loaded, ${summary.badRows} bad rows, ${seconds.toFixed(2)} s, ` +
          `${Math.round(summary.rowsPerSecond)} rows/s`,
      );
      for (const entry of summary.badFiles) {
        console.log(`bad rows of ${entry.source}: ${entry.badFile} (reasons in ${entry.errorLog})`);
      }
    }
    if (summary.abortedBecause !== null) throw new CliFailure(`load aborted: ${summary.abortedBecause}`);
    return summary.badRows > 0 ? EXIT_BAD_ROWS : EXIT_OK;
  });
}

/** A single self-overwriting status line on an interactive stderr, redrawn at most 4 times a second. */
class ProgressLine {
  private lastDraw = 0;
  private readonly encoder = new TextEncoder();
  update(loaded: number, bad: number): void {
    const now = performance.now();
    if (now - this.lastDraw < 250) return;
    this.lastDraw = now;
    Deno.stderr.writeSync(this.encoder.encode(`\r${loaded} rows loaded, ${bad} bad`));
  }
  clear(): void {
    if (this.lastDraw > 0) Deno.stderr.writeSync(this.encoder.encode("\r\x1b[K"));
  }
}

export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command("cqlwire")
    .description("CQL client for Apache Cassandra and ScyllaDB")
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
    .option("--tls-insecure", "do not verify the server certificate (implies --tls; unsafe)")
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
    .addOption(new Option("--format <format>", "output format (default: table)").choices(["table", "json", "csv"]))
    .option("--page-size <rows>", `rows per page (default: ${DEFAULT_PAGE_SIZE})`, positiveInteger("--page-size"))
    .option("--max-rows <rows>", "print at most this many rows per statement", positiveInteger("--max-rows"))
    .addOption(consistencyOption())
    .option("--trace", "trace the statements and print the trace events")
    .action(async (cql: string | undefined, _options: unknown, command: Command) => {
      setExitCode(await queryCommand(cql, command));
    });

  program.command("load")
    .description("load CSV files into a table; bad rows go to <bad-dir>/<name>.bad with reasons in <name>.errors.log")
    .argument("[files...]", "CSV files ('-' for stdin, .gz decompressed)")
    .option("--table <keyspace.table>", "target table")
    .option("--header <true|false>", "the first record names the fields (default: true)", booleanWord)
    .option("--delimiter <char>", "field delimiter (default: ,)", singleCharacter)
    .option("--quote <char>", 'quote character (default: ")', singleCharacter)
    .option("--escape <char>", "escape character inside quotes (default: the quote)", singleCharacter)
    .option("--comment <char>", "lines starting with this character are skipped", singleCharacter)
    .option("--null-value <text>", "unquoted field text meaning null; repeatable (default: empty)", collect)
    .option(
      "--map <field=column,...>",
      "map fields to columns (0-based indexes with --header false); others are skipped",
    )
    .option(
      "--max-concurrency <n>",
      `requests in flight (default: ${DEFAULT_MAX_CONCURRENCY})`,
      positiveInteger("--max-concurrency"),
    )
    .option("--max-errors <n>", "stop the load once n bad rows were recorded (exit 1)", positiveInteger("--max-errors"))
    .option("--bad-dir <dir>", `directory for bad rows and their reasons (default: ${DEFAULT_BAD_DIR})`)
    .addOption(consistencyOption())
    .option("--json", "print the summary as one JSON object")
    .action(async (files: string[], _options: unknown, command: Command) => {
      setExitCode(await loadCommand(files, command));
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
