/** The secure suite's settings as Deno reads them (files, environment, TCP reachability). */
import { secureSettings } from "./settings.mjs";

export function denoSecureSettings(startWrongHostProxy?: unknown) {
  return secureSettings({
    runtime: "deno",
    root: new URL("../../", import.meta.url).pathname,
    env: (name: string) => Deno.env.get(name),
    readText: (path: string) => Deno.readTextFileSync(path),
    inspect: (v: unknown) => Deno.inspect(v, { depth: 6 }),
    canConnect: async (hostname: string, port: number) => {
      try {
        (await Deno.connect({ hostname, port })).close();
        return true;
      } catch {
        return false;
      }
    },
    startWrongHostProxy,
  });
}
