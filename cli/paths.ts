// POSIX path helpers. node:path would need @types/node for type checking, which the
// offline install lacks, and these few operations are all the CLI needs.

export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

export function join(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("/");
  return joined.replace(/\/{2,}/g, "/");
}

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

export function dirname(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : trimmed.slice(0, slash);
}
