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
 * GETs `url` and returns its body as a stream whose every read has the deadline. The
 * headers' deadline covers connecting, TLS and the server's first answer.
 */
export async function openUrl(url: string, timeoutMs: number): Promise<OpenedUrl> {
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(), timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal: abort.signal, redirect: "follow" });
  } catch (error) {
    clearTimeout(timer);
    if (abort.signal.aborted) throw new CliFailure(`${url}: no response within ${timeoutMs} ms (--http-timeout)`);
    throw new CliFailure(`${url}: request failed: ${(error as Error).message}`);
  }
  clearTimeout(timer);
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    const reason = response.statusText === "" ? "" : ` ${response.statusText}`;
    throw new CliFailure(`${url}: the server answered HTTP ${response.status}${reason}`);
  }
  const lengthText = response.headers.get("content-length");
  const contentEncoding = response.headers.get("content-encoding");
  // A length of an encoded body is not the length of what the reader sees.
  const contentLength = lengthText !== null && /^[0-9]+$/.test(lengthText) && contentEncoding === null
    ? Number(lengthText)
    : null;
  const source = response.body ?? new Blob([]).stream();
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      timer = setTimeout(() => abort.abort(), timeoutMs);
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        if (abort.signal.aborted) {
          throw new CliFailure(`${url}: no data for ${timeoutMs} ms in the middle of the body (--http-timeout)`);
        }
        throw new CliFailure(`${url}: reading the body failed: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(reason) {
      clearTimeout(timer);
      await reader.cancel(reason).catch(() => {});
    },
  });
  return {
    body,
    contentLength,
    declared: compressionOfName(urlPath(url)) ?? compressionOfContentType(response.headers.get("content-type")),
    contentEncoding,
  };
}
