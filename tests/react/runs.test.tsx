// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { getFunctionName } from "convex/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import type { RunEventPayload } from "../../convex/lib/runEvents";
import { AgentActivity, RunsNow, RunsPanel } from "../../src/task/RunsPanel";
import { StepsDeletedNote } from "../../src/runs/RunView";
import {
  describeToolCall,
  executorWaitNote,
  extraGuards,
  formatDuration,
  formatTokens,
  notableReason,
  runDuration,
  runHeadline,
  splitRuns,
  type RunView,
  type ToolCallView,
} from "../../src/task/runs";

const live = vi.hoisted(() => ({
  runs: undefined as unknown,
  streams: [] as unknown,
  error: null as Error | null,
  calls: [] as Array<{ name: string; args: unknown }>,
  mutations: [] as Array<{ name: string; args: unknown }>,
  /** Each run's tool events, as `runEvents.toolCallsForRun` returns them, and whether the run made more calls. */
  events: {} as Record<string, Array<{ seq: number; timestamp: number; payload: RunEventPayload }>>,
  moreCalls: false,
}));
vi.mock("convex/react", () => ({
  useQuery: (query: never, args: unknown) => {
    const name = getFunctionName(query);
    live.calls.push({ name, args });
    if (live.error !== null) throw live.error;
    if (name === "runEvents:toolCallsForRun") return { events: live.events[(args as { runId: string }).runId] ?? [], more: live.moreCalls };
    return name === "runs:streamingForTask" ? live.streams : live.runs;
  },
  useMutation: (mutation: never) => (args: unknown) => {
    live.mutations.push({ name: getFunctionName(mutation), args });
    return Promise.resolve(null);
  },
}));

afterEach(() => {
  cleanup();
  live.runs = undefined;
  live.streams = [];
  live.error = null;
  live.calls = [];
  live.mutations = [];
  live.events = {};
  live.moreCalls = false;
});

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const taskId = "task-1" as Id<"tasks">;

let nextId = 0;
function run(overrides: Partial<RunView> = {}): RunView {
  nextId += 1;
  return {
    _id: `run-${nextId}` as Id<"runs">,
    _creationTime: NOW - 5 * 60_000,
    agentName: "Jarvis",
    agentSessionKey: "agent:jarvis",
    trigger: { kind: "mentioned" },
    status: "completed",
    reason: "replied",
    iterations: 1,
    toolCalls: [],
    model: "demo model (offline, rule-based)",
    promptTokens: 900,
    completionTokens: 334,
    guards: [],
    timings: [{ contextMs: 4, modelMs: 3100, dispatchMs: 12 }],
    startedAt: NOW - 5 * 60_000,
    endedAt: NOW - 5 * 60_000 + 3_200,
    ...overrides,
  };
}

function call(overrides: Partial<ToolCallView>): ToolCallView {
  return { index: 0, name: "post_message", args: "{}", outcome: "ok", observation: "posted in the thread", ...overrides };
}

/** The run, with `calls` written to its event stream (a `tool_call` and, unless pending, its `tool_result` each). */
function withCalls(view: RunView, calls: ToolCallView[]): RunView {
  const payloads: RunEventPayload[] = [{ type: "agent_start", agentName: view.agentName, model: "demo", attempt: 1 }];
  calls.forEach((c, index) => {
    payloads.push({ type: "tool_call", index, name: c.name, args: c.args });
    if (c.outcome !== "pending") payloads.push({ type: "tool_result", index, name: c.name, outcome: c.outcome, observation: c.observation });
  });
  live.events[view._id] = payloads.map((payload, i) => ({ seq: i + 1, timestamp: NOW - 60_000 + i, payload }));
  return view;
}

const delegated = call({
  name: "delegate_task",
  args: JSON.stringify({ title: "Hero copy", description: "", assignees: ["Dev Bot"], instruction: "Write it" }),
  observation: "[DELEGATED_TASK] created “Hero copy” (k57abc) assigned to Dev Bot; the first instruction is posted in its thread",
});
const denied = call({
  name: "delegate_task",
  outcome: "denied",
  observation: "permission denied: Writer may not call delegate_task",
});

