/**
 * Convex's limits on the values a deployment stores and hands back
 * (https://docs.convex.dev/production/state/limits, "Documents"), with the
 * messages a deployment gives: a document over 1 MiB or nested more than 16
 * deep, and in any value an array over 8,192 elements, an object over 1,024
 * fields or nesting over 64. convex-test enforces none of them, so a table
 * row or a query result that grew past them worked here and failed in
 * production. Sizes are Convex's own (`getDocumentSize` from convex/values).
 * Also a function's arguments and its return value, 16 MiB each, with the
 * messages of Convex's backend (`validate_udf_args_size`, and the result's
 * check in its isolate): "Arguments for tasks.js:create are too large
 * (actual: 16 MiB, limit: 16 MiB)", "Function tasks.js:list return value is
 * too large (actual: …, limit: 16 MiB)".
 */
import { getDocumentSize, type Value } from "convex/values";

export const MAX_DOCUMENT_BYTES = 1 << 20;
export const MAX_DOCUMENT_NESTING = 16;
export const MAX_VALUE_NESTING = 64;
export const MAX_ARRAY_LENGTH = 8192;
export const MAX_OBJECT_FIELDS = 1024;
/** Convex's FUNCTION_MAX_ARGS_SIZE and FUNCTION_MAX_RESULT_SIZE. */
export const MAX_FUNCTION_ARGS_BYTES = 1 << 24;
export const MAX_FUNCTION_RESULT_BYTES = 1 << 24;
/**
 * A value's Convex size is at most this many times the length of its JSON
 * (a number, 9 bytes, written "0,"; a three-byte UTF-8 character, one JSON
 * character): a result whose JSON is shorter than the limit over this is
 * within it, without walking it.
 */
const SIZE_PER_JSON_CHAR = 5;

/** What counts as an object: convex-test's own test (Convex's), which also takes objects made in another realm (edge-runtime tests). */
export interface ValueHelpers {
  isSimpleObject(value: unknown): boolean;
}

/** The checks, judging objects as convex-test does (`helpers`). */
export function valueLimits({ isSimpleObject }: ValueHelpers) {
  /**
   * How deep `value` nests (a primitive 0, an array or object one more than
   * its deepest member); throws the deployment's error for an array or
   * object over its limit on the way, and for nesting past 64. No
   * `Math.max`: convex-test makes `Math` a global accessor (its per-transaction
   * overrides), a context lookup per use, and this runs per member of every
   * value a function takes, returns or writes.
   */
  function checkValue(value: unknown): number {
    let nesting = 0;
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_LENGTH) throw new Error(`Array length is too long (${value.length} > maximum length ${MAX_ARRAY_LENGTH})`);
      let deepest = 0;
      for (const item of value) {
        const depth = checkValue(item);
        if (depth > deepest) deepest = depth;
      }
      nesting = deepest + 1;
    } else if (value !== null && typeof value === "object" && isSimpleObject(value)) {
      const object = value as Record<string, unknown>;
      let fields = 0;
      let deepest = 0;
      for (const key in object) {
        const field = object[key];
        if (field === undefined) continue;
        fields += 1;
        const depth = checkValue(field);
        if (depth > deepest) deepest = depth;
      }
      if (fields > MAX_OBJECT_FIELDS) throw new Error(`Object has too many fields (${fields} > maximum number ${MAX_OBJECT_FIELDS})`);
      nesting = deepest + 1;
    }
    if (nesting > MAX_VALUE_NESTING) throw new Error(`Value is too nested (nested ${nesting} levels deep > maximum nesting ${MAX_VALUE_NESTING})`);
    return nesting;
  }

  /** Throws the deployment's error for a document it would refuse to store. */
  function checkDocument(document: Record<string, Value>): void {
    const nesting = checkValue(document);
    if (nesting > MAX_DOCUMENT_NESTING) {
      throw new Error(`Document is too nested (nested ${nesting} levels deep > maximum nesting ${MAX_DOCUMENT_NESTING})`);
    }
    const size = getDocumentSize(document);
    if (size > MAX_DOCUMENT_BYTES) throw new Error(`Value is too large (${binarySize(size)} > maximum size ${binarySize(MAX_DOCUMENT_BYTES)})`);
  }

  /** Convex's size of a value (convex/values `getConvexSize`), judging objects as convex-test does. */
  function convexSize(value: unknown): number {
    if (value === undefined) return 0;
    if (value === null || typeof value === "boolean") return 1;
    if (typeof value === "number" || typeof value === "bigint") return 9;
    if (typeof value === "string") return 2 + utf8Length(value);
    if (value instanceof ArrayBuffer) return 2 + value.byteLength;
    if (Array.isArray(value)) {
      let size = 2;
      for (const item of value) size += convexSize(item);
      return size;
    }
    if (typeof value === "object" && isSimpleObject(value)) {
      let size = 2;
      const object = value as Record<string, unknown>;
      for (const key in object) {
        const field = object[key];
        if (field !== undefined) size += utf8Length(key) + 1 + convexSize(field);
      }
      return size;
    }
    // A placeholder for a commit's timestamp, the only other value a function may hand on.
    return 9;
  }

  /** Throws Convex's error for arguments over 16 MiB (measured as Convex does: the one-element array of them). */
  function checkArgsSize(args: unknown, udfPath: string): void {
    const size = convexSize([args]);
    if (size > MAX_FUNCTION_ARGS_BYTES) {
      throw new Error(`Arguments for ${canonicalPath(udfPath)} are too large (actual: ${binarySize(size)}, limit: ${binarySize(MAX_FUNCTION_ARGS_BYTES)})`);
    }
  }

  /** Throws Convex's error for a return value over 16 MiB; `jsonLength` (of the value's JSON) spares the walk for the usual small result. */
  function checkResultSize(result: unknown, jsonLength: number, udfPath: string): void {
    if (jsonLength * SIZE_PER_JSON_CHAR <= MAX_FUNCTION_RESULT_BYTES) return;
    const size = convexSize(result);
    if (size > MAX_FUNCTION_RESULT_BYTES) {
      throw new Error(`Function ${canonicalPath(udfPath)} return value is too large (actual: ${binarySize(size)}, limit: ${binarySize(MAX_FUNCTION_RESULT_BYTES)})`);
    }
  }

  return { checkValue, checkDocument, checkArgsSize, checkResultSize, convexSize };
}

/** "tasks:list" → "tasks.js:list", as Convex's canonical paths read in its messages. */
function canonicalPath(udfPath: string): string {
  const colon = udfPath.lastIndexOf(":");
  const [module, name] = colon === -1 ? [udfPath, "default"] : [udfPath.slice(0, colon), udfPath.slice(colon + 1)];
  return `${module.endsWith(".js") ? module : `${module}.js`}:${name}`;
}

const encoder = new TextEncoder();

/** Bytes of `text` in UTF-8 (no Buffer: the app's unit tests run these checks in the edge runtime). */
function utf8Length(text: string): number {
  if (text.length > 500) return encoder.encode(text).length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** A byte count as the deployment writes it: "1 MiB", "1.05 MiB", "512 B" (at most two decimals, trailing zeros dropped). */
export function binarySize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : Number(value.toFixed(2))} ${units[unit]}`;
}
