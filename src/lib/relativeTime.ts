import { useEffect, useState } from "react";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "short" });
const dateOnly = new Intl.DateTimeFormat("en", { month: "short", day: "numeric" });
const dateWithYear = new Intl.DateTimeFormat("en", { month: "short", day: "numeric", year: "numeric" });
const full = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/** "just now", "5 min. ago", "3 hr. ago", "yesterday", then a date: how long ago `then` was at `now`. */
export function formatRelativeTime(then: number, now: number): string {
  const elapsed = Math.max(0, now - then);
  if (elapsed < MINUTE) return "just now";
  if (elapsed < HOUR) return relative.format(-Math.floor(elapsed / MINUTE), "minute");
  if (elapsed < DAY) return relative.format(-Math.floor(elapsed / HOUR), "hour");
  if (elapsed < 7 * DAY) return relative.format(-Math.floor(elapsed / DAY), "day");
  const sameYear = new Date(then).getFullYear() === new Date(now).getFullYear();
  return (sameYear ? dateOnly : dateWithYear).format(then);
}

/** The full date and time, for a tooltip next to a relative time. */
export function formatFullTime(then: number): string {
  return full.format(then);
}

/** The current time, refreshed every `intervalMs`, so relative times stay true while a page is open. */
export function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
