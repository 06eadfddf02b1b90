// Buffered text output. A closed pipe (`cqlwire query ... | head`) ends output quietly
// instead of failing the command.

const encoder = new TextEncoder();
const FLUSH_AT = 64 * 1024;

export interface TextSink {
  write(text: string | Uint8Array): Promise<void>;
  flush(): Promise<void>;
}

export class StreamOutput implements TextSink {
  private buffer: Uint8Array[] = [];
  private size = 0;
  closed = false;

  constructor(private readonly target: { write(bytes: Uint8Array): Promise<number> }) {}

  async write(text: string | Uint8Array): Promise<void> {
    if (this.closed) return;
    const bytes = typeof text === "string" ? encoder.encode(text) : text;
    this.buffer.push(bytes);
    this.size += bytes.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.closed || this.buffer.length === 0) return;
    const bytes = joinBytes(this.buffer, this.size);
    this.buffer = [];
    this.size = 0;
    try {
      let offset = 0;
      while (offset < bytes.length) offset += await this.target.write(bytes.subarray(offset));
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe) {
        this.closed = true;
        return;
      }
      throw error;
    }
  }
}

function joinBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Collects output in memory, for tests. */
export class MemoryOutput implements TextSink {
  text = "";
  write(text: string | Uint8Array): Promise<void> {
    this.text += typeof text === "string" ? text : new TextDecoder().decode(text);
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}
