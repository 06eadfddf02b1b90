// The CSV row source of `load`: records streamed from a file (or stdin) through csv-parse,
// each with its verbatim text and starting line so a bad one can be reported and copied
// to the .bad file exactly. The loader only sees the RowSource interface, so another
// parser (the WASM core's) can take this one's place.

import { parse } from "csv-parse/stream";

export interface SourceField {
  text: string;
  /** Quoted fields never stand for null, so `""` stays distinct from an empty field. */
  quoted: boolean;
}

export interface SourceRecord {
  source: string;
  /** Line on which the record starts (1-based); a quoted field may span several lines. */
  line: number;
  fields: SourceField[];
  /** The record as it appeared in the input, without its line terminator. */
  raw: string;
  /** Set when the input around this record could not be parsed at all. */
  malformed?: string;
}

export interface RowSource {
  readonly name: string;
  records(): AsyncIterable<SourceRecord>;
}

export interface CsvFormat {
  delimiter: string;
  quote: string;
  /** Defaults to the quote character, i.e. "" inside a quoted field. */
  escape?: string;
  comment?: string;
}

/** Bytes of a record left unterminated at the end of the input that we still copy to the bad file. */
const MAX_TRAILING_RAW_BYTES = 1 << 20;

function stripLineTerminator(raw: string): string {
  if (raw.endsWith("\r\n")) return raw.slice(0, -2);
  if (raw.endsWith("\n") || raw.endsWith("\r")) return raw.slice(0, -1);
  return raw;
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\n") count++;
    else if (char === "\r" && text[i + 1] !== "\n") count++;
  }
  return count;
}

/**
 * csv-parse hands over comment and empty lines that preceded a record as part of its raw
 * text; they are not part of the record.
 */
export function stripSkippedLines(raw: string, comment: string | undefined): string {
  let text = raw;
  for (;;) {
    const match = /^[^\r\n]*(\r\n|\n|\r)/.exec(text);
    if (!match) return text;
    const line = match[0].slice(0, -match[1].length);
    if (line === "" || (comment !== undefined && line.startsWith(comment))) {
      text = text.slice(match[0].length);
      continue;
    }
    return text;
  }
}

interface ParsedChunk {
  record: SourceField[];
  raw: string;
  info: { bytes: number };
}

export class CsvFileSource implements RowSource {
  constructor(readonly name: string, private readonly format: CsvFormat) {}

  private async openStream(): Promise<ReadableStream<Uint8Array>> {
    const input = this.name === "-" ? Deno.stdin.readable : (await Deno.open(this.name)).readable;
    if (!this.name.endsWith(".gz")) return input;
    return input.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  }

  async *records(): AsyncGenerator<SourceRecord> {
    const { delimiter, quote, escape, comment } = this.format;
    let produced = 0;
    let consumed = 0;
    let consumerGone = false;
    let wakeFeeder = null as (() => void) | null;
    const parser = parse({
      delimiter,
      quote,
      escape: escape ?? quote,
      comment,
      raw: true,
      info: true,
      // Column counts and stray quotes are judged per record by the loader instead of
      // aborting the whole file: a wrong count is a bad row, a stray quote is text.
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      record_delimiter: ["\r\n", "\n", "\r"],
      cast: (value: string, context: { quoting: boolean }) => ({ text: value, quoted: context.quoting }),
      on_record: (chunk: string[]) => {
        produced++;
        return chunk;
      },
    }) as unknown as TransformStream<Uint8Array, ParsedChunk>;

    // An unclosed quote is only detected when the input ends, and erroring a stream drops
    // the records still queued in it. So the input is closed only once every record parsed
    // so far was taken: then the error can cost nothing but the broken tail itself.
    const input = await this.openStream();
    const writer = parser.writable.getWriter();
    const feeding = (async () => {
      try {
        for await (const bytes of input) await writer.write(bytes);
        while (consumed < produced && !consumerGone) await new Promise<void>((resolve) => wakeFeeder = resolve);
        await writer.close();
      } catch (error) {
        await writer.abort(error).catch(() => {});
      }
    })();

    // Lines are counted here rather than taken from csv-parse, whose count goes wrong when
    // a quoted field holds a CRLF. Its raw text keeps every line break as at least one of
    // \r or \n, which is what countLineBreaks counts.
    let nextLine = 1;
    let consumedBytes = 0;
    try {
      for await (const chunk of parser.readable) {
        consumed++;
        const withoutSkipped = stripSkippedLines(chunk.raw, comment);
        const line = nextLine + countLineBreaks(chunk.raw.slice(0, chunk.raw.length - withoutSkipped.length));
        nextLine += countLineBreaks(chunk.raw);
        consumedBytes = chunk.info.bytes;
        yield { source: this.name, line, fields: chunk.record, raw: stripLineTerminator(withoutSkipped) };
        wakeFeeder?.();
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "CSV_QUOTE_NOT_CLOSED") throw error;
      // Everything after the last good record is one unterminated quoted field.
      const raw = await this.readTail(consumedBytes);
      const body = stripSkippedLines(raw, comment);
      yield {
        source: this.name,
        line: nextLine + countLineBreaks(raw.slice(0, raw.length - body.length)),
        fields: [],
        raw: stripLineTerminator(body),
        malformed: "a quoted field is never closed (the rest of the input was read as one field)",
      };
    } finally {
      // A consumer leaving early (--max-errors) ends the for-await above, which cancels
      // the parser; the feeder then stops on its failed write.
      consumerGone = true;
      wakeFeeder?.();
      await feeding;
    }
  }

  /** Re-reads the unparseable end of a plain file so it can be copied to the bad file. */
  private async readTail(offset: number): Promise<string> {
    if (this.name === "-" || this.name.endsWith(".gz")) return "";
    using file = await Deno.open(this.name);
    const { size } = await file.stat();
    const length = Math.min(size - offset, MAX_TRAILING_RAW_BYTES);
    if (length <= 0) return "";
    await file.seek(offset, Deno.SeekMode.Start);
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const count = await file.read(buffer.subarray(filled));
      if (count === null) break;
      filled += count;
    }
    return new TextDecoder().decode(buffer.subarray(0, filled));
  }
}
