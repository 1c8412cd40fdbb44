/**
 * The messaging page's figures (messaging spec, Observability): messages
 * posted and read per day, unread by recipient, median time-to-read.
 */
export const DAY_MS = 86_400_000;

export interface DayCount {
  /** Start of the UTC day, ms. */
  day: number;
  posted: number;
  read: number;
}

export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Per-day posted and read counts from `sinceDay` through the last day with data, every day present (zeros too). */
export function perDay(sinceDay: number, postedAt: readonly number[], readAt: readonly number[], days: number): DayCount[] {
  const out: DayCount[] = Array.from({ length: days }, (_, i) => ({ day: sinceDay + i * DAY_MS, posted: 0, read: 0 }));
  const slot = (ms: number) => Math.floor((utcDay(ms) - sinceDay) / DAY_MS);
  for (const at of postedAt) {
    const i = slot(at);
    if (i >= 0 && i < days) out[i].posted++;
  }
  for (const at of readAt) {
    const i = slot(at);
    if (i >= 0 && i < days) out[i].read++;
  }
  return out;
}
