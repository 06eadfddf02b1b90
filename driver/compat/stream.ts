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

/** The part of Node's `Readable` that `ResultStream` and `readableRows` use (passed in: this file is runtime-neutral). */
interface ReadableLike {
  push(chunk: unknown): boolean;
  emit(event: string, ...args: unknown[]): boolean;
  read(size?: number): unknown;
}
// deno-lint-ignore no-explicit-any
type ReadableClass = new (...args: any[]) => ReadableLike;

/** DataStax's `types.ResultStream`: a `Readable` that buffers what `add()` is given until read. */
export interface ResultStream extends ReadableLike {
  buffer: unknown[];
  paused: boolean;
  add(chunk: unknown): number;
  cancel(callback?: (err: Error) => void): void;
  setHandlers(options: unknown): void;
}
export type ResultStreamClass = new (options?: object) => ResultStream;

/**
 * DataStax's ResultStream over the runtime's `Readable` (`add(null)` ends it). Continuous paging
 * (DSE only) is not there: `cancel` fails as DataStax's does without it.
 */
export function resultStreamClass(Readable: ReadableClass): ResultStreamClass {
  return class ResultStream extends Readable {
    buffer: unknown[] = [];
    paused = true;

    _read(): void {
      this.paused = false;
      // As DataStax's: with nothing to push, Node must call _read again on the next add().
      if (this.buffer.length === 0) (this as unknown as { _readableState: { reading: boolean } })._readableState.reading = false;
      while (!this.paused && this.buffer.length > 0) this.paused = !this.push(this.buffer.shift());
    }

    add(chunk: unknown): number {
      const length = this.buffer.push(chunk);
      this.read(0);
      return length;
    }

    cancel(callback?: (err: Error) => void): void {
      const err = new Error("You can only cancel streaming executions when continuous paging is enabled");
      if (!callback) throw err;
      callback(err);
    }

    setHandlers(_options: unknown): void {}
  };
}

/**
 * A ResultStream of the rows that fails as DataStax's does: `error` is emitted and the stream
 * then ends (`end`), where `Readable.from` would destroy it without an `end`, so code that
 * waits for `end` after logging an error would wait forever.
 */
export function readableRows(ResultStream: ResultStreamClass, source: AsyncIterable<Row>): ResultStream {
  const rows = source[Symbol.asyncIterator]();
  let reading = false;
  return new ResultStream({
    objectMode: true,
    read(this: ReadableLike) {
      if (reading) return;
      reading = true;
      rows.next().then(
        (r) => {
          reading = false;
          this.push(r.done ? null : r.value);
        },
        (e) => {
          this.emit("error", e);
          this.push(null);
        },
      );
    },
  });
}
