// An http:// or https:// input of `load`: one GET whose body is read as a stream and handed on
// piece by piece as it arrives (never buffered whole). Every wait on the server has a
// deadline: the response headers, and then each piece of the body, must come within
// `timeoutMs`, else the request is aborted with an error naming the URL. A non-2xx answer
// is an error naming the URL and the status.
//
// --resume is refused for URLs (command.ts): a checkpoint identifies a file by its size,
// modification time and a fingerprint of its ends, and a server need not give stable
// equivalents (ETag and Last-Modified are optional, and a Range request may be ignored), so
// a resumed load could silently continue a different body.

import { CliFailure } from "../errors.ts";
import { type Compression, compressionOfName } from "../compression.ts";

/** Whether an input argument is a URL rather than a path. */
export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** The path part of a URL (what names its format and compression), without query or fragment. */
export function urlPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}

/** The container a response's Content-Type names (a file served as such, not a transfer encoding). */
function compressionOfContentType(contentType: string | null): Compression | null {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/gzip" || type === "application/x-gzip") return "gzip";
  if (type === "application/zstd") return "zstd";
  if (type === "application/x-bzip2" || type === "application/x-bzip") return "bzip2";
  return null;
}

/** An opened URL: its body, its length when the server said it, and the container it declares. */
export interface OpenedUrl {
  body: ReadableStream<Uint8Array>;
  contentLength: number | null;
  /** The compression named by the path's extension or the Content-Type, if any. */
  declared: Compression | null;
  /** A Content-Encoding the runtime's fetch decoded already (the body is the decoded bytes). */
  contentEncoding: string | null;
}

/** Milliseconds the response headers, and then each piece of the body, may take by default. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/**
 * `work`'s outcome, or `expired()` thrown once `timeoutMs` pass first (then `onExpiry()` runs).
 * Each wait has its own timer, cleared when the wait ends either way. The deadline does not
 * depend on `work` ever settling: Deno 2.9's fetch does not always reject a pending body read
 * when its signal is aborted (a `load` of a stalled URL hung about one run in five: the abort
 * fired, the read stayed pending). Once expired the answer is the expiry whatever `work` does
 * next: `onExpiry` may settle it (a cancelled read resolves as the end of the body).
 */
export async function within<T>(
  work: Promise<T>,
  timeoutMs: number,
  expired: () => Error,
  onExpiry: () => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failure: Error | null = null;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      failure = expired();
      reject(failure);
      onExpiry();
    }, timeoutMs);
  });
  try {
    // A `work` that rejects after the deadline won is handled by the race, not left unhandled.
    const result = await Promise.race([work, deadline]);
    if (failure !== null) throw failure;
    return result;
  } catch (error) {
    throw failure ?? error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GETs `url` and returns its body as a stream whose every read has the deadline. The
 * headers' deadline covers connecting, TLS and the server's first answer. The server is read
 * only in the stream's `pull`, one read at a time, each under its own deadline, so no wait
 * on the server is unbounded whatever the consumer does (reads ahead, stops, cancels).
 */
export async function openUrl(url: string, timeoutMs: number): Promise<OpenedUrl> {
  const abort = new AbortController();
  let response: Response;
  try {
    response = await within(
      fetch(url, { signal: abort.signal, redirect: "follow" }),
      timeoutMs,
      () => new CliFailure(`${url}: no response within ${timeoutMs} ms (--http-timeout)`),
      () => abort.abort(),
    );
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    throw new CliFailure(`${url}: request failed: ${(error as Error).message}`);
  }
  if (!response.ok) {
    // Not awaited: the error needs nothing more from the server.
    abort.abort();
    response.body?.cancel().catch(() => {});
    const reason = response.statusText === "" ? "" : ` ${response.statusText}`;
    throw new CliFailure(`${url}: the server answered HTTP ${response.status}${reason}`);
  }
  const lengthText = response.headers.get("content-length");
  const contentEncoding = response.headers.get("content-encoding");
  // A length of an encoded body is not the length of what the reader sees.
  const contentLength = lengthText !== null && /^[0-9]+$/.test(lengthText) && contentEncoding === null
    ? Number(lengthText)
    : null;
  return {
    body: bodyWithDeadlines(url, response.body ?? new Blob([]).stream(), timeoutMs, abort),
    contentLength,
    declared: compressionOfName(urlPath(url)) ?? compressionOfContentType(response.headers.get("content-type")),
    contentEncoding,
  };
}

/** `source` read one piece per `pull`, each within `timeoutMs`; a late piece ends the request. */
function bodyWithDeadlines(
  url: string,
  source: ReadableStream<Uint8Array>,
  timeoutMs: number,
  abort: AbortController,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // Neither is awaited: a read the runtime never settles must not hold up the error or a cancel.
  const release = (reason?: unknown) => {
    abort.abort();
    reader.cancel(reason).catch(() => {});
  };
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const where = received === 0 ? "before the first byte of the body" : "in the middle of the body";
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await within(
          reader.read(),
          timeoutMs,
          () => new CliFailure(`${url}: no data for ${timeoutMs} ms ${where} (--http-timeout)`),
          release,
        );
      } catch (error) {
        if (error instanceof CliFailure) throw error;
        throw new CliFailure(`${url}: reading the body failed: ${(error as Error).message}`);
      }
      if (next.done) return controller.close();
      received += next.value.length;
      controller.enqueue(next.value);
    },
    cancel: (reason) => release(reason),
  });
}
