// Exit codes and the one-line error messages the CLI prints.

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_BAD_ROWS = 3;

/** A wrong command line or config file: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A failure already explained in its message: exit code 1 unless stated. */
export class CliFailure extends Error {
  constructor(message: string, readonly exitCode = EXIT_FAILURE) {
    super(message);
    this.name = "CliFailure";
  }
}

/** Error codes of the native protocol (spec section 9), named as in the spec. */
export const SERVER_ERROR_NAMES: Readonly<Record<number, string>> = {
  0x0000: "Server error",
  0x000A: "Protocol error",
  0x0100: "Bad credentials",
  0x1000: "Unavailable",
  0x1001: "Overloaded",
  0x1002: "Is bootstrapping",
  0x1003: "Truncate error",
  0x1100: "Write timeout",
  0x1200: "Read timeout",
  0x1300: "Read failure",
  0x1400: "Function failure",
  0x1500: "Write failure",
  0x1600: "CDC write failure",
  0x1700: "CAS write unknown",
  0x2000: "Syntax error",
  0x2100: "Unauthorized",
  0x2200: "Invalid",
  0x2300: "Config error",
  0x2400: "Already exists",
  0x2500: "Unprepared",
};

function hasNumericCode(error: Error): error is Error & { code: number } {
  return typeof (error as { code?: unknown }).code === "number";
}

/**
 * One line describing an error. Server errors (anything carrying a numeric protocol code)
 * are shown as `Invalid (0x2200): message`. Secrets are masked wherever they appear.
 */
export function describeError(error: unknown, secrets: readonly string[] = []): string {
  let text: string;
  if (error instanceof Error) {
    if (hasNumericCode(error) && error.code in SERVER_ERROR_NAMES) {
      const hex = error.code.toString(16).padStart(4, "0");
      // The driver may already put the name and code in the message.
      text = error.message.toLowerCase().includes(`(0x${hex})`)
        ? error.message
        : `${SERVER_ERROR_NAMES[error.code]} (0x${hex}): ${error.message}`;
    } else if (error instanceof UsageError || error instanceof CliFailure) {
      text = error.message;
    } else {
      const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
      text = `${name}${error.message}`;
    }
  } else {
    text = String(error);
  }
  for (const secret of secrets) {
    if (secret) text = text.replaceAll(secret, "***");
  }
  return text.replace(/\s*\n\s*/g, " ").trim();
}
