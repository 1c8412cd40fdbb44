// @vitest-environment jsdom
/**
 * A delegation's trace (events.trace) as a page, its links from a delegated
 * card and from the event log, and the event log's correlation id filter.
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { EventLog } from "../../src/audit/EventLog";
import { cardCorrelationId, traceSteps, type Trace } from "../../src/audit/trace";
import { TraceView } from "../../src/audit/TraceView";
import { eventsPath, tracePath } from "../../src/shell/addresses";
import { RoleContext } from "../../src/shell/role";
import { TaskDetails, type TaskDetail } from "../../src/task/TaskDetails";
import type { MemberRole } from "../../convex/validators";
import { agentFixture } from "./fixtures";

const live = vi.hoisted(() => ({
  queries: new Map<string, unknown>(),
  calls: [] as Array<{ name: string; args: unknown }>,
}));
vi.mock("convex/react", () => ({
  useQuery: (query: never, args: unknown) => {
    const name = getFunctionName(query);
    live.calls.push({ name, args });
    return args === "skip" ? undefined : live.queries.get(name);
  },
  usePaginatedQuery: (query: never, args: unknown) => {
    const name = getFunctionName(query);
    live.calls.push({ name, args });
    return live.queries.get(name);
  },
  useMutation: () => () => Promise.resolve(null),
}));

afterEach(() => {
  cleanup();
  live.queries.clear();
  live.calls = [];
});

const T0 = Date.UTC(2026, 10, 29, 1, 0, 0);
const departmentId = "dept-1" as Id<"departments">;
const parentId = "task-0" as Id<"tasks">;
const childId = "task-1" as Id<"tasks">;
const correlationId = `a2a:${childId}`;
const jarvis = { kind: "agent" as const, sessionKey: "agent:jarvis:product", name: "Jarvis" };
const writer = { kind: "agent" as const, sessionKey: "agent:writer:product", name: "Writer" };
const agents = [agentFixture({ name: "Jarvis", sessionKey: jarvis.sessionKey, isSquadLead: true }), agentFixture({ name: "Writer", sessionKey: writer.sessionKey })];

/** Jarvis delegates "Draft the tagline" to Writer, Writer's run works on it, the status update says review; a channel line between. */
const trace: Trace = {
  events: [
    { _id: "e1" as Id<"events">, _creationTime: T0, type: "a2a.delegate", actor: jarvis, correlationId, data: { title: "Draft the tagline", to: "Writer", task_id: childId, batch_id: parentId } },
    { _id: "e2" as Id<"events">, _creationTime: T0 + 2_000, type: "messaging.posted", actor: { kind: "system" }, correlationId, data: { type: "channel" } },
    { _id: "e3" as Id<"events">, _creationTime: T0 + 9_000, type: "a2a.status_update", actor: writer, correlationId, data: { status: "review", to: "Jarvis", task_id: childId } },
  ],
  runs: [{ runId: "run-1" as Id<"runs">, taskId: childId, agentSessionKey: writer.sessionKey, status: "completed", createdAt: T0 + 1_000 }],
};

