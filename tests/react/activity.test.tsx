// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { ACTIVITY_TYPES } from "../../convex/validators";
import { ACTIVITY_PAGE_SIZE, ActivityFeed } from "../../src/activity/ActivityFeed";
import { ActivityList } from "../../src/activity/ActivityList";
import { describeActivity, listOf } from "../../src/activity/describe";
import type { ActivityEntry, ActivityType } from "../../src/activity/types";
import { formatRelativeTime } from "../../src/lib/relativeTime";

const paginated = vi.hoisted(() => ({
  result: { results: [] as unknown[], status: "LoadingFirstPage", loadMore: (_n: number) => {} },
  calls: [] as Array<{ name: string; args: unknown; options: unknown }>,
}));
vi.mock("convex/react", () => ({
  usePaginatedQuery: (query: never, args: unknown, options: unknown) => {
    paginated.calls.push({ name: getFunctionName(query), args, options });
    return paginated.result;
  },
}));

const ada = { kind: "member", userId: "users|ada" as Id<"users">, name: "Ada" } as const;
const jarvis = { kind: "agent", sessionKey: "agent:jarvis:marketing", name: "Jarvis" } as const;
const system = { kind: "system" } as const;

type Describable = Parameters<typeof describeActivity>[0];

// One case per type at least; a Record so a new type without a case fails to compile.
const CASES: Record<ActivityType, Array<[Describable, string]>> = {
  task_created: [
    [{ type: "task_created", actor: ada, data: { title: "Pricing page copy" } }, "Ada created “Pricing page copy”"],
    [{ type: "task_created", actor: system, data: {} }, "Maestro created a task"],
  ],
  task_updated: [
    [
      { type: "task_updated", actor: ada, data: { title: "Pricing page copy", fields: "title, priority" } },
      "Ada changed the title and the priority of “Pricing page copy”",
    ],
    [{ type: "task_updated", actor: ada, data: { title: "Launch", fields: "tags" } }, "Ada changed the tags of “Launch”"],
    [{ type: "task_updated", actor: ada, data: { title: "Launch" } }, "Ada edited “Launch”"],
  ],
  task_status_changed: [
    [
      { type: "task_status_changed", actor: ada, data: { title: "Pricing page copy", from: "assigned", to: "in_progress" } },
      "Ada moved “Pricing page copy” from Assigned to In progress",
    ],
    [
      { type: "task_status_changed", actor: jarvis, data: { title: "Launch", to: "done" } },
      "Jarvis moved “Launch” to Done",
    ],
    [
      { type: "task_status_changed", actor: jarvis, data: { title: "Launch", from: "review", to: "archived_forever" } },
      "Jarvis moved “Launch” from Review to archived forever",
    ],
  ],
  task_assigned: [
    [
      { type: "task_assigned", actor: ada, data: { title: "Launch", assignees: "Dev Bot, Jarvis, Wordsmith" } },
      "Ada assigned “Launch” to Dev Bot, Jarvis and Wordsmith",
    ],
    [{ type: "task_assigned", actor: ada, data: { title: "Launch", assignees: "Jarvis" } }, "Ada assigned “Launch” to Jarvis"],
    [{ type: "task_assigned", actor: ada, data: { title: "Launch", assignees: "" } }, "Ada unassigned everyone from “Launch”"],
  ],
  message_posted: [
    [
      { type: "message_posted", actor: jarvis, data: { title: "Launch", preview: "On it, @Ada." } },
      "Jarvis commented on “Launch”: “On it, @Ada.”",
    ],
    [{ type: "message_posted", actor: ada, data: { title: "Launch" } }, "Ada commented on “Launch”"],
    [{ type: "message_posted", actor: ada, data: { title: "Launch", preview: "Ship it Friday", edited: true } }, "Ada commented on “Launch”: “Ship it Friday” (edited)"],
    [{ type: "message_posted", actor: ada, data: { title: "Launch", preview: null, deleted: true } }, "Ada commented on “Launch” (message deleted)"],
  ],
  agent_created: [
    [{ type: "agent_created", actor: ada, data: { name: "Dev Bot", role: "Developer" } }, "Dev Bot was created by Ada (Developer)"],
    [{ type: "agent_created", actor: system, data: { name: "Dev Bot" } }, "Dev Bot was created"],
  ],
  agent_updated: [
    [
      { type: "agent_updated", actor: ada, data: { name: "Dev Bot", allowedTools: "post_message, ask_question" } },
      "Ada updated Dev Bot, who can now use post_message and ask_question",
    ],
    [{ type: "agent_updated", actor: ada, data: { name: "Dev Bot", allowedTools: "" } }, "Ada updated Dev Bot, who now has no tools"],
    [{ type: "agent_updated", actor: ada, data: { name: "Dev Bot" } }, "Ada updated Dev Bot"],
  ],
  agent_status_changed: [
    [{ type: "agent_status_changed", actor: jarvis, data: { name: "Jarvis", from: "idle", to: "active" } }, "Jarvis went from Idle to Active"],
    [
      { type: "agent_status_changed", actor: ada, data: { name: "Dev Bot", from: "active", to: "offline" } },
      "Dev Bot went from Active to Offline (set by Ada)",
    ],
    [{ type: "agent_status_changed", actor: system, data: { name: "Dev Bot", to: "blocked" } }, "Dev Bot is now Blocked"],
  ],
  member_joined: [
    [{ type: "member_joined", actor: ada, data: { name: "Ada", role: "admin" } }, "Ada joined the department as an admin"],
    [{ type: "member_joined", actor: ada, data: { name: "Grace", role: "member" } }, "Grace joined the department"],
    [{ type: "member_joined", actor: ada, data: {} }, "Ada joined the department"],
    [{ type: "member_joined", actor: ada, data: { name: "Vera", role: "viewer" } }, "Vera joined the department as a viewer"],
  ],
  member_role_changed: [[{ type: "member_role_changed", actor: ada, data: { name: "Grace", role: "viewer" } }, "Ada made Grace a viewer"]],
  member_removed: [[{ type: "member_removed", actor: ada, data: { name: "Grace" } }, "Ada removed Grace from the department"]],
  delegation_created: [
    [
      { type: "delegation_created", actor: jarvis, data: { title: "Draft the hero copy", assignees: "Wordsmith", parentTitle: "Pricing page" } },
      "Jarvis delegated “Draft the hero copy” to Wordsmith from “Pricing page”",
    ],
    [{ type: "delegation_created", actor: jarvis, data: { title: "Draft the hero copy" } }, "Jarvis delegated “Draft the hero copy”"],
  ],
  task_archived: [
    [{ type: "task_archived", actor: ada, data: { title: "Launch", stoppedRuns: 2 } }, "Ada archived “Launch”, stopping 2 runs"],
    [{ type: "task_archived", actor: ada, data: { title: "Launch" } }, "Ada archived “Launch”"],
  ],
  task_unarchived: [[{ type: "task_unarchived", actor: ada, data: { title: "Launch" } }, "Ada brought “Launch” back from the archive"]],
  task_deleted: [[{ type: "task_deleted", actor: ada, data: { title: "Launch", stoppedRuns: 1 } }, "Ada deleted “Launch”, stopping 1 run"]],
  message_edited: [
    [{ type: "message_edited", actor: ada, data: { title: "Launch", preview: "Ship it Friday" } }, "Ada edited a message in the thread of “Launch”: “Ship it Friday”"],
    [{ type: "message_edited", actor: ada, data: { where: "a DM" } }, "Ada edited a message in a DM"],
  ],
  message_deleted: [
    [{ type: "message_deleted", actor: ada, data: { where: "#launch-room", author: "Grace" } }, "Ada deleted Grace’s message in #launch-room"],
    [{ type: "message_deleted", actor: ada, data: { title: "Launch", author: "Ada" } }, "Ada deleted a message in the thread of “Launch”"],
  ],
  blocking_message_received: [
    [
      { type: "blocking_message_received", actor: ada, data: { title: "Launch", agent: "Jarvis", preview: "stop the newsletter" } },
      "Ada sent Jarvis a blocking message about “Launch”: “stop the newsletter”",
    ],
    [{ type: "blocking_message_received", actor: ada, data: { agent: "Jarvis" } }, "Ada sent Jarvis a blocking message"],
    [{ type: "blocking_message_received", actor: ada, data: { agent: "Writer", preview: "please write the FAQ", blocking: false } }, "Ada sent Writer a message: “please write the FAQ”"],
  ],
};