describe("describeToolCall", () => {
  const cases: Array<[string, Parameters<typeof describeToolCall>[0], string]> = [
    ["a delegation", delegated, "Delegated “Hero copy” to Dev Bot"],
    [
      "a delegation to several agents",
      call({ name: "delegate_task", observation: "[DELEGATED_TASK] created “Launch, part 2” (k1) assigned to Dev Bot, Writer, Designer; the first instruction is posted in its thread" }),
      "Delegated “Launch, part 2” to Dev Bot, Writer and Designer",
    ],
    [
      "a delegation as the spec's JSON result",
      call({ name: "delegate_task", observation: JSON.stringify({ ok: true, taskId: "k2", title: "Signup form", assigneesResolved: ["Dev Bot", "Writer"], assigneesRequested: ["Dev Bot", "Casper", "Writer"], assigneesUnresolved: ["Casper"] }) }),
      "Delegated “Signup form” to Dev Bot and Writer",
    ],
    [
      "a delegation that already existed",
      call({ name: "delegate_task", observation: JSON.stringify({ ok: true, taskId: "k2", title: "Signup form", assigneesResolved: ["Writer"], assigneesRequested: ["Writer"], alreadyExisted: true, note: "this task already exists" }) }),
      "“Signup form” was already delegated to Writer; nothing new was created",
    ],
    ["a denied call, verbatim", denied, "permission denied: Writer may not call delegate_task"],
    [
      "a refused call that names its tool",
      call({ name: "delegate_task", outcome: "refused", observation: "delegate_task: refused, delegation limit per run reached (5)" }),
      "delegate_task: refused, delegation limit per run reached (5)",
    ],
    [
      "a refused call that does not",
      call({ name: "post_message", outcome: "refused", observation: "not run: at most 5 tool calls per reply" }),
      "post_message: not run: at most 5 tool calls per reply",
    ],
    [
      "an invalid call",
      call({ name: "delegate_task", outcome: "invalid", observation: "delegate_task: invalid arguments (title: title must not be empty)." }),
      "delegate_task: invalid arguments (title: title must not be empty).",
    ],
    ["an unknown tool", call({ name: "web.search", outcome: "invalid", observation: 'unknown tool "web.search"; your tools are: post_message' }), 'unknown tool "web.search"; your tools are: post_message'],
    ["a failure", call({ name: "ask_question", outcome: "error", observation: "ask_question failed: Task not found" }), "ask_question failed: Task not found"],
    ["a status move", call({ name: "update_task_status", observation: "moved the task from in_progress to review" }), "Moved the task from In progress to Review"],
    ["a status that did not change", call({ name: "update_task_status", observation: "the task was already done" }), "Left the task in Done"],
    ["a post with its content", call({ args: JSON.stringify({ content: "Draft\n is  up" }) }), "Posted in the thread: “Draft is up”"],
    ["a post whose arguments were cut", call({ args: '{"content": "a very long…' }), "Posted in the thread"],
    [
      "a long post, shortened",
      call({ args: JSON.stringify({ content: "x".repeat(200) }) }),
      `Posted in the thread: “${"x".repeat(79)}…”`,
    ],
    [
      "a question",
      call({ name: "ask_question", args: JSON.stringify({ question: "Which tone?" }), observation: "asked in the thread; the task is blocked until a human answers" }),
      "Asked: “Which tone?” (the task is blocked until a human answers)",
    ],
    ["an unfamiliar result", call({ name: "chat.getNew", observation: "2 new messages" }), "chat.getNew: 2 new messages"],
    ["a delegation worded differently", call({ name: "delegate_task", observation: "created a task" }), "delegate_task: created a task"],
  ];
  it.each(cases)("%s", (_label, input, expected) => {
    expect(describeToolCall(input)).toBe(expected);
  });
});

