// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { ConvexError } from "convex/values";
import { getFunctionName } from "convex/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { RoleContext } from "../../src/shell/role";
import { expiryText, mergeCards, PauseCards, shownState, type ApprovalCardView, type PlanCardView, type QuestionCardView } from "../../src/task/PauseCards";

const live = vi.hoisted(() => ({
  results: new Map<string, unknown>(),
  mutations: [] as Array<{ name: string; args: unknown }>,
  failWith: null as Error | null,
}));
vi.mock("convex/react", () => ({
  useQuery: (query: never) => live.results.get(getFunctionName(query)),
  useMutation: (mutation: never) => (args: unknown) => {
    live.mutations.push({ name: getFunctionName(mutation), args });
    return live.failWith === null ? Promise.resolve(null) : Promise.reject(live.failWith);
  },
}));

afterEach(() => {
  cleanup();
  live.results.clear();
  live.mutations = [];
  live.failWith = null;
});

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const taskId = "task-1" as Id<"tasks">;
const runId = "run-1" as Id<"runs">;

/** What every card below starts as: pending, in run-1 of the task, made `ago` ms before NOW by `agentName`. */
const pendingCard = (ago: number, agentName: string) => ({ _creationTime: NOW - ago, runId, taskId, status: "pending" as const, agentName });

function approval(overrides: Partial<ApprovalCardView> = {}): ApprovalCardView {
  return {
    _id: "ap-1" as Id<"approvals">,
    ...pendingCard(60_000, "Jarvis"),
    toolCallId: "run-1:0",
    tool: "delegate_task",
    args: '{"assignees":["Writer"],"priority":"high","title":"Hero copy"}',
    expiresAt: NOW + 23 * 3_600_000,
    ...overrides,
  };
}
function question(overrides: Partial<QuestionCardView> = {}): QuestionCardView {
  return { _id: "q-1" as Id<"questions">, ...pendingCard(30_000, "Writer"), question: "Formal or playful?", ...overrides };
}
function plan(overrides: Partial<PlanCardView> = {}): PlanCardView {
  const steps: PlanCardView["steps"] = [
    { title: "Hero copy", assignee: "Writer" },
    { title: "Signup form", assignee: "Dev Bot", priority: "high" },
  ];
  return { _id: "p-1" as Id<"plans">, ...pendingCard(10_000, "Jarvis"), summary: "Split the launch", steps, ...overrides };
}

function show(cards: { approvals?: ApprovalCardView[]; questions?: QuestionCardView[]; plans?: PlanCardView[] }, role: "member" | "viewer" = "member", only?: Id<"runs">) {
  live.results.set("approvals:listForTask", cards.approvals ?? []);
  live.results.set("questions:listForTask", cards.questions ?? []);
  live.results.set("plans:listForTask", cards.plans ?? []);
  return render(
    <RoleContext.Provider value={role}>
      <PauseCards taskId={taskId} runId={only} now={NOW} />
    </RoleContext.Provider>,
  );
}

/** A decision card's two responses: approve, then (once that one is back) reject with a note. */
async function approveThenReject(card: HTMLElement, words: { approve: string; reject: string; note: string }, note: string) {
  fireEvent.click(within(card).getByRole("button", { name: words.approve }));
  await vi.waitFor(() => expect((within(card).getByRole("button", { name: words.reject }) as HTMLButtonElement).disabled).toBe(false));
  fireEvent.change(within(card).getByLabelText(words.note), { target: { value: note } });
  fireEvent.click(within(card).getByRole("button", { name: words.reject }));
  await vi.waitFor(() => expect(live.mutations).toHaveLength(2));
}

/** An expired card reads Expired, says what came of it, and takes no response. */
function expectExpired(testId: string, outcome: string) {
  const card = screen.getByTestId(testId);
  expect(card.dataset.state).toBe("expired");
  expect(card.textContent).toContain("Expired");
  expect(card.textContent).toContain(outcome);
  expect(within(card).queryByRole("textbox")).toBeNull();
  expect(within(card).queryByRole("button")).toBeNull();
}

describe("ApprovalCard", () => {
  it("shows agent, tool, arguments and expiry; Approve and Deny (with a reason) call approvals.respond", async () => {
    show({ approvals: [approval()] });
    const card = screen.getByTestId("approval-card");
    expect(card.textContent).toContain("Jarvis asks to delegate “Hero copy” to Writer");
    expect(card.textContent).toContain("Tool: delegate_task");
    expect(card.textContent).toContain("title: Hero copy");
    expect(card.textContent).toContain("expires in 23 h");
    await approveThenReject(card, { approve: "Approve", reject: "Deny", note: "Reason (optional)" }, "not now");
    expect(live.mutations).toEqual([
      { name: "approvals:respond", args: { taskId, approvalId: "ap-1", decision: "approve" } },
      { name: "approvals:respond", args: { taskId, approvalId: "ap-1", decision: "deny", reason: "not now" } },
    ]);
  });

  it("a decided card says who decided, with no buttons", () => {
    show({ approvals: [approval({ status: "denied", decidedBy: "Ada", decidedAt: NOW - 120_000, reason: "not now" })] });
    const card = screen.getByTestId("approval-card");
    expect(card.textContent).toContain("Denied");
    expect(card.textContent).toContain("by Ada");
    expect(card.textContent).toContain("“not now”");
    expect(within(card).queryByRole("button")).toBeNull();
  });

  it("viewers see a pending card read-only", () => {
    show({ approvals: [approval()], questions: [question()], plans: [plan()] }, "viewer");
    expect(screen.queryAllByRole("button")).toEqual([]);
    expect(screen.queryByRole("textbox")).toBeNull();
    // She cannot decide: the cards wait for a member, not for her.
    expect(screen.getAllByText("Waiting for a member")).toHaveLength(3);
    expect(screen.queryByText("Waiting for you")).toBeNull();
  });

  it("a refused response shows the server's message", async () => {
    live.failWith = new ConvexError({ code: "CONFLICT", message: "This approval was already approved by Bo." });
    show({ approvals: [approval()] });
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect((await screen.findByRole("alert")).textContent).toBe("This approval was already approved by Bo.");
  });
});

