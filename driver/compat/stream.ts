/** The rows of `stream()`: a Node `Readable` where there is one, else an emitter that reads like one. */
import type { Row } from "./values.ts";

type Listener = (this: unknown, ...args: unknown[]) => void;

/**
 * The rows of `stream()` where there is no Node `Readable` (Workers): async iterable, and the
 * part of a `Readable` DataStax code uses: `data`/`end`/`error` events once a `data` listener is
 * attached (flowing), or `readable` events and `read()` once a `readable` listener is (paused,
 * as the `while ((row = this.read()) !== null)` loop of DataStax's examples reads it).
 */
export function rowEmitter(source: AsyncIterable<Row>) {
  const listeners = new Map<string, Listener[]>();
  const rows = source[Symbol.asyncIterator]();
  const buffered: Row[] = [];
  let mode: "idle" | "flowing" | "paused" = "idle";
  let done = false;
  let ended = false;
  let filling = false;
  // Listeners are called on the stream, as Node's: DataStax examples read with `this.read()`.
  const emit = (event: string, ...args: unknown[]) => {
    for (const fn of listeners.get(event) ?? []) fn.apply(stream, args);
  };
  const end = () => {
    if (ended) return;
    ended = true;
    emit("end");
  };
  // As DataStax's ResultStream: the error, then the end.
  const fail = (e: unknown) => {
    done = true;
    buffered.length = 0;
    emit("error", e);
    end();
  };
  const flow = async () => {
    try {
      for (let r = await rows.next(); !r.done; r = await rows.next()) emit("data", r.value);
      end();
    } catch (e) {
      fail(e);
    }
  };
  // Paused: up to HIGH_WATER rows ahead of read(), as a Readable's buffer, then `readable`.
  const fill = async () => {
    if (filling || done) return;
    filling = true;
    try {
      while (!done && buffered.length < HIGH_WATER) {
        const r = await rows.next();
        if (r.done) done = true;
        else buffered.push(r.value);
      }
    } catch (e) {
      filling = false;
      return fail(e);
    }
    filling = false;
    emit("readable");
  };
  const stream = {
    on(event: string, fn: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
      if (mode === "idle" && (event === "data" || event === "readable")) {
        mode = event === "data" ? "flowing" : "paused";
        queueMicrotask(() => void (mode === "flowing" ? flow() : fill()));
      }
      return this;
    },
    /** The next row, or null when none is buffered (a `readable` event follows) or at the end. */
    read(): Row | null {
      const row = buffered.shift();
      if (row !== undefined) {
        if (buffered.length < HIGH_WATER / 2) void fill();
        return row;
      }
      if (done) queueMicrotask(end);
      else void fill();
      return null;
    },
    [Symbol.asyncIterator]: () => rows,
  };
  return stream;
}

/** Rows a paused `rowEmitter` reads ahead (a Node object-mode Readable's default highWaterMark). */
const HIGH_WATER = 16;

/** The part of Node's `Readable` that `ResultStream` uses (passed in: this file is runtime-neutral). */
interface ReadableLike {
  push(chunk: unknown): boolean;
  read(size?: number): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  _readableState: { reading: boolean };
}
type ReadableClass = new (options?: Record<string, unknown>) => ReadableLike;

/** DataStax's `types.ResultStream`, on a runtime's `Readable`: what `stream()` returns. */
export interface ResultStreamLike extends ReadableLike {
  buffer: unknown[];
  paused: boolean;
  add(chunk: unknown): number;
  _valve(readNext: (() => void) | null): void;
  cancel(callback?: (err: Error) => void): void;
  setHandlers(options: unknown): void;
}

/**
 * DataStax's `types.ResultStream` (lib/types/result-stream.js, without the DSE continuous
 * paging hooks) over the runtime's `Readable`: rows are `add`ed to `buffer`, pushed as the
 * consumer reads, and the next page is fetched (`_valve`) only once the consumer has drained
 * the buffer, so at most a page of rows waits in memory. Users construct it and check
 * `instanceof` it; DataStax's tests read `buffer`.
 */
export function resultStreamClass(Readable: ReadableClass) {
  return class ResultStream extends Readable implements ResultStreamLike {
    buffer: unknown[] = [];
    paused = true;
    _readNext: (() => void) | null = null;

    _read(): void {
      this.paused = false;
      if (this.buffer.length === 0) this._readableState.reading = false;
      while (!this.paused && this.buffer.length > 0) this.paused = !this.push(this.buffer.shift());
      if (!this.paused && !this.buffer.length && this._readNext) {
        const next = this._readNext;
        this._readNext = null;
        next();
      }
    }

    /** Fetches the next page now if the consumer is waiting, else once it has read the buffer. */
    _valve(readNext: (() => void) | null): void {
      this._readNext = null;
      if (!readNext) return;
      if (this.paused || this.buffer.length) this._readNext = readNext;
      else readNext();
    }

    add(chunk: unknown): number {
      const length = this.buffer.push(chunk);
      this.read(0);
      return length;
    }

    /** Continuous paging (DSE only) is not there: `cancel` fails as DataStax's does without it. */
    cancel(callback?: (err: Error) => void): void {
      const err = new Error("You can only cancel streaming executions when continuous paging is enabled");
      if (!callback) throw err;
      callback(err);
    }

    /** DataStax's continuous-paging hook: nothing to set without continuous paging. */
    setHandlers(_options: unknown): void {}
  };
}

/**
 * Feeds pages of rows into a ResultStream as DataStax's `Client#stream` does: each page's rows
 * added, the next page through the valve, and on a failure `error` and then the end (where
 * `Readable.from` would destroy the stream without an `end`, and code waiting for `end` after
 * logging an error would wait forever).
 */
export function feedPages(stream: ResultStreamLike, source: AsyncIterable<Row[]>): void {
  const pages = source[Symbol.asyncIterator]();
  const finish = () => {
    stream._valve(null);
    stream.add(null);
  };
  // The listeners run outside the promise, as DataStax's run from a callback: what they throw
  // is an uncaught exception, not a lost rejection that would leave the stream without its end.
  const pump = () => {
    pages.next().then(
      (r) =>
        queueMicrotask(() => {
          if (r.done) return finish();
          for (const row of r.value) stream.add(row);
          stream._valve(pump);
        }),
      (e) =>
        queueMicrotask(() => {
          stream.emit("error", e);
          finish();
        }),
    );
  };
  pump();
}

/** The rows of the pages, one by one. */
export async function* rowsOf(pages: AsyncIterable<Row[]>): AsyncGenerator<Row> {
  for await (const page of pages) yield* page;
}

/** `stream()` on a runtime with a Node `Readable` (Node, Bun, Deno): a `ResultStream` fed page by page. */
export function nodeStreams(Readable: ReadableClass) {
  const ResultStream = resultStreamClass(Readable);
  const readable = (pages: AsyncIterable<Row[]>) => {
    const s = new ResultStream({ objectMode: true });
    feedPages(s, pages);
    return s;
  };
  return { ResultStream, readable };
}
