// Readers of flag values shared by several commands.

import { InvalidArgumentError } from "commander";

/** true/yes/1/on or false/no/0/off, any case. */
export function booleanWord(text: string): boolean {
  const lowered = text.toLowerCase();
  if (["true", "yes", "1", "on"].includes(lowered)) return true;
  if (["false", "no", "0", "off"].includes(lowered)) return false;
  throw new InvalidArgumentError("expected true or false.");
}
