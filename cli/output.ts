// Buffered text output. A closed pipe (`cqlwire query ... | head`) ends output quietly
// instead of failing the command.

const encoder = new TextEncoder();
const FLUSH_AT = 64 * 1024;

export interface TextSink {
  write(text: string): Promise<void>;
  flush(): Promise<void>;
}

export class StreamOutput implements TextSink {
  private buffer: string[] = [];
  private size = 0;
  closed = false;

  constructor(private readonly target: { write(bytes: Uint8Array): Promise<number> }) {}

  async write(text: string): Promise<void> {
    if (this.closed) return;
    this.buffer.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.closed || this.buffer.length === 0) return;
    const bytes = encoder.encode(this.buffer.join(""));
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

/** Collects output in memory, for tests. */
export class MemoryOutput implements TextSink {
  text = "";
  write(text: string): Promise<void> {
    this.text += text;
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}
