/** Every hostile case, by stage of the conversation. */
import type { HostileCase } from "../harness.ts";
import { HANDSHAKE_CASES } from "./handshake.ts";
import { CONTROL_CASES } from "./control.ts";
import { RESULT_CASES } from "./results.ts";
import { FRAME_CASES } from "./frames.ts";
import { SCHEMA_CASES } from "./schema.ts";
import { FUZZ_CASES } from "./fuzz_found.ts";

export const CASES: HostileCase[] = [...HANDSHAKE_CASES, ...CONTROL_CASES, ...SCHEMA_CASES, ...RESULT_CASES, ...FRAME_CASES, ...FUZZ_CASES];
