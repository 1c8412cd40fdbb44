import { describe, expect, test } from "vitest";
import type { RunEventPayload } from "../../convex/lib/runEvents";
import { replayRun, streamingText } from "../../convex/lib/runTimeline";

const stream = (...payloads: RunEventPayload[]) => payloads.map((payload, i) => ({ seq: i + 1, timestamp: 1000 + i, payload }));

describe("replayRun", () => {
  const whole = stream(
    { type: "user_message_submitted", author: "Ada", content: "@Jarvis split it" },
    { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
    { type: "message_start", round: 0 },
    { type: "message_update", delta: "I'll " },
    { type: "message_update", delta: "split it." },
    { type: "message_end", model: "demo", promptTokens: 10, completionTokens: 4, interrupted: false },
    { type: "tool_call", index: 0, name: "delegate_task", args: '{"title":"A"}' },
    { type: "tool_result", index: 0, name: "delegate_task", outcome: "ok", observation: "created A" },
    { type: "message_start", round: 1 },
    { type: "message_update", delta: "Done." },
    { type: "message_end", model: "demo", promptTokens: 20, completionTokens: 2, interrupted: false },
    { type: "agent_end", reason: "complete", detail: "replied" },
  );

  test("rebuilds the whole timeline from events alone", () => {
    const timeline = replayRun(whole);
    expect(timeline.items.map((item) => item.kind)).toEqual(["user_message", "agent_start", "message", "tool", "message", "end"]);
    expect(timeline.items[2]).toMatchObject({ text: "I'll split it.", streaming: false, tokens: 14 });
    expect(timeline.items[3]).toMatchObject({ name: "delegate_task", result: { outcome: "ok", observation: "created A" } });
    expect(timeline.state).toEqual({ status: "ended", reason: "complete", detail: "replied" });
    expect([timeline.promptTokens, timeline.completionTokens]).toEqual([30, 6]);
  });

  test("a text-path reply shows its words and its calls as tool items, never raw [TOOL: markup in the reply, also mid-stream", () => {
    const textPath = stream(
      { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
      { type: "message_start", round: 0 },
      { type: "message_update", delta: "I'll split it.\n[TOOL: delegate_task ARG: {\"title\": " },
    );
    expect(streamingText(textPath)).toBe("I'll split it.");
    const ended = stream(
      ...textPath.map((e) => e.payload),
      { type: "message_update", delta: '"A"}]\nThen more.' },
      { type: "message_end", model: "demo", promptTokens: 1, completionTokens: 1, interrupted: false },
      { type: "tool_call", index: 0, name: "delegate_task", args: '{"title":"A"}' },
    );
    const { items } = replayRun(ended);
    expect(items.find((i) => i.kind === "message")).toMatchObject({ text: expect.stringMatching(/^I'll split it\.\s+Then more\.$/) });
    expect(JSON.stringify(items.filter((i) => i.kind === "message"))).not.toContain("[TOOL:");
    expect(items.find((i) => i.kind === "tool")).toMatchObject({ name: "delegate_task", args: '{"title":"A"}' });
  });

  test("a call that waited for an approval is listed after the request, with its denial, and after the person's decision", () => {
    const timeline = replayRun(
      stream(
        { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
        { type: "message_start", round: 0 },
        { type: "message_update", delta: "Delegating." },
        { type: "message_end", model: "demo", promptTokens: 10, completionTokens: 2, interrupted: false },
        { type: "tool_call", index: 0, name: "delegate_task", args: '{"title":"A","priority":"high"}' },
        { type: "approval_requested", approvalId: "a1", tool: "delegate_task", args: '{"title":"A","priority":"high"}' },
        { type: "control_submitted", action: "resume", by: "Ada", note: "denied delegate_task: not now" },
        { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 2 },
        { type: "tool_result", index: 0, name: "delegate_task", outcome: "denied", observation: "denied by Ada: not now" },
        { type: "tool_call", index: 1, name: "post_message", args: '{"content":"ok"}' },
        { type: "tool_result", index: 1, name: "post_message", outcome: "ok", observation: "posted" },
        { type: "agent_end", reason: "complete", detail: "replied" },
      ),
    );
    expect(timeline.items.map((item) => (item.kind === "tool" ? `tool ${item.name} ${item.result?.outcome}` : item.kind))).toEqual([
      "agent_start",
      "message",
      "approval",
      "control",
      "agent_start",
      "tool delegate_task denied",
      "tool post_message ok",
      "end",
    ]);
    // A call that ran at once stays where it was called.
    const plain = replayRun(whole);
    expect(plain.items.map((item) => item.kind)).toEqual(["user_message", "agent_start", "message", "tool", "message", "end"]);
  });

  test("order comes from seq, not arrival; a repeated seq counts once", () => {
    const shuffled = [...whole].reverse();
    expect(replayRun([...shuffled, whole[3]])).toEqual(replayRun(whole));
  });

  test("a run stopped mid-message: the message is interrupted and the run aborted", () => {
    const timeline = replayRun(stream(
      { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
      { type: "message_start", round: 0 },
      { type: "message_update", delta: "Working" },
      { type: "control_submitted", action: "stop", by: "Ada" },
      { type: "agent_end", reason: "aborted", detail: "stopped by Ada" },
    ));
    expect(timeline.items[1]).toMatchObject({ kind: "message", text: "Working", streaming: false, interrupted: true });
    expect(timeline.state).toMatchObject({ status: "ended", reason: "aborted" });
  });

  test("streamingText: the open message's text while running, null otherwise", () => {
    expect(streamingText(whole.slice(0, 5))).toBe("I'll split it.");
    expect(streamingText(whole.slice(0, 6))).toBeNull();
    expect(streamingText(whole)).toBeNull();
  });

  test("replays a 1,000-event run", () => {
    const events = stream(
      { type: "agent_start", agentName: "Jarvis", model: "demo", attempt: 1 },
      { type: "message_start", round: 0 },
      ...Array.from({ length: 997 }, () => ({ type: "message_update" as const, delta: "x" })),
      { type: "message_end", model: "demo", promptTokens: 1, completionTokens: 1, interrupted: false },
    );
    expect(events).toHaveLength(1000);
    expect(replayRun(events).items[1]).toMatchObject({ text: "x".repeat(997) });
  });
});
