/**
 * A fault proxy in a child process, driven over its HTTP control API: for measurements
 * (RSS) that the proxy's own memory must not blur, and for clients in other processes.
 * The methods mirror `FaultProxy`'s, as promises.
 */
import type { ConnectionInfo, FaultRules, KeyTap, ProxyStats } from "./proxy.ts";

const DENO = Deno.execPath();

export class RemoteProxy {
  private constructor(
    private child: Deno.ChildProcess,
    private stdin: WritableStreamDefaultWriter<Uint8Array>,
    readonly port: number,
    readonly controlPort: number,
  ) {}

  static async start(target: string): Promise<RemoteProxy> {
    const child = new Deno.Command(DENO, {
      args: ["run", "-A", "--quiet", new URL("./main.ts", import.meta.url).pathname, "--target", target],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the proxy process exited before it listened");
      text += value;
    }
    reader.releaseLock();
    child.stdout.cancel().catch(() => {});
    const { port, controlPort } = JSON.parse(text.split("\n")[0]);
    return new RemoteProxy(child, child.stdin.getWriter(), port, controlPort);
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${this.controlPort}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`proxy control ${method} ${path}: ${json.error}`);
    return json as T;
  }

  stats(): Promise<ProxyStats> {
    return this.call("GET", "/stats");
  }
  connections(): Promise<ConnectionInfo[]> {
    return this.call("GET", "/connections");
  }
  async setRules(rules: FaultRules): Promise<void> {
    await this.call("PUT", "/rules", rules);
  }
  async setConnectionRules(id: number, rules: FaultRules): Promise<void> {
    await this.call("PUT", `/connections/${id}/rules`, rules);
  }
  async clearRules(): Promise<void> {
    await this.call("DELETE", "/rules");
  }
  async closeConnection(id: number, how: "close" | "reset" = "close"): Promise<boolean> {
    return (await this.call<{ ok: boolean }>("POST", `/connections/${id}/close`, { how })).ok;
  }
  async tapKeys(tap: KeyTap): Promise<void> {
    await this.call("POST", "/tap", tap);
  }
  async resetPeakInFlight(): Promise<void> {
    await this.call("POST", "/peak-in-flight/reset");
  }

  async close(): Promise<void> {
    await this.stdin.close().catch(() => {});
    await this.child.status;
  }
}
