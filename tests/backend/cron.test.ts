import { expect, test } from "vitest";
import { nextRun, parseCronExpression } from "../../tools/local-backend/cron";

const at = (iso: string) => Date.parse(iso);

test("intervals count from the previous run", () => {
  expect(nextRun({ type: "interval", seconds: 30 }, 1_000)).toBe(31_000);
  expect(nextRun({ type: "interval", minutes: 2 }, 0)).toBe(120_000);
  expect(() => nextRun({ type: "interval", seconds: 0 }, 0)).toThrow("positive");
});

test("hourly, daily, weekly and monthly schedules are in UTC", () => {
  expect(nextRun({ type: "hourly", minuteUTC: 15 }, at("2026-01-01T10:20:00Z"))).toBe(at("2026-01-01T11:15:00Z"));
  expect(nextRun({ type: "daily", hourUTC: 9, minuteUTC: 30 }, at("2026-01-01T09:30:00Z"))).toBe(at("2026-01-02T09:30:00Z"));
  expect(nextRun({ type: "weekly", dayOfWeek: "monday", hourUTC: 8 }, at("2026-01-01T00:00:00Z"))).toBe(at("2026-01-05T08:00:00Z"));
  expect(nextRun({ type: "monthly", day: 31, hourUTC: 0 }, at("2026-02-01T00:00:00Z"))).toBe(at("2026-03-31T00:00:00Z"));
});

test("cron expressions: lists, ranges, steps and the either-day rule", () => {
  expect(nextRun({ type: "cron", cron: "*/15 * * * *" }, at("2026-01-01T10:07:00Z"))).toBe(at("2026-01-01T10:15:00Z"));
  // Hours 9, 13 and 17 on weekdays; 2026-01-02 is a Friday.
  expect(nextRun({ type: "cron", cron: "0 9-17/4 * * 1-5" }, at("2026-01-02T13:00:00Z"))).toBe(at("2026-01-02T17:00:00Z"));
  expect(nextRun({ type: "cron", cron: "0 9-17/4 * * 1-5" }, at("2026-01-02T17:00:00Z"))).toBe(at("2026-01-05T09:00:00Z"));
  // Day of month 13 OR a Friday (standard cron semantics when both are restricted).
  const either = parseCronExpression("0 0 13 * 5");
  expect(either(new Date(at("2026-02-13T00:00:00Z")))).toBe(true);
  expect(either(new Date(at("2026-02-06T00:00:00Z")))).toBe(true);
  expect(either(new Date(at("2026-02-07T00:00:00Z")))).toBe(false);
  expect(parseCronExpression("0 0 * * 7")(new Date(at("2026-01-04T00:00:00Z")))).toBe(true);
  expect(() => parseCronExpression("* * *")).toThrow("5 fields");
  expect(() => parseCronExpression("61 * * * *")).toThrow("out of range");
  expect(() => parseCronExpression("a * * * *")).toThrow("Invalid cron field");
});
