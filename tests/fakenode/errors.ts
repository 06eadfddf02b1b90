/**
 * ERROR bodies for every code of the v4 and v5 specs (§9), with every field the code
 * defines. Read_failure and Write_failure carry <numfailures> in v4 and a <reasonmap> in
 * v5; Write_timeout carries <contentions> in v5 when the write type is CAS.
 */
import { ByteWriter } from "./bytes.ts";

export type ServerError =
  | { code: 0x0000 | 0x000a | 0x0100 | 0x1001 | 0x1002 | 0x1003 | 0x1600 | 0x2000 | 0x2100 | 0x2200 | 0x2300; message: string }
  | { code: 0x1000; message: string; consistency: number; required: number; alive: number }
  | { code: 0x1100; message: string; consistency: number; received: number; blockFor: number; writeType: string; contentions?: number }
  | { code: 0x1200; message: string; consistency: number; received: number; blockFor: number; dataPresent: boolean }
  | { code: 0x1300; message: string; consistency: number; received: number; blockFor: number; reasons: Array<[string, number]>; dataPresent: boolean }
  | { code: 0x1400; message: string; keyspace: string; function: string; argTypes: string[] }
  | { code: 0x1500; message: string; consistency: number; received: number; blockFor: number; reasons: Array<[string, number]>; writeType: string }
  | { code: 0x1700; message: string; consistency: number; received: number; blockFor: number }
  | { code: 0x2400; message: string; keyspace: string; table: string }
  | { code: 0x2500; message: string; id: Uint8Array };

/** The failure reasons of a v5 <reasonmap>; v4 sends only their count. */
function writeReasons(w: ByteWriter, reasons: Array<[string, number]>, version: number): void {
  w.int(reasons.length);
  if (version < 5) return;
  for (const [ip, code] of reasons) w.inetaddr(ip).short(code);
}

export function errorBody(e: ServerError, version: number): Uint8Array {
  const w = new ByteWriter().int(e.code).string(e.message);
  switch (e.code) {
    case 0x1000:
      w.short(e.consistency).int(e.required).int(e.alive);
      break;
    case 0x1100:
      w.short(e.consistency).int(e.received).int(e.blockFor).string(e.writeType);
      if (version >= 5 && e.writeType === "CAS") w.short(e.contentions ?? 0);
      break;
    case 0x1200:
      w.short(e.consistency).int(e.received).int(e.blockFor).byte(e.dataPresent ? 1 : 0);
      break;
    case 0x1300:
      w.short(e.consistency).int(e.received).int(e.blockFor);
      writeReasons(w, e.reasons, version);
      w.byte(e.dataPresent ? 1 : 0);
      break;
    case 0x1400:
      w.string(e.keyspace).string(e.function).stringList(e.argTypes);
      break;
    case 0x1500:
      w.short(e.consistency).int(e.received).int(e.blockFor);
      writeReasons(w, e.reasons, version);
      w.string(e.writeType);
      break;
    case 0x1700:
      w.short(e.consistency).int(e.received).int(e.blockFor);
      break;
    case 0x2400:
      w.string(e.keyspace).string(e.table);
      break;
    case 0x2500:
      w.shortBytes(e.id);
      break;
  }
  return w.done();
}