function inRouter(node: ReactNode, path = "/d/product/trace/x", role: MemberRole = "admin") {
  return render(
    <RoleContext.Provider value={role}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/d/:slug/*" element={node} />
        </Routes>
      </MemoryRouter>
    </RoleContext.Provider>,
  );
}

describe("a delegation's steps", () => {
  it("merges the events and the runs in time order, in the event log's words, naming the card and the run", () => {
    const steps = traceSteps(trace, (key) => agents.find((a) => a.sessionKey === key)?.name ?? key);
    expect(steps.map((s) => [s.type, s.who, s.what, s.taskId, s.runId])).toEqual([
      ["a2a.delegate", "Jarvis", "delegated “Draft the tagline” to Writer", childId, undefined],
      ["run", "Writer", "worked on the card", childId, "run-1"],
      ["messaging.posted", "Maestro", "posted a message", undefined, undefined],
      ["a2a.status_update", "Writer", "told Jarvis the task is ready for review", childId, undefined],
    ]);
    expect(cardCorrelationId(childId)).toBe(correlationId);
    expect(tracePath("product", correlationId)).toBe("/d/product/trace/a2a%3Atask-1");
    expect(eventsPath("product", correlationId)).toBe("/d/product/events?correlation=a2a%3Atask-1");
  });
});

describe("TraceView", () => {
  it("lists the steps oldest first, each with who, what and links to its card and run, and links to the log narrowed to the id", () => {
    live.queries.set("events:trace", trace);
    live.queries.set("agents:list", agents);
    inRouter(<TraceView departmentId={departmentId} slug="product" correlationId={correlationId} />);
    expect(live.calls.find((c) => c.name === "events:trace")?.args).toEqual({ departmentId, correlationId });
    const rows = within(screen.getByTestId("trace-steps")).getAllByTestId("trace-step");
    expect(rows.map((r) => r.getAttribute("data-step-type"))).toEqual(["a2a.delegate", "run", "messaging.posted", "a2a.status_update"]);
    expect(rows[0].textContent).toContain("Jarvis delegated “Draft the tagline” to Writer");
    expect(within(rows[0]).getByRole("link", { name: "Card “Draft the tagline”" }).getAttribute("href")).toBe("/d/product/tasks/task-1");
    expect(rows[1].textContent).toContain("Writer worked on the card");
    expect(within(rows[1]).getByRole("link", { name: "Open the run" }).getAttribute("href")).toBe("/d/product/runs/run-1");
    expect(within(rows[2]).queryByRole("link")).toBeNull();
    expect(screen.getByRole("link", { name: "These events in the event log" }).getAttribute("href")).toBe("/d/product/events?correlation=a2a%3Atask-1");
  });

  it("says not found for an id that spans nothing here, and does not ask for one the server would refuse", () => {
    live.queries.set("events:trace", { events: [], runs: [] });
    inRouter(<TraceView departmentId={departmentId} slug="product" correlationId="a2a:theirs" />);
    expect(screen.getByTestId("trace-not-found").textContent).toContain("Trace not found");
    expect(screen.queryByTestId("trace-steps")).toBeNull();
    cleanup();
    live.calls = [];
    inRouter(<TraceView departmentId={departmentId} slug="product" correlationId={"x".repeat(201)} />);
    expect(live.calls.find((c) => c.name === "events:trace")?.args).toBe("skip");
    expect(screen.getByTestId("trace-not-found")).toBeTruthy();
  });
});

describe("the event log", () => {
  const page = {
    results: [
      { _id: "e3" as Id<"events">, _creationTime: T0 + 9_000, type: "a2a.status_update", actor: writer, correlationId, data: { status: "review", to: "Jarvis" } },
      { _id: "e0" as Id<"events">, _creationTime: T0 - 9_000, type: "channels.created", actor: { kind: "system" }, data: {} },
    ],
    status: "Exhausted",
    loadMore: () => {},
  };
  const logArgs = () => live.calls.filter((c) => c.name === "events:list").at(-1)?.args as Record<string, unknown>;

  it("links each event that has a correlation id to its trace", () => {
    live.queries.set("events:list", page);
    inRouter(<EventLog departmentId={departmentId} slug="product" />, "/d/product/events");
    const rows = screen.getAllByTestId("event-row");
    expect(within(rows[0]).getByRole("link", { name: `Trace of ${correlationId}` }).getAttribute("href")).toBe("/d/product/trace/a2a%3Atask-1");
    expect(within(rows[1]).queryByRole("link")).toBeNull();
  });

  it("filters by a correlation id typed in, or given by the address, and refuses one over 200 characters", () => {
    live.queries.set("events:list", page);
    inRouter(<EventLog departmentId={departmentId} slug="product" />, "/d/product/events");
    expect(logArgs()).not.toHaveProperty("correlationId");
    const field = screen.getByLabelText("Correlation id");
    fireEvent.change(field, { target: { value: `  ${correlationId} ` } });
    expect(logArgs()).toMatchObject({ departmentId, correlationId });
    fireEvent.change(field, { target: { value: "x".repeat(201) } });
    expect(logArgs()).not.toHaveProperty("correlationId");
    expect(screen.getByText("At most 200 characters.")).toBeTruthy();
    cleanup();
    inRouter(<EventLog departmentId={departmentId} slug="product" correlationId={correlationId} />, "/d/product/events");
    expect((screen.getByLabelText("Correlation id") as HTMLInputElement).value).toBe(correlationId);
    expect(logArgs()).toMatchObject({ correlationId });
  });
});

describe("a delegated card", () => {
  const card: TaskDetail = {
    _id: childId,
    _creationTime: T0,
    departmentId,
    title: "Draft the tagline",
    description: "",
    status: "review",
    priority: "medium",
    tags: [],
    assigneeSessionKeys: [writer.sessionKey],
    createdBy: jarvis.sessionKey,
    parentTaskId: parentId,
    parentTitle: "Launch",
    delegatedBy: jarvis.sessionKey,
    updatedAt: T0,
  };
  const details = (task: TaskDetail, role: MemberRole) =>
    inRouter(
      <TaskDetails
        task={task}
        agents={agents}
        members={[]}
        edits={{ update: vi.fn(), setStatus: vi.fn(), assign: vi.fn() }}
        onError={vi.fn()}
        onOpenTask={vi.fn()}
        now={T0}
      />,
      "/d/product/tasks/task-1",
      role,
    );

  it("links its admins to the delegation's trace; a member, a viewer and a card nobody delegated have no link", () => {
    details(card, "admin");
    expect(screen.getByRole("link", { name: "Trace of this delegation" }).getAttribute("href")).toBe("/d/product/trace/a2a%3Atask-1");
    for (const role of ["member", "viewer"] as const) {
      cleanup();
      details(card, role);
      expect(screen.queryByRole("link", { name: "Trace of this delegation" })).toBeNull();
    }
    cleanup();
    details({ ...card, delegatedBy: undefined, parentTaskId: undefined }, "owner");
    expect(screen.queryByRole("link", { name: "Trace of this delegation" })).toBeNull();
    expect(live.calls.filter((c) => c.name === "events:hasTrace").at(-1)?.args).toEqual({ departmentId, correlationId });
  });

  it("links a card nobody delegated when its id has a trace (an A2A client's card, one handed to an A2A agent), for admins only", () => {
    live.queries.set("events:hasTrace", true);
    const a2aCard = { ...card, delegatedBy: undefined, parentTaskId: undefined, parentTitle: undefined };
    details(a2aCard, "owner");
    expect(screen.getByRole("link", { name: "Trace of this delegation" }).getAttribute("href")).toBe("/d/product/trace/a2a%3Atask-1");
    cleanup();
    live.calls = [];
    details(a2aCard, "member");
    expect(screen.queryByRole("link", { name: "Trace of this delegation" })).toBeNull();
    expect(live.calls.filter((c) => c.name === "events:hasTrace").map((c) => c.args)).toEqual(["skip"]);
  });
});