describe("describeActivity", () => {
  it("has cases for every activity type", () => {
    expect(Object.keys(CASES).sort()).toEqual([...ACTIVITY_TYPES].sort());
  });

  for (const [type, cases] of Object.entries(CASES)) {
    it.each(cases)(`${type}: %#`, (entry, sentence) => {
      expect(describeActivity(entry)).toBe(sentence);
    });
  }

  it("reads a type it does not know yet as something vague, not a crash", () => {
    const entry = { type: "task_teleported", actor: ada, data: {} } as unknown as Describable;
    expect(describeActivity(entry)).toBe("Ada did something (task_teleported)");
  });

  it("joins lists the way a sentence does", () => {
    expect(listOf([])).toBe("");
    expect(listOf(["a"])).toBe("a");
    expect(listOf(["a", "b"])).toBe("a and b");
    expect(listOf(["a", "b", "c"])).toBe("a, b and c");
  });
});

let nextId = 0;
function entry(overrides: Partial<ActivityEntry> & Pick<ActivityEntry, "type" | "data">): ActivityEntry {
  nextId += 1;
  return { _id: `activity-${nextId}` as Id<"activities">, _creationTime: NOW - 5 * 60_000, actor: ada, taskId: undefined, ...overrides };
}
const NOW = Date.UTC(2026, 4, 20, 12, 0, 0);