describe("run helpers", () => {
  it("words the headline by status", () => {
    expect(runHeadline(run({ status: "queued", reason: undefined }))).toBe("Jarvis is queued…");
    expect(runHeadline(run({ status: "running", reason: undefined }))).toBe("Jarvis is thinking…");
    expect(runHeadline(run())).toBe("Jarvis replied");
    expect(runHeadline(run({ reason: "tool iteration limit reached (6)" }))).toBe("Jarvis finished");
    expect(runHeadline(run({ status: "error", reason: "boom" }))).toBe("Jarvis could not finish");
    expect(runHeadline(run({ status: "waiting", reason: undefined }))).toBe("Jarvis is waiting for a person");
    expect(runHeadline(run({ status: "waiting", reason: undefined, waitingOnTool: "web_fetch" }))).toBe("Jarvis is waiting for web_fetch's output");
    expect(runHeadline(run({ status: "aborted", reason: "stopped" }))).toBe("Jarvis stopped");
  });

  it("keeps reasons and guards worth showing", () => {
    expect(notableReason(run())).toBeNull();
    expect(notableReason(run({ reason: undefined }))).toBeNull();
    expect(notableReason(run({ reason: "tool iteration limit reached (6)" }))).toBe("tool iteration limit reached (6)");
    const guarded = run({ reason: "delegation limit per run reached (5)", guards: ["delegation limit per run reached (5)", "repeated identical tool call"] });
    expect(extraGuards(guarded)).toEqual(["repeated identical tool call"]);
  });

  it("formats tokens and durations", () => {
    expect(formatTokens(run())).toBe("1,234 tokens");
    expect(formatTokens(run({ promptTokens: 0, completionTokens: 0 }))).toBeNull();
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(3_240)).toBe("3.2 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(120_000)).toBe("2 min");
    expect(runDuration(run())).toBe("3.2 s");
    expect(runDuration(run({ status: "running", endedAt: undefined }))).toBeNull();
    // An error before the run started counts from when it was queued.
    expect(runDuration(run({ startedAt: undefined, _creationTime: NOW - 1_000, endedAt: NOW }))).toBe("1.0 s");
  });

  it("says a run waits for an outside executor, and when its call expires", () => {
    const waiting = run({ status: "waiting", reason: undefined, endedAt: undefined, waitingOnTool: "web_fetch", waitingExpiresAt: NOW + 9 * 60_000 + 5_000 });
    expect(executorWaitNote(waiting, NOW)).toBe("Waits for an outside executor to run web_fetch; the call expires in 10 min.");
    expect(executorWaitNote(waiting, NOW + 9 * 60_000)).toBe("Waits for an outside executor to run web_fetch; the call expires in under a minute.");
    expect(executorWaitNote(waiting, NOW + 10 * 60_000)).toBe("Waits for an outside executor to run web_fetch; the call expires now.");
    // Waiting for a person, or no longer waiting: nothing to say.
    expect(executorWaitNote(run({ status: "waiting", reason: undefined }), NOW)).toBeNull();
    expect(executorWaitNote({ ...waiting, status: "queued" }, NOW)).toBeNull();
  });

  it("splits the newest three from the rest", () => {
    expect(splitRuns([1, 2, 3, 4, 5])).toEqual({ recent: [1, 2, 3], earlier: [4, 5] });
    expect(splitRuns([1])).toEqual({ recent: [1], earlier: [] });
  });
});

