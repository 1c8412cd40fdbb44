/**
 * How far V8 lets the heap grow past what a full collection kept alive.
 *
 * This backend holds every document in memory, so its live heap is large
 * (≈ 320 MiB at bench:scale's full size) and grows only with the data. Left
 * to itself, V8 picks a growing factor from the collector's speed against
 * the program's, up to 4×: under a steady load bench:soak saw the next
 * collection set for a heap 2–3× the live one, and resident memory swing
 * between 620 MiB and 1.2 GiB with the data grown 13%. A fixed factor keeps
 * resident memory a steady multiple of the data, for more frequent (and,
 * being incremental, short) full collections. MAESTRO_HEAP_GROWING_PERCENT
 * sets another (0: V8's own choice).
 */
import v8 from "node:v8";

/** The heap may grow this much past the live heap before the next full collection. */
export const HEAP_GROWING_PERCENT = 30;

/** Applies the growing factor to this process's V8 (once; later calls change it). Returns the percent applied, 0 for V8's own. */
export function applyHeapSizing(value = process.env.MAESTRO_HEAP_GROWING_PERCENT): number {
  const percent = value === undefined || value === "" ? HEAP_GROWING_PERCENT : Number(value);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1000) {
    throw new Error(`MAESTRO_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000, not ${JSON.stringify(value)}.`);
  }
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
