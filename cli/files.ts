// Safety of the files the CLI writes. A file the user gave as input is never written,
// truncated or deleted; outputs are written to a temporary file beside their target and
// renamed over it only when complete, so a failure leaves the old file (or nothing).

import { CliFailure, UsageError } from "./errors.ts";
import { basename, dirname, join } from "./paths.ts";

/** Device and inode of an existing file (following symlinks), or null when there is none. */
async function fileKey(path: string): Promise<string | null> {
  try {
    const info = await Deno.stat(path);
    return info.dev !== null && info.ino !== null ? `${info.dev}:${info.ino}` : await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** An output of a command and what it is, for the message when it would hit an input. */
export interface NamedOutput {
  path: string;
  role: string;
}

/**
 * Refuses to run when an output (bad-row file, log, checkpoint, ...) is an input file, by
 * real path or hard link: writing it would destroy the data before it is read.
 */
export async function refuseInputsAsOutputs(inputs: string[], outputs: NamedOutput[]): Promise<void> {
  const inputKeys = new Map<string, string>();
  for (const input of inputs) {
    if (input === "-") continue;
    const key = await fileKey(input);
    if (key !== null) inputKeys.set(key, input);
  }
  for (const output of outputs) {
    const key = await fileKey(output.path);
    const input = key === null ? undefined : inputKeys.get(key);
    if (input !== undefined) {
      throw new UsageError(
        `input ${input} is this load's ${output.role} (${output.path}); ` +
          `copy or rename it first (e.g. to a .csv name), or choose another --bad-dir / --checkpoint-dir`,
      );
    }
  }
}

/** Writes all bytes, whatever the short writes. */
export function writeAllSync(file: Deno.FsFile, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}

/** Makes a rename durable: the directory entry itself is synced (best effort where unsupported). */
function syncDirectorySync(directory: string): void {
  let handle: Deno.FsFile | null = null;
  try {
    handle = Deno.openSync(directory, { read: true });
    handle.syncSync();
  } catch {
    // Some platforms cannot open or sync a directory; the file's own data is synced already.
  } finally {
    handle?.close();
  }
}

/** Writes text to a temporary file beside `path`, syncs it, and renames it over `path`. */
export function writeFileAtomicSync(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.tmp-${Deno.pid}`);
  const file = Deno.openSync(temporary, { write: true, create: true, truncate: true });
  try {
    writeAllSync(file, new TextEncoder().encode(text));
    file.syncSync();
  } finally {
    file.close();
  }
  Deno.renameSync(temporary, path);
  syncDirectorySync(dirname(path));
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * An output file written under a temporary name in the target's directory and put in place
 * by commit(). Without `overwrite` an existing target (a symlink included) is refused, up
 * front and again at the commit, which links rather than renames so it cannot clobber a
 * file created meanwhile. A symlink target is replaced, never followed. abort() removes the
 * temporary file, so a failure leaves nothing behind.
 */
export class AtomicOutput {
  private constructor(
    readonly path: string,
    readonly temporaryPath: string,
    readonly file: Deno.FsFile,
    private readonly overwrite: boolean,
  ) {}

  static async create(path: string, overwrite: boolean): Promise<AtomicOutput> {
    if (!overwrite && await exists(path)) {
      throw new UsageError(`${path} exists; pass --overwrite to replace it`);
    }
    const suffix = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
    const temporaryPath = join(dirname(path), `.${basename(path)}.tmp-${Deno.pid}-${suffix}`);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(temporaryPath, { write: true, createNew: true });
    } catch (error) {
      throw new CliFailure(`cannot write ${path}: ${(error as Error).message}`);
    }
    return new AtomicOutput(path, temporaryPath, file, overwrite);
  }

  async commit(): Promise<void> {
    this.file.syncSync();
    this.file.close();
    try {
      if (this.overwrite) {
        await Deno.rename(this.temporaryPath, this.path);
      } else {
        await Deno.link(this.temporaryPath, this.path);
        await Deno.remove(this.temporaryPath);
      }
    } catch (error) {
      await Deno.remove(this.temporaryPath).catch(() => {});
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new UsageError(`${this.path} appeared while writing; pass --overwrite to replace it`);
      }
      throw new CliFailure(`cannot write ${this.path}: ${(error as Error).message}`);
    }
    syncDirectorySync(dirname(this.path));
  }

  async abort(): Promise<void> {
    try {
      this.file.close();
    } catch {
      // already closed
    }
    await Deno.remove(this.temporaryPath).catch(() => {});
  }
}
