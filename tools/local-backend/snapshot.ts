/**
 * The snapshot file's format: one record per line, so it is written and read
 * a bounded piece at a time and its size is bounded by the disk, not by the
 * longest string V8 makes (about 512 MB: one `JSON.parse` of the whole file,
 * as the first format was read, fails past it, and is slow well before).
 *
 *     {"format":2}
 *     {"doc":<document>}                   one line per document
 *     {"result":["<session>#<id>",<response>]}  one per recorded mutation result
 *     {"end":{"ts":"<ns>","nextDocId":N,"documents":D,"results":R}}
 *
 * The last line counts what came before it: a file without it, or whose
 * counts differ, is refused rather than read as less data than it holds.
 * (The file is written to a temporary name and renamed once synced, so only
 * damage leaves one.)
 *
 * The first format (`snapshot.json`, one JSON object with a `documents`
 * array) is still read, document by document, so an old data folder starts;
 * storage.ts then writes it again in this format.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { JSONValue } from "convex/values";

/** One document as stored: `convexToJson` of the document, with `_id` inside. */
export type StoredDocument = { _id: string } & Record<string, JSONValue>;

export const SNAPSHOT_FILE = "snapshot.jsonl";
/** The first format's file (see the top of this file). */
export const LEGACY_SNAPSHOT_FILE = "snapshot.json";

export const SNAPSHOT_HEADER = '{"format":2}\n';

export function documentLine(doc: StoredDocument): string {
  return `{"doc":${JSON.stringify(doc)}}\n`;
}

export function resultLine(key: string, response: JSONValue): string {
  return `{"result":${JSON.stringify([key, response])}}\n`;
}

export interface SnapshotEnd {
  ts: bigint;
  nextDocId: number;
  documents: number;
  results: number;
}

export function endLine({ ts, nextDocId, documents, results }: SnapshotEnd): string {
  return `{"end":${JSON.stringify({ ts: ts.toString(), nextDocId, documents, results })}}\n`;
}

/** A snapshot that cannot be read as written: storage.ts names the file and refuses to start. */
export class SnapshotFormatError extends Error {}

export interface SnapshotReader {
  document(doc: StoredDocument): void;
  result(key: string, response: JSONValue): void;
}

/** Bytes read from disk at a time. */
const READ_BYTES = 8 * 1024 * 1024;

/**
 * Calls `line` with each line of the file at `filePath` (without its
 * newline), with the byte offsets where it starts and where the next line
 * starts, reading READ_BYTES at a time: only whole lines are decoded, so a
 * character split between two reads is never cut, and the file is never in
 * memory whole.
 */
export function forEachLine(filePath: string, line: (text: string, lineNumber: number, offset: number, end: number) => void): void {
  const fd = openSync(filePath, "r");
  try {
    // One buffer for every read: the part of a line a read cut off is moved to its start and the next read lands after it
    // (a Buffer.concat per read left ~80 MB of freed buffers in the allocator's heap after a 134 MB snapshot).
    let buffer = Buffer.allocUnsafe(READ_BYTES);
    // Bytes of `buffer` holding a line not yet ended, and the file offset of its first byte.
    let carried = 0;
    let bufferOffset = 0;
    let lineNumber = 0;
    for (;;) {
      if (carried === buffer.length) {
        // A line longer than the buffer: a bigger one takes it.
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, carried);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, carried, buffer.length - carried, null);
      if (read === 0) break;
      const bytes = buffer.subarray(0, carried + read);
      let start = 0;
      // The carried bytes hold no newline: the search starts after them.
      for (let newline = bytes.indexOf(0x0a, carried); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
        line(bytes.toString("utf8", start, newline), ++lineNumber, bufferOffset + start, bufferOffset + newline + 1);
        start = newline + 1;
      }
      buffer.copy(buffer, 0, start, bytes.length);
      carried = bytes.length - start;
      bufferOffset += start;
    }
    if (carried > 0) line(buffer.toString("utf8", 0, carried), ++lineNumber, bufferOffset, bufferOffset + carried);
  } finally {
    closeSync(fd);
  }
}

