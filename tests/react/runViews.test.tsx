// @vitest-environment jsdom
import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import type { RunEventPayload } from "../../convex/lib/runEvents";
import { AgentOverviewView, type AgentOverviewData } from "../../src/runs/AgentOverview";
import { RunTimeline } from "../../src/runs/RunTimeline";
import { RunsTable } from "../../src/runs/RunsList";
import { itemHeading, triggerName, type RunSummary } from "../../src/runs/runViews";

vi.mock("convex/react", () => ({ useQuery: () => undefined, useMutation: () => () => Promise.resolve(null) }));
afterEach(cleanup);

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const events = (...payloads: RunEventPayload[]) => payloads.map((payload, i) => ({ seq: i + 1, timestamp: NOW - 60_000 + i, payload }));

function summary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    _id: "run-1" as Id<"runs">,
    _creationTime: NOW - 120_000,
    taskId: "task-1" as Id<"tasks">,
    title: "Landing page",
    agentId: "agent-1" as Id<"agents">,
    agentName: "Jarvis",
    status: "completed",
    trigger: "mentioned",
    lastActiveAt: NOW - 60_000,
    promptTokens: 900,
    completionTokens: 300,
    costMicros: 1_200,
    ...overrides,
  };
}

describe("RunTimeline", () => {
  it("renders a whole run from its events: the mention, the reply, the tool and its result, the end", () => {
    render(
      <RunTimeline
        events={events(
          { type: "user_message_submitted", author: "Ada", content: "@Jarvis split it" },
          { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
          { type: "message_start", round: 0 },
          { type: "message_update", delta: "Splitting " },
          { type: "message_update", delta: "now." },
          { type: "message_end", model: "demo", promptTokens: 1, completionTokens: 1, interrupted: false },
          { type: "tool_call", index: 0, name: "delegate_task", args: '{"title":"Hero"}' },
          { type: "tool_result", index: 0, name: "delegate_task", outcome: "ok", observation: "created Hero" },
          { type: "agent_end", reason: "complete", detail: "replied" },
        )}
      />,
    );
    const items = within(screen.getByRole("list", { name: "Run timeline" })).getAllByRole("listitem");
    expect(items.map((item) => item.getAttribute("data-kind"))).toEqual(["user_message", "agent_start", "message", "tool", "end"]);
    expect(items[0].textContent).toContain("Ada wrote");
    expect(items[2].textContent).toContain("Splitting now.");
    expect(items[3].textContent).toContain("delegate_task: ok");
    expect(items[3].textContent).toContain("created Hero");
    expect(items[4].textContent).toContain("Completed");
  });

  it("says how a stopped run ended", () => {
    render(
      <RunTimeline
        events={events(
          { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
          { type: "message_start", round: 0 },
          { type: "message_update", delta: "Work" },
          { type: "control_submitted", action: "stop", by: "Ada" },
          { type: "agent_end", reason: "aborted", detail: "stopped by Ada" },
        )}
      />,
    );
    expect(screen.getByText("Reply (cut short)")).toBeTruthy();
    expect(screen.getByText("Ada pressed Stop")).toBeTruthy();
    expect(screen.getByText("Aborted: stopped by Ada")).toBeTruthy();
  });

  it("an empty run says so", () => {
    render(<RunTimeline events={[]} />);
    expect(screen.getByText("Nothing has happened in this run yet.")).toBeTruthy();
  });
});

describe("RunsTable", () => {
  it("lists title, agent, status, trigger, last active and tokens; a title is a link to the run", () => {
    render(
      <MemoryRouter>
        <RunsTable runs={[summary(), summary({ _id: "run-2" as Id<"runs">, status: "aborted", promptTokens: 0, completionTokens: 0 })]} now={NOW} runHref={(id) => `/d/product/runs/${id}`} />
      </MemoryRouter>,
    );
    const rows = screen.getAllByTestId("run-row");
    expect(rows.map((row) => row.getAttribute("data-run-status"))).toEqual(["completed", "aborted"]);
    expect(within(rows[0]).getByText("Jarvis")).toBeTruthy();
    expect(within(rows[0]).getByText("Mention")).toBeTruthy();
    expect(within(rows[0]).getByText("1.2k tokens")).toBeTruthy();
    expect(within(rows[1]).getByText("—")).toBeTruthy();
    expect(within(rows[1]).getByRole("link", { name: "Landing page" }).getAttribute("href")).toBe("/d/product/runs/run-2");
  });

  it("no runs: says so", () => {
    render(<RunsTable runs={[]} now={NOW} />);
    expect(screen.getByText("No runs yet.")).toBeTruthy();
  });
});

describe("AgentOverviewView", () => {
  it("shows role, tools, current task, token totals and run history", () => {
    const data: AgentOverviewData = {
      agentId: "agent-1" as Id<"agents">,
      name: "Jarvis",
      role: "Squad lead",
      status: "active",
      isSquadLead: true,
      allowedTools: ["delegate_task", "post_message"],
      currentTask: { taskId: "task-1" as Id<"tasks">, title: "Landing page", runId: "run-1" as Id<"runs"> },
      runs: [summary({ status: "running" })],
      totals: { runs: 1, promptTokens: 900, completionTokens: 300, costMicros: 1_200 },
    };
    render(<AgentOverviewView data={data} now={NOW} />);
    const region = screen.getByRole("region", { name: "Jarvis's overview" });
    expect(region.textContent).toContain("Squad lead · squad lead");
    expect(region.textContent).toContain("delegate_task, post_message");
    expect(region.textContent).toContain("Working onLanding page");
    expect(region.textContent).toContain("1.2k tokens over 1 run");
    expect(screen.getAllByTestId("run-row")).toHaveLength(1);
  });
});

describe("timeline labels", () => {
  const base = { seq: 1, timestamp: 0 };
  it("a resume says why: an interruption, a person's decision, or Maestro's note; a plain message is no blocking one", () => {
    expect(itemHeading({ ...base, kind: "control", action: "resume", by: "Maestro", note: "the run's action stopped; running it again" })).toBe("Resumed after an interruption");
    expect(itemHeading({ ...base, kind: "control", action: "resume", by: "Grace", note: "approved" })).toBe("Resumed after Grace decided");
    expect(itemHeading({ ...base, kind: "control", action: "resume", by: "Maestro", note: "the approval expired" })).toBe("Resumed: the approval expired");
    expect(triggerName("message")).toBe("Message");
  });
});