afterEach(cleanup);

describe("ActivityList", () => {
  const entries = [
    entry({ type: "task_status_changed", data: { title: "Pricing page copy", from: "assigned", to: "in_progress" }, _creationTime: NOW - 10_000 }),
    entry({ type: "agent_created", actor: system, data: { name: "Dev Bot" }, _creationTime: NOW - 3 * 3_600_000 }),
  ];

  it("shows one sentence per entry with its relative time", () => {
    render(<ActivityList entries={entries} status="Exhausted" now={NOW} onLoadMore={() => {}} />);
    const rows = within(screen.getByTestId("activity-feed")).getAllByTestId("activity-entry");
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain("Ada moved “Pricing page copy” from Assigned to In progress");
    expect(within(rows[0]).getByText("just now").getAttribute("datetime")).toBe(new Date(NOW - 10_000).toISOString());
    expect(rows[1].textContent).toContain("Dev Bot was created");
    expect(within(rows[1]).getByText(formatRelativeTime(NOW - 3 * 3_600_000, NOW))).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Show more" })).toBeNull();
  });

  it("offers Show more while older entries remain, and waits while they load", () => {
    const onLoadMore = vi.fn();
    const { rerender } = render(<ActivityList entries={entries} status="CanLoadMore" now={NOW} onLoadMore={onLoadMore} />);
    fireEvent.click(screen.getByRole("button", { name: "Show more" }));
    expect(onLoadMore).toHaveBeenCalledTimes(1);

    rerender(<ActivityList entries={entries} status="LoadingMore" now={NOW} onLoadMore={onLoadMore} />);
    expect(screen.getByRole("button", { name: "Loading…" })).toHaveProperty("disabled", true);
  });

  it("shows a placeholder while the first page loads, then a note if there is nothing", () => {
    const { rerender } = render(<ActivityList entries={[]} status="LoadingFirstPage" now={NOW} onLoadMore={() => {}} />);
    expect(screen.getByRole("status").textContent).toBe("Loading activity…");
    rerender(<ActivityList entries={[]} status="Exhausted" now={NOW} onLoadMore={() => {}} />);
    expect(screen.getByText("Nothing has happened here yet.")).toBeTruthy();
  });
});

describe("ActivityFeed", () => {
  beforeEach(() => {
    paginated.calls.length = 0;
  });

  it("pages activities.list 20 at a time", () => {
    const loadMore = vi.fn();
    paginated.result = { results: [entry({ type: "task_created", data: { title: "Launch" } })], status: "CanLoadMore", loadMore };
    const departmentId = "dept-1" as Id<"departments">;
    render(<ActivityFeed departmentId={departmentId} />);

    expect(ACTIVITY_PAGE_SIZE).toBe(20);
    expect(paginated.calls[0]).toEqual({ name: "activities:list", args: { departmentId }, options: { initialNumItems: 20 } });
    expect(screen.getByTestId("activity-entry").textContent).toContain("Ada created “Launch”");
    fireEvent.click(screen.getByRole("button", { name: "Show more" }));
    expect(loadMore).toHaveBeenCalledWith(20);
  });

  it("shows a failing query's message in the panel", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    paginated.result = {
      get results(): unknown[] {
        throw new Error("boom");
      },
      status: "CanLoadMore",
      loadMore: () => {},
    };
    render(<ActivityFeed departmentId={"dept-1" as Id<"departments">} />);
    expect(within(screen.getByTestId("activity-feed")).getByRole("alert").textContent).toContain("Something went wrong");
    spy.mockRestore();
  });
});