/** Reads a snapshot in this format, handing each document and result to `reader`; returns what its last line says. */
export function readSnapshot(filePath: string, reader: SnapshotReader): SnapshotEnd {
  let end: SnapshotEnd | null = null;
  let documents = 0;
  let results = 0;
  forEachLine(filePath, (text, lineNumber) => {
    const fail = (why: string): never => {
      throw new SnapshotFormatError(`line ${lineNumber}: ${why}`);
    };
    if (end !== null) fail("a line after the end line");
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      return fail(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (lineNumber === 1) {
      if (record?.format !== 2) fail(`not a snapshot of format 2 (${text.slice(0, 40)})`);
    } else if (record?.doc !== undefined) {
      reader.document(record.doc as StoredDocument);
      documents += 1;
    } else if (Array.isArray(record?.result)) {
      const [key, response] = record.result as [string, JSONValue];
      reader.result(key, response);
      results += 1;
    } else if (record?.end !== undefined) {
      const fields = record.end as { ts: string; nextDocId: number; documents: number; results: number };
      end = { ts: BigInt(fields.ts), nextDocId: fields.nextDocId, documents: fields.documents, results: fields.results };
    } else {
      fail("not a snapshot record");
    }
  });
  if (end === null) throw new SnapshotFormatError("no end line: the file is cut short");
  const { documents: expectedDocuments, results: expectedResults } = end as SnapshotEnd;
  if (expectedDocuments !== documents || expectedResults !== results) {
    throw new SnapshotFormatError(`its end line counts ${expectedDocuments} documents and ${expectedResults} results, the file holds ${documents} and ${results}`);
  }
  return end;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Reads a snapshot of the first format (`{"format":1,…,"documents":[…],…}`,
 * fields in any order) without holding it as one string: the bytes of each
 * element of the top-level `documents` array are parsed on their own and
 * handed to `document`; everything else (a few small fields and the
 * mutation results) is gathered and parsed at the end. JSON's structural
 * characters are ASCII and never occur inside a multi-byte UTF-8 character,
 * so the bytes are scanned as they are.
 */
export function readLegacySnapshot(filePath: string, document: (doc: StoredDocument) => void): { ts: bigint; nextDocId: number; mutationResults: Array<[string, JSONValue]> } {
  const rest: Buffer[] = [];
  let element: Buffer[] = [];
  let inDocuments = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  const fd = openSync(filePath, "r");
  try {
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const read = readSync(fd, chunk, 0, READ_BYTES, null);
      if (read === 0) break;
      // Where the bytes not yet given to `rest` or `element` start.
      let from = 0;
      for (let i = 0; i < read; i++) {
        const byte = chunk[i];
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
        } else if (byte === QUOTE) {
          inString = true;
        } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
          depth += 1;
          if (inDocuments && depth === 3) {
            // A document starts: what is between documents (a comma) is dropped.
            from = i;
          } else if (!inDocuments && depth === 2 && byte === OPEN_ARRAY) {
            rest.push(Buffer.from(chunk.subarray(from, i + 1)));
            from = i + 1;
            inDocuments = Buffer.concat(rest).toString("utf8").endsWith('"documents":[');
          }
        } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          depth -= 1;
          if (inDocuments && depth === 2) {
            element.push(chunk.subarray(from, i + 1));
            document(JSON.parse(Buffer.concat(element).toString("utf8")) as StoredDocument);
            element = [];
            from = i + 1;
          } else if (inDocuments && depth === 1) {
            // The end of the documents array: its `]` goes back to the rest, leaving `"documents":[]`.
            inDocuments = false;
            from = i;
          }
        }
      }
      if (!inDocuments) rest.push(Buffer.from(chunk.subarray(from, read)));
      else if (depth >= 3) element.push(Buffer.from(chunk.subarray(from, read)));
    }
  } finally {
    closeSync(fd);
  }
  if (inDocuments || depth !== 0) throw new SnapshotFormatError("the file is cut short");
  let fields: { format?: unknown; ts?: unknown; nextDocId?: unknown; mutationResults?: unknown };
  try {
    fields = JSON.parse(Buffer.concat(rest).toString("utf8")) as typeof fields;
  } catch (error) {
    throw new SnapshotFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (fields.format !== 1 || typeof fields.ts !== "string" || typeof fields.nextDocId !== "number") {
    throw new SnapshotFormatError("not a snapshot of format 1");
  }
  return { ts: BigInt(fields.ts), nextDocId: fields.nextDocId, mutationResults: (fields.mutationResults ?? []) as Array<[string, JSONValue]> };
}
