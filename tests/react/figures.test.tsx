// @vitest-environment jsdom
import { cleanup, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { formatDuration, MessagingStats } from "../../src/channels/MessagingStats";

const queries = vi.hoisted(() => new Map<string, unknown>());
vi.mock("convex/react", () => ({ useQuery: (query: never) => queries.get(getFunctionName(query)) }));

const DAY = 86_400_000;
const departmentId = "d1" as Id<"departments">;

beforeEach(() => {
  queries.clear();
});
// jsdom has no ResizeObserver and measures nothing: the charts keep their initial size.
afterEach(cleanup);

describe("messaging figures page", () => {
  it("charts posted/read per day, unread by recipient and injection tokens per run; shows the median time to read", () => {
    const start = Date.UTC(2026, 0, 1);
    queries.set("inbox:stats", {
      perDay: Array.from({ length: 14 }, (_, i) => ({ day: start + i * DAY, posted: i, read: Math.max(0, i - 1) })),
      unreadByRecipient: [
        { key: "member:u1", name: "Grace", unread: 4 },
        { key: "agent:writer:product", name: "Writer", unread: 2 },
      ],
      medianTimeToReadMs: 90_000,
      partial: false,
    });
    queries.set("runs:injectionUsage", [
      { runId: "r2", agentName: "Jarvis", startedAt: start + DAY, status: "completed", injectionTokens: 512 },
      { runId: "r1", agentName: "Writer", startedAt: start, status: "completed", injectionTokens: 0 },
    ]);
    const { container } = render(<MessagingStats departmentId={departmentId} />);
    expect(screen.getByTestId("median-time-to-read").textContent).toContain("2 min");
    expect(screen.getByText("Posted (14 days)").nextElementSibling?.textContent).toBe(String((13 * 14) / 2));
    expect(screen.getByText("Injected tokens (last 2 runs)").nextElementSibling?.textContent).toBe("512");
    // Real charts (recharts' SVG), one bar per value: 14 days × 2 series, 2 recipients, 2 runs.
    const bars = (testId: string) => screen.getByTestId(testId).querySelectorAll(".recharts-bar-rectangle");
    expect(container.querySelectorAll(".recharts-wrapper")).toHaveLength(3);
    // Day 0 has nothing posted and days 0–1 nothing read: zero-height bars are not drawn.
    expect(bars("chart-per-day")).toHaveLength(13 + 12);
    expect(bars("chart-unread")).toHaveLength(2);
    expect(within(screen.getByTestId("chart-unread")).getByText("Grace")).toBeTruthy();
    // A run that recorded no injection counts 0: it has its place on the axis, and no bar.
    expect(within(screen.getByTestId("chart-injection")).getByText("Jarvis #2")).toBeTruthy();
    expect(within(screen.getByTestId("chart-injection")).getByText("Writer #1")).toBeTruthy();
    expect(bars("chart-injection")).toHaveLength(1);
  }, 30_000);

  it("says when there is nothing to chart", () => {
    queries.set("inbox:stats", { perDay: [], unreadByRecipient: [], medianTimeToReadMs: null, partial: false });
    queries.set("runs:injectionUsage", []);
    render(<MessagingStats departmentId={departmentId} />);
    expect(screen.getByText("Everyone is caught up.")).toBeTruthy();
    expect(screen.getByText("No agent runs yet.")).toBeTruthy();
    expect(screen.getByTestId("median-time-to-read").textContent).toContain("—");
  });

  it("formats durations", () => {
    expect(formatDuration(4_000)).toBe("4 s");
    expect(formatDuration(90_000)).toBe("2 min");
    expect(formatDuration(5_400_000)).toBe("1.5 h");
  });
});
