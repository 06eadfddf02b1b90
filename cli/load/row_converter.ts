// Turns a source record into the bound values of the INSERT, or into a described problem.
// Like the row source, it sits behind an interface so the WASM core can replace it.

import { ConversionError, converterFor, type FieldConverter } from "./convert.ts";
import type { SourceRecord } from "./csv_source.ts";
import { type FieldBinding, type FieldLayout, isPrimaryKey } from "./table.ts";

export interface RowProblem {
  /** 1-based position of the offending field in the record, when one field is to blame. */
  field?: number;
  column?: string;
  type?: string;
  /** The offending text, truncated for the log. */
  value?: string;
  reason: string;
}

export type ConvertedRow = { ok: true; values: unknown[] } | { ok: false; problem: RowProblem };

export interface RowConverter {
  convert(record: SourceRecord): ConvertedRow;
}

const MAX_VALUE_IN_LOG = 60;

export function truncateForLog(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_VALUE_IN_LOG ? text : `${chars.slice(0, MAX_VALUE_IN_LOG).join("")}…`;
}

interface PreparedBinding extends FieldBinding {
  convert: FieldConverter;
  required: boolean;
}

/** The driver's `types.unset` (a registered symbol): the bound value that leaves a column alone. */
export const UNSET: unique symbol = Symbol.for("cqlwire.unset") as never;

export interface ConverterOptions {
  /** Unquoted field texts that mean null. */
  nullValues: readonly string[];
  /** Values appended after the fields' values on every row (--set). */
  constants?: readonly unknown[];
}

/**
 * Converts the fields of a record (CSV fields, or JSON members laid out as fields) into the
 * values of the layout's columns, followed by the constants.
 */
export class CsvRowConverter implements RowConverter {
  private readonly bindings: PreparedBinding[];
  private readonly nullValues: ReadonlySet<string>;
  private readonly constants: readonly unknown[];

  constructor(private readonly layout: FieldLayout, options: ConverterOptions | readonly string[]) {
    const settings: ConverterOptions = Array.isArray(options)
      ? { nullValues: options as readonly string[] }
      : options as ConverterOptions;
    this.bindings = layout.bindings.map((binding) => ({
      ...binding,
      convert: converterFor(binding.column.type),
      required: isPrimaryKey(binding.column),
    }));
    this.nullValues = new Set(settings.nullValues);
    this.constants = settings.constants ?? [];
  }

  convert(record: SourceRecord): ConvertedRow {
    if (record.malformed !== undefined) return { ok: false, problem: { reason: record.malformed } };
    const count = record.fields.length;
    const { expectedFieldCount, extraFieldsAllowed } = this.layout;
    if (count < expectedFieldCount || (count > expectedFieldCount && !extraFieldsAllowed)) {
      const expected = extraFieldsAllowed ? `at least ${expectedFieldCount}` : String(expectedFieldCount);
      return { ok: false, problem: { reason: `expected ${expected} fields, found ${count}` } };
    }
    const values = new Array<unknown>(this.bindings.length + this.constants.length);
    for (let i = 0; i < this.bindings.length; i++) {
      const binding = this.bindings[i];
      const field = record.fields[binding.fieldIndex];
      let value: unknown;
      if (field.missing) {
        if (binding.required) {
          return {
            ok: false,
            problem: {
              column: binding.column.name,
              type: binding.column.typeText,
              reason: "the key column has no value",
            },
          };
        }
        values[i] = UNSET;
        continue;
      }
      if (field.isNull || (!field.quoted && this.nullValues.has(field.text))) {
        value = null;
      } else {
        try {
          value = binding.convert(field.text);
        } catch (error) {
          if (error instanceof ConversionError) {
            return { ok: false, problem: { ...this.where(binding, field), reason: error.message } };
          }
          throw error;
        }
      }
      if (value === null && binding.required) {
        return { ok: false, problem: { ...this.where(binding, field), reason: "a primary key column cannot be null" } };
      }
      values[i] = value;
    }
    for (let i = 0; i < this.constants.length; i++) values[this.bindings.length + i] = this.constants[i];
    return { ok: true, values };
  }

  private where(binding: PreparedBinding, field: SourceRecord["fields"][number]): Omit<RowProblem, "reason"> {
    return {
      field: binding.fieldIndex + 1,
      column: binding.column.name,
      type: binding.column.typeText,
      value: truncateForLog(field.text),
    };
  }
}
