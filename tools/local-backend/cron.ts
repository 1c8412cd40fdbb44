/**
 * When the jobs of `convex/crons.ts` run next. Schedules are the ones
 * `cronJobs()` records: interval, hourly, daily, weekly, monthly (all UTC)
 * and five-field cron expressions ("*\/5 * * * *").
 */

export type CronSchedule =
  | { type: "interval"; seconds?: number; minutes?: number; hours?: number }
  | { type: "hourly"; minuteUTC?: number }
  | { type: "daily"; hourUTC: number; minuteUTC?: number }
  | { type: "weekly"; dayOfWeek: string; hourUTC: number; minuteUTC?: number }
  | { type: "monthly"; day: number; hourUTC: number; minuteUTC?: number }
  | { type: "cron"; cron: string };

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const MINUTE_MS = 60_000;
/** A cron expression that never matches within this many minutes is an error (covers leap years). */
const MAX_SEARCH_MINUTES = 4 * 366 * 24 * 60;

/** The first time strictly after `afterMs` at which the schedule fires. */
export function nextRun(schedule: CronSchedule, afterMs: number): number {
  switch (schedule.type) {
    case "interval": {
      const seconds = (schedule.seconds ?? 0) + (schedule.minutes ?? 0) * 60 + (schedule.hours ?? 0) * 3600;
      if (!(seconds > 0)) throw new Error("Cron interval must be positive");
      return afterMs + seconds * 1000;
    }
    case "hourly":
      return nextMatching(afterMs, (d) => d.getUTCMinutes() === (schedule.minuteUTC ?? 0));
    case "daily":
      return nextMatching(afterMs, (d) => atTime(d, schedule.hourUTC, schedule.minuteUTC));
    case "weekly": {
      const day = DAYS.indexOf(schedule.dayOfWeek.toLowerCase());
      if (day === -1) throw new Error(`Unknown day of week: ${schedule.dayOfWeek}`);
      return nextMatching(afterMs, (d) => d.getUTCDay() === day && atTime(d, schedule.hourUTC, schedule.minuteUTC));
    }
    case "monthly":
      return nextMatching(afterMs, (d) => d.getUTCDate() === schedule.day && atTime(d, schedule.hourUTC, schedule.minuteUTC));
    case "cron": {
      const matcher = parseCronExpression(schedule.cron);
      return nextMatching(afterMs, matcher);
    }
  }
}

function atTime(d: Date, hour: number, minute = 0): boolean {
  return d.getUTCHours() === hour && d.getUTCMinutes() === minute;
}

function nextMatching(afterMs: number, matches: (d: Date) => boolean): number {
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let i = 0; i < MAX_SEARCH_MINUTES; i++, t += MINUTE_MS) {
    if (matches(new Date(t))) return t;
  }
  throw new Error("Cron schedule never fires");
}

/** Parses "minute hour day-of-month month day-of-week" (UTC) into a matcher. */
export function parseCronExpression(expression: string): (d: Date) => boolean {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`Cron expression needs 5 fields, got ${fields.length}: "${expression}"`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = [
    parseField(fields[0], 0, 59),
    parseField(fields[1], 0, 23),
    parseField(fields[2], 1, 31),
    parseField(fields[3], 1, 12),
    parseField(fields[4], 0, 7),
  ];
  if (dayOfWeek.values.has(7)) dayOfWeek.values.add(0);
  return (d) => {
    if (!minute.values.has(d.getUTCMinutes()) || !hour.values.has(d.getUTCHours())) return false;
    if (!month.values.has(d.getUTCMonth() + 1)) return false;
    const domMatch = dayOfMonth.values.has(d.getUTCDate());
    const dowMatch = dayOfWeek.values.has(d.getUTCDay());
    // Standard cron: when both day fields are restricted, either may match.
    if (!dayOfMonth.any && !dayOfWeek.any) return domMatch || dowMatch;
    return domMatch && dowMatch;
  };
}

function parseField(field: string, min: number, max: number): { values: Set<number>; any: boolean } {
  const values = new Set<number>();
  for (const part of field.split(",")) {
    const match = /^(\*|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part);
    if (match === null) throw new Error(`Invalid cron field "${field}"`);
    const [, start, end, step] = match;
    const from = start === "*" ? min : Number(start);
    const to = end !== undefined ? Number(end) : start === "*" || step !== undefined ? max : from;
    const by = step === undefined ? 1 : Number(step);
    if (from < min || to > max || from > to || by < 1) throw new Error(`Cron field "${field}" is out of range ${min}-${max}`);
    for (let v = from; v <= to; v += by) values.add(v);
  }
  return { values, any: field === "*" };
}