describe("RunsPanel", () => {
  it("a run waiting on an external call says so under its headline", () => {
    render(<RunsPanel runs={[run({ status: "waiting", reason: undefined, endedAt: undefined, waitingOnTool: "web_fetch", waitingExpiresAt: NOW + 4 * 60_000 })]} now={NOW} />);
    expect(screen.getByTestId("executor-wait").textContent).toBe("Waits for an outside executor to run web_fetch; the call expires in 4 min.");
  });

  it("renders nothing without runs", () => {
    const { container } = render(<RunsPanel runs={[]} now={NOW} />);
    expect(container.innerHTML).toBe("");
    expect(screen.queryByRole("region", { name: "Agent activity" })).toBeNull();
  });

  it("says who is queued and who is thinking, politely live", () => {
    render(
      <RunsPanel
        runs={[
          run({ agentName: "Dev Bot", status: "queued", reason: undefined, startedAt: undefined, endedAt: undefined, model: undefined, promptTokens: 0, completionTokens: 0, iterations: 0 }),
          run({ status: "running", reason: undefined, endedAt: undefined }),
        ]}
        now={NOW}
      />,
    );
    const [queued, running] = screen.getAllByTestId("run");
    expect(queued.getAttribute("data-run-status")).toBe("queued");
    expect(within(queued).getByTestId("run-headline").textContent).toContain("Dev Bot is queued…");
    expect(running.getAttribute("data-run-status")).toBe("running");
    const thinking = within(running).getByTestId("run-headline");
    expect(thinking.textContent).toContain("Jarvis is thinking…");
    // Announced once, beside the composer (RunsNow), not twice.
    expect(within(running).queryByRole("status")).toBeNull();
    // No finished-status badge or duration while a run is under way.
    expect(within(running).queryByText("Completed")).toBeNull();
    expect(within(running).queryByText("3.2 s")).toBeNull();
  });

  it("shows what a completed run did: formatted delegation, denied call, badge, model, tokens, duration", () => {
    render(<RunsPanel runs={[withCalls(run({ iterations: 2 }), [delegated, denied])]} now={NOW} />);
    const item = screen.getByTestId("run");
    expect(item.getAttribute("data-run-status")).toBe("completed");
    expect(within(item).getByTestId("run-headline").textContent).toContain("Jarvis replied after a mention");
    expect(within(item).getByText("Completed")).toBeTruthy();

    const calls = within(within(item).getByRole("list", { name: "Tool calls" })).getAllByRole("listitem");
    expect(calls).toHaveLength(2);
    expect(calls[0].textContent).toContain("✓");
    expect(within(calls[0]).getByText("Delegated “Hero copy” to Dev Bot")).toBeTruthy();
    expect(calls[1].textContent).toContain("⊘");
    expect(within(calls[1]).getByText("permission denied: Writer may not call delegate_task")).toBeTruthy();
    expect(within(calls[1]).getByText("Permission denied:", { selector: ".sr-only" })).toBeTruthy();

    expect(within(item).getByText("demo model (offline, rule-based)")).toBeTruthy();
    expect(within(item).getByText("1,234 tokens").getAttribute("title")).toBe("900 prompt + 334 completion");
    expect(within(item).getByText("3.2 s")).toBeTruthy();
    expect(within(item).getByText("2 model calls")).toBeTruthy();
    // "replied" is the ordinary ending: no reason line.
    expect(within(item).queryByText("replied")).toBeNull();
  });

  it("shows an error run's reason and a guard hit", () => {
    const noModel = "No model configured: set OPENAI_API_KEY or OPENAI_BASE_URL for the deployment.";
    render(
      <RunsPanel
        runs={[
          run({ status: "error", reason: noModel, model: undefined, promptTokens: 0, completionTokens: 0, iterations: 0 }),
          withCalls(run({ agentName: "Writer", reason: "replied", guards: ["delegation limit per run reached (5)"] }), [
            call({ name: "delegate_task", outcome: "refused", observation: "delegate_task: refused, delegation limit per run reached (5)" }),
          ]),
        ]}
        now={NOW}
      />,
    );
    const [failed, guarded] = screen.getAllByTestId("run");
    expect(failed.getAttribute("data-run-status")).toBe("error");
    expect(within(failed).getByTestId("run-headline").textContent).toContain("Jarvis could not finish");
    expect(within(failed).getByText("Error")).toBeTruthy();
    expect(within(failed).getByText(noModel)).toBeTruthy();
    expect(within(failed).queryByText(/tokens/)).toBeNull();

    expect(within(guarded).getByText("■")).toBeTruthy();
    expect(within(guarded).getByText("Guard: delegation limit per run reached (5)")).toBeTruthy();
  });

  it("shows the newest three runs and keeps the rest behind “Show earlier runs”", () => {
    const runs = [1, 2, 3, 4, 5].map((n) => run({ agentName: `Agent ${n}` }));
    render(<RunsPanel runs={runs} now={NOW} />);
    const visible = () => screen.getAllByTestId("run").filter((item) => !item.closest("[hidden]"));
    expect(visible().map((item) => within(item).getByTestId("run-headline").textContent)).toEqual([
      "Agent 1 replied after a mention",
      "Agent 2 replied after a mention",
      "Agent 3 replied after a mention",
    ]);

    const toggle = screen.getByRole("button", { name: "Show earlier runs (2)" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(visible()).toHaveLength(5);
    expect(screen.getByRole("button", { name: "Hide earlier runs" }).getAttribute("aria-expanded")).toBe("true");
  });

  it("reads a run's tool calls from its event stream, not from the run row, and follows it live", () => {
    const view = run({ status: "running", reason: undefined, endedAt: undefined, toolCalls: [{ name: "dm_send", args: "{}", outcome: "ok", observation: "stale copy on the run row", at: NOW }] });
    withCalls(view, [call({ name: "post_message", outcome: "pending", args: JSON.stringify({ content: "On it" }) })]);
    const { rerender } = render(<RunsPanel runs={[view]} now={NOW} />);
    expect(live.calls).toContainEqual({ name: "runEvents:toolCallsForRun", args: { runId: view._id } });
    const lines = () => within(screen.getByRole("list", { name: "Tool calls" })).getAllByRole("listitem");
    expect(lines().map((line) => line.getAttribute("data-outcome"))).toEqual(["pending"]);
    expect(lines()[0].textContent).toContain("Calling post_message…");
    expect(screen.queryByText(/stale copy/)).toBeNull();

    // The result arrives in the stream: the same line now says what the call did.
    withCalls(view, [call({ name: "post_message", args: JSON.stringify({ content: "On it" }) }), call({ name: "update_task_status", outcome: "pending" })]);
    rerender(<RunsPanel runs={[view]} now={NOW} />);
    expect(lines().map((line) => line.getAttribute("data-outcome"))).toEqual(["ok", "pending"]);
    expect(lines()[0].textContent).toContain("Posted in the thread: “On it”");
  });

  it("a call left without a result by a run that ended reads as unfinished, not under way", () => {
    const ended = withCalls(run({ status: "aborted", reason: "stopped by Ada" }), [call({ name: "dm_send", outcome: "pending" })]);
    render(<RunsPanel runs={[ended]} now={NOW} />);
    const [line] = within(screen.getByRole("list", { name: "Tool calls" })).getAllByRole("listitem");
    expect(line.getAttribute("data-outcome")).toBe("error");
    expect(line.textContent).toContain("dm_send: did not finish (the run ended first)");
  });

  it("says when a long run has more calls than shown, and links to its page", () => {
    const view = withCalls(run(), [call({})]);
    live.moreCalls = true;
    render(
      <MemoryRouter>
        <RunsPanel runs={[view]} now={NOW} runHref={(id) => `/d/product/runs/${id}`} />
      </MemoryRouter>,
    );
    expect(screen.getByText("The latest 1 tool calls of this run.")).toBeTruthy();
    expect(screen.getByRole("link", { name: "See them all" }).getAttribute("href")).toBe(`/d/product/runs/${view._id}`);
  });

  it("subscribes to an earlier run's events only once it is shown", () => {
    const runs = [1, 2, 3, 4].map((n) => run({ agentName: `Agent ${n}` }));
    render(<RunsPanel runs={runs} now={NOW} />);
    const subscribed = () => live.calls.filter((c) => c.name === "runEvents:toolCallsForRun").map((c) => (c.args as { runId: string }).runId);
    expect(new Set(subscribed())).toEqual(new Set(runs.slice(0, 3).map((r) => r._id)));
    fireEvent.click(screen.getByRole("button", { name: "Show earlier runs (1)" }));
    expect(subscribed()).toContain(runs[3]._id);
  });

  it("has no earlier-runs toggle for three runs or fewer", () => {
    render(<RunsPanel runs={[run(), run(), run()]} now={NOW} />);
    expect(screen.getAllByTestId("run")).toHaveLength(3);
    expect(screen.queryByRole("button", { name: /earlier runs/ })).toBeNull();
  });
});

describe("AgentActivity", () => {
  it("subscribes to the task's runs and shows them, with no Stop: that is beside the composer", () => {
    live.runs = [run({ status: "running", reason: undefined, endedAt: undefined })];
    render(<AgentActivity taskId={taskId} now={NOW} />);
    expect(live.calls).toContainEqual({ name: "runs:listForTask", args: { taskId } });
    expect(screen.getByRole("region", { name: "Agent activity" })).toBeTruthy();
    expect(screen.getByTestId("run").textContent).toContain("Jarvis is thinking…");
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    expect(screen.queryByTestId("typing")).toBeNull();
  });

  it("shows nothing while loading", () => {
    const { container } = render(<AgentActivity taskId={taskId} now={NOW} />);
    expect(container.innerHTML).toBe("");
  });

  it("keeps a failure inside the section, with a retry", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    live.error = new Error("boom");
    render(<AgentActivity taskId={taskId} now={NOW} />);
    expect(screen.getByRole("alert").textContent).toContain("Agent activity is unavailable");

    live.error = null;
    live.runs = [run()];
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(screen.getByTestId("run").getAttribute("data-run-status")).toBe("completed");
    vi.mocked(console.error).mockRestore();
  });
});

describe("RunsNow", () => {
  it("shows each active run beside the composer: thinking, then typing with the streamed text, and stops it", () => {
    const running = run({ status: "running", reason: undefined, endedAt: undefined });
    const queued = run({ agentName: "Writer", status: "queued", reason: undefined, endedAt: undefined });
    live.runs = [queued, running, run()];
    render(<RunsNow taskId={taskId} />);
    expect(live.calls).toContainEqual({ name: "runs:streamingForTask", args: { taskId } });
    // Oldest first, as a conversation reads; the finished run is not here.
    expect(screen.getAllByRole("status").map((line) => line.textContent)).toEqual(["Jarvis is thinking…", "Writer is queued…"]);
    cleanup();

    live.streams = [{ runId: running._id, agentName: "Jarvis", text: "Splitting the work" }];
    render(<RunsNow taskId={taskId} />);
    expect(screen.getAllByTestId("run-now")[0].textContent).toContain("Jarvis is typing…");
    expect(screen.getByTestId("typing").textContent).toBe("Splitting the work");
    const stops = screen.getAllByRole("button", { name: "Stop" });
    expect(stops).toHaveLength(2);
    fireEvent.click(stops[0]);
    expect(live.mutations).toEqual([{ name: "runs:stop", args: { taskId, runId: running._id } }]);
  });

  it("shows nothing when no agent is at work, and nothing while loading", () => {
    const { container } = render(<RunsNow taskId={taskId} />);
    expect(container.innerHTML).toBe("");
    cleanup();
    live.runs = [run()];
    const again = render(<RunsNow taskId={taskId} />);
    expect(again.container.innerHTML).toBe("");
  });
});

describe("StepsDeletedNote", () => {
  it("says when the history retention deleted an old run's steps and what is kept", () => {
    render(<StepsDeletedNote at={Date.UTC(2026, 5, 1, 12)} />);
    expect(screen.getByTestId("run-steps-deleted").textContent).toBe(
      "This run’s steps were deleted on Jun 1, 2026 by the department’s history retention (Settings → Retention); its reply, tool calls and cost are kept.",
    );
  });
});