describe("QuestionCard", () => {
  it("sends the typed answer with questions.respond; an answered card shows who answered", async () => {
    show({ questions: [question()] });
    fireEvent.change(screen.getByLabelText("Your answer"), { target: { value: "Playful" } });
    fireEvent.click(screen.getByRole("button", { name: "Answer" }));
    await vi.waitFor(() => expect(live.mutations).toEqual([{ name: "questions:respond", args: { taskId, questionId: "q-1", answer: "Playful" } }]));
    cleanup();
    show({ questions: [question({ status: "answered", answer: "Playful", answeredBy: "Ada", answeredAt: NOW })] });
    expect(screen.getByTestId("question-card").textContent).toContain("by Ada");
  });

  it("shows when it expires; an expired question says so and takes no answer", () => {
    show({ questions: [question({ expiresAt: NOW + 2 * 3_600_000 })] });
    expect(screen.getByTestId("question-card").textContent).toContain("expires in 2 h");
    cleanup();
    show({ questions: [question({ status: "expired", expiresAt: NOW - 1 })] });
    expectExpired("question-card", "expired: nobody answered in time, so Writer went on without an answer");
  });

  it("past its expiry, a question the sweeper has not reached yet already reads Expired", () => {
    show({ questions: [question({ expiresAt: NOW - 1 })] });
    const card = screen.getByTestId("question-card");
    expect(card.dataset.state).toBe("expired");
    expect(within(card).queryByRole("button")).toBeNull();
  });
});

describe("PlanCard", () => {
  it("lists steps with assignees; Approve plan, and Reject with feedback, call plans.respond", async () => {
    show({ plans: [plan()] });
    const card = screen.getByTestId("plan-card");
    expect(within(card).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Hero copy → Writer", "Signup form → Dev Bot (high)"]);
    await approveThenReject(card, { approve: "Approve plan", reject: "Reject", note: "Feedback (for a rejection)" }, "Form to Writer");
    expect(live.mutations).toEqual([
      { name: "plans:respond", args: { taskId, planId: "p-1", action: "approve" } },
      { name: "plans:respond", args: { taskId, planId: "p-1", action: "reject", feedback: "Form to Writer" } },
    ]);
  });

  it("shows when it expires; an expired plan says nothing was delegated, with no buttons", () => {
    show({ plans: [plan({ expiresAt: NOW + 30 * 60_000 })] });
    expect(screen.getByTestId("plan-card").textContent).toContain("expires in 30 min");
    cleanup();
    show({ plans: [plan({ status: "expired", decidedAt: NOW - 1, expiresAt: NOW - 1 })] });
    expectExpired("plan-card", "expired: nobody decided in time, so nothing was delegated");
  });
});

describe("PauseCards", () => {
  it("orders cards oldest first, and the run view shows only its run's", () => {
    const other = approval({ _id: "ap-2" as Id<"approvals">, runId: "run-2" as Id<"runs">, _creationTime: NOW - 5_000 });
    const merged = mergeCards([approval(), other], [question()], [plan()]);
    expect(merged.map((c) => c.card._id)).toEqual(["ap-1", "q-1", "p-1", "ap-2"]);
    show({ approvals: [approval(), other] }, "member", runId);
    expect(screen.getAllByTestId("approval-card")).toHaveLength(1);
  });

  it("shows nothing while loading or when nothing waits", () => {
    const { container } = render(<PauseCards taskId={taskId} now={NOW} />);
    expect(container.textContent).toBe("");
  });

  it("formats expiry", () => {
    expect(expiryText(NOW + 5 * 60_000, NOW)).toBe("expires in 5 min");
    expect(expiryText(NOW - 1, NOW)).toBe("expired");
    expect(shownState({ status: "pending", expiresAt: NOW }, NOW)).toBe("expired");
    expect(shownState({ status: "pending", expiresAt: NOW + 1 }, NOW)).toBe("pending");
    // Cards from before questions and plans expired carry no expiry.
    expect(shownState({ status: "pending" }, NOW)).toBe("pending");
    expect(shownState({ status: "answered", expiresAt: NOW - 1 }, NOW)).toBe("answered");
  });
});
