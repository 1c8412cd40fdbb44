/** Small order statistics for the benchmarks (nearest-rank, no interpolation). */

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Numbers in ascending order (a copy; the input is left alone). */
export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at
 * least `p` percent of the samples at or below it. NaN when empty.
 */
export function percentile(ascending: readonly number[], p: number): number {
  if (ascending.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * ascending.length);
  return ascending[Math.min(ascending.length, Math.max(1, rank)) - 1];
}

export function summarize(values: readonly number[]): Summary {
  const ascending = sorted(values);
  const total = ascending.reduce((sum, value) => sum + value, 0);
  return {
    count: ascending.length,
    p50: percentile(ascending, 50),
    p99: percentile(ascending, 99),
    max: ascending.length === 0 ? Number.NaN : ascending[ascending.length - 1],
    mean: ascending.length === 0 ? Number.NaN : total / ascending.length,
  };
}
