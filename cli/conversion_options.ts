// The conversion flags of `load` (and `unload`, where they apply): one definition, named as
// the job config's keys (schemas/job.ts conversionShape) so flags and config merge key by
// key. The core reads and checks the values (core/src/types/conversion.rs).

import { type Command, InvalidArgumentError, Option } from "commander";
import { CONVERSION_KEYS, type ConversionConfig } from "../schemas/job.ts";
import { booleanWord } from "./option_values.ts";

function wordList(text: string): string[] {
  const words = text.split(",").map((word) => word.trim()).filter((word) =>
    word !== ""
  );
  if (words.length === 0) {
    throw new InvalidArgumentError(
      "expected one or more words separated by commas.",
    );
  }
  return words;
}

function oneCharacter(text: string): string {
  if (Array.from(text).length !== 1) {
    throw new InvalidArgumentError("expected exactly one character.");
  }
  return text;
}

/** Adds the conversion flags to `command`. */
export function addConversionOptions(
  command: Command,
  direction: "load" | "unload",
): Command {
  if (direction === "load") {
    command.option(
      "--null-to-unset <true|false>",
      "an empty field or null word leaves its column unset: no tombstone, an existing value stays (default: true); false writes null",
      booleanWord,
    );
  }
  command
    .option(
      "--time-zone <zone>",
      "zone of timestamps written without one: UTC, a fixed offset (+02:00, -0530) or a name (America/New_York); unload writes local times in it (default: UTC)",
    )
    .option(
      "--timestamp-format <format>",
      "iso (default) or a strftime-like pattern, e.g. '%d/%m/%Y %H:%M:%S'",
    )
    .option(
      "--date-format <format>",
      "iso (default) or a strftime-like pattern, e.g. '%d.%m.%Y'",
    )
    .option(
      "--time-format <format>",
      "iso (default) or a strftime-like pattern, e.g. '%I:%M %p'",
    )
    .option(
      "--true-words <words>",
      "spellings of true, comma-separated (default: true,yes,y,1,t,on)",
      wordList,
    )
    .option(
      "--false-words <words>",
      "spellings of false, comma-separated (default: false,no,n,0,f,off)",
      wordList,
    )
    .option(
      "--decimal-separator <char>",
      "decimal separator of numbers (default: .)",
      oneCharacter,
    )
    .option(
      "--grouping-separator <char>",
      "thousands separator of numbers, e.g. , or ' ' (default: none)",
      oneCharacter,
    )
    .addOption(
      new Option(
        "--blob-format <format>",
        "blobs as hex (0x..., default) or base64",
      ).choices(["hex", "base64"]),
    );
  if (direction === "unload") return command;
  // Only reading has epoch numbers, numbers out of range and fractions to round.
  return command
    .addOption(
      new Option(
        "--epoch-unit <unit>",
        "unit of timestamps written as integers (default: ms)",
      ).choices([
        "s",
        "ms",
        "us",
        "ns",
      ]),
    )
    .addOption(
      new Option(
        "--overflow <rule>",
        "a number beyond its column's range: reject (a bad row, default) or saturate (the largest/smallest value)",
      ).choices(["reject", "saturate"]),
    )
    .addOption(
      new Option(
        "--rounding <rule>",
        "a fraction in an integer column: unnecessary (a bad row, default) or rounded by this rule",
      ).choices([
        "unnecessary",
        "half-even",
        "half-up",
        "half-down",
        "down",
        "up",
        "floor",
        "ceiling",
      ]),
    );
}

/** The conversion settings: each flag, else the config's key; unset keys are left out. */
export function conversionSettings(
  flags: Record<string, unknown>,
  config: ConversionConfig | undefined,
): ConversionConfig {
  const settings: Record<string, unknown> = {};
  for (const key of CONVERSION_KEYS) {
    const value = flags[key] ?? config?.[key];
    if (value !== undefined) settings[key] = value;
  }
  return settings as ConversionConfig;
}
