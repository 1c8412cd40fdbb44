/**
 * Convex's limits on the values a deployment stores and hands back
 * (https://docs.convex.dev/production/state/limits, "Documents"), with the
 * messages a deployment gives: a document over 1 MiB or nested more than 16
 * deep, and in any value an array over 8,192 elements, an object over 1,024
 * fields or nesting over 64. convex-test enforces none of them, so a table
 * row or a query result that grew past them worked here and failed in
 * production. Sizes are Convex's own (`getDocumentSize` from convex/values).
 */
import { getDocumentSize, type Value } from "convex/values";

export const MAX_DOCUMENT_BYTES = 1 << 20;
export const MAX_DOCUMENT_NESTING = 16;
export const MAX_VALUE_NESTING = 64;
export const MAX_ARRAY_LENGTH = 8192;
export const MAX_OBJECT_FIELDS = 1024;

/** What counts as an object: convex-test's own test (Convex's), which also takes objects made in another realm (edge-runtime tests). */
export interface ValueHelpers {
  isSimpleObject(value: unknown): boolean;
}

/** The checks, judging objects as convex-test does (`helpers`). */
export function valueLimits({ isSimpleObject }: ValueHelpers) {
  /**
   * How deep `value` nests (a primitive 0, an array or object one more than
   * its deepest member); throws the deployment's error for an array or
   * object over its limit on the way, and for nesting past 64.
   */
  function checkValue(value: unknown): number {
    let nesting = 0;
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_LENGTH) throw new Error(`Array length is too long (${value.length} > maximum length ${MAX_ARRAY_LENGTH})`);
      let deepest = 0;
      for (const item of value) deepest = Math.max(deepest, checkValue(item));
      nesting = deepest + 1;
    } else if (value !== null && typeof value === "object" && isSimpleObject(value)) {
      const object = value as Record<string, unknown>;
      let fields = 0;
      let deepest = 0;
      for (const key in object) {
        const field = object[key];
        if (field === undefined) continue;
        fields += 1;
        deepest = Math.max(deepest, checkValue(field));
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

  return { checkValue, checkDocument };
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
