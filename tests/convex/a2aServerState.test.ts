/**
 * The one rule that reads an A2A task's state from its card (convex/lib/a2aServer
 * a2aTaskState), and a card's title from the client's text.
 */
import { describe, expect, test } from "vitest";
import { a2aCardTitle, a2aTaskState, isFinalA2AState, type A2ACardFacts } from "../../convex/lib/a2aServer";

const card = (facts: Partial<A2ACardFacts>): A2ACardFacts => ({ status: "assigned", canceled: false, archived: false, waiting: [], active: false, lastRun: null, ...facts });

describe("a2aTaskState: the A2A task follows its card", () => {
  test("submitted until the lead takes it up, then working while anyone runs", () => {
    expect(a2aTaskState(card({})).state).toBe("submitted");
    expect(a2aTaskState(card({ lastRun: "queued", active: true })).state).toBe("working");
    expect(a2aTaskState(card({ status: "in_progress", lastRun: "completed" })).state).toBe("working");
  });

  test("input-required while a question waits (the question is the message), an approval or a plan, or the card is blocked", () => {
    expect(a2aTaskState(card({ status: "blocked", waiting: [{ kind: "question", text: "Which city?", taskTitle: "Offsite" }] }))).toEqual({ state: "input-required", message: "Which city?" });
    expect(a2aTaskState(card({ status: "in_progress", active: true, waiting: [{ kind: "approval", text: "delegate_task {}", taskTitle: "Hero" }] })).message).toContain('approve a tool call on "Hero"');
    expect(a2aTaskState(card({ status: "blocked", lastRun: "completed" })).state).toBe("input-required");
  });

  test("completed in Review or Done once the lead's run has ended; working while it still runs", () => {
    expect(a2aTaskState(card({ status: "review", lastRun: "completed" })).state).toBe("completed");
    expect(a2aTaskState(card({ status: "done", lastRun: "completed" })).state).toBe("completed");
    expect(a2aTaskState(card({ status: "review", lastRun: "running", active: true })).state).toBe("working");
  });

  test("failed when the lead's last run failed and nothing runs; canceled when cancelled or taken off the board, whatever else is true", () => {
    expect(a2aTaskState(card({ status: "in_progress", lastRun: "error" })).state).toBe("failed");
    expect(a2aTaskState(card({ status: "in_progress", lastRun: "error", active: true })).state).toBe("working");
    expect(a2aTaskState(card({ canceled: true, status: "done", waiting: [{ kind: "question", text: "?", taskTitle: "x" }] })).state).toBe("canceled");
    expect(a2aTaskState(card({ archived: true, status: "review" })).state).toBe("canceled");
  });

  test("final states are completed, failed and canceled", () => {
    expect(["submitted", "working", "input-required", "completed", "failed", "canceled"].filter((s) => isFinalA2AState(s as never))).toEqual(["completed", "failed", "canceled"]);
  });
});

describe("a2aCardTitle", () => {
  test("the text's first line, cut to 120 characters; without text, named by its attachments", () => {
    expect(a2aCardTitle("  Build the launch page\nwith a form", 0)).toBe("Build the launch page");
    expect(a2aCardTitle("x".repeat(300), 0)).toHaveLength(120);
    expect(a2aCardTitle("", 2)).toBe("A2A request with 2 attachments");
    expect(a2aCardTitle("  ", 0)).toBe("A2A request");
  });
});
