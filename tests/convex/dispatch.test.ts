/**
 * The dispatcher's checks before a call runs (brain/dispatch checkCall) and
 * what it tells the thread (noteFor), as plain functions: no tool is known by
 * name here, every refusal is a typed result.
 */
import { describe, expect, test } from "vitest";
import { needsApproval } from "../../convex/tools/registry";
import { callPriority, checkCall, noteFor, PLAN_MODE_REFUSAL, type DispatchScope } from "../../convex/brain/dispatch";
import { assemblePrompt, BASE_MIDDLEWARES, PLAN_MODE_LINE } from "../../convex/brain/prompt";
import { MAX_TOOL_CALLS_PER_REPLY, parseToolCalls } from "../../convex/lib/toolCalls";
import { TOOL_REGISTRY } from "../../convex/tools/registry";

const writer: DispatchScope = {
  name: "Writer",
  sessionKey: "agent:writer:product",
  allowedTools: ["post_message", "update_task_status"],
  chatEnabled: true,
  delegations: 0,
  squad: [
    { name: "Jarvis", sessionKey: "agent:jarvis:product", allowedTools: ["delegate_task", "post_message"] },
    { name: "Writer", sessionKey: "agent:writer:product", allowedTools: ["post_message", "update_task_status"] },
  ],
};
const jarvis: DispatchScope = { ...writer, name: "Jarvis", sessionKey: "agent:jarvis:product", allowedTools: ["delegate_task", "post_message"] };
const config = { maxDelegationsPerRun: 2 };
const DELEGATE = '[TOOL: delegate_task ARG: {"title": "Copy", "description": "The launch copy.", "assignees": ["Writer"], "instruction": "Write it."}]';

function check(reply: string, scope: DispatchScope, seen: ReadonlySet<string> = new Set(), index = 0) {
  return checkCall(parseToolCalls(reply)[0], index, scope, seen, config);
}

describe("checkCall", () => {
  test("a permitted, valid call comes back parsed, with its signature", () => {
    const checked = check(DELEGATE, jarvis);
    if ("refused" in checked) throw new Error(checked.refused.text);
    expect(checked.tool.name).toBe("delegate_task");
    expect(checked.args).toEqual({ title: "Copy", description: "The launch copy.", assignees: ["Writer"], instruction: "Write it." });
    expect(checked.signature).toBe('call delegate_task {"assignees":["Writer"],"description":"The launch copy.","instruction":"Write it.","title":"Copy"}');
  });

  test("unknown tool: invalid, with a note naming the agent's tools", () => {
    expect(check('[TOOL: send_email ARG: {"to": "x"}]', writer)).toEqual({
      refused: {
        ok: false,
        problem: "invalid",
        text: 'unknown tool "send_email"; your tools are: post_message, update_task_status',
        note: 'Writer tried to use a tool that does not exist: "send_email". Choices: ask Writer again (its tools are: post_message, update_task_status), or an owner or admin can change its tools in the roster.',
      },
    });
  });

  test("permission denied, with a note naming who may", () => {
    expect(check(DELEGATE, writer)).toEqual({
      refused: {
        ok: false,
        problem: "denied",
        text: "permission denied: Writer may not call delegate_task",
        note: "Permission denied: Writer may not call delegate_task. Choices: ask an agent that may (Jarvis), or an owner or admin can allow delegate_task for Writer in the roster.",
      },
    });
  });

  test("chat tools do not exist while chat is off", () => {
    const scope = { ...writer, allowedTools: ["chat.post"], chatEnabled: false };
    expect(check('[TOOL: chat.post ARG: {"text": "hi"}]', scope)).toMatchObject({ refused: { problem: "invalid" } });
  });

  test("invalid arguments name the problem and the expected shape; no note", () => {
    const checked = check('[TOOL: delegate_task ARG: {"title": "", "assignees": [], "instruction": "x"}]', jarvis);
    expect(checked).toMatchObject({ refused: { ok: false, problem: "invalid" } });
    if (!("refused" in checked)) throw new Error("not refused");
    expect(checked.refused.text).toContain("title: title must not be empty; description: description is required");
    expect(checked.refused.text).toContain("assignees: give at least one assignee");
    expect(noteFor("Jarvis", "delegate_task", checked.refused)).toBeUndefined();
  });

  test("a delegate_task without a description is refused with a clear error (the spec's contract requires it)", () => {
    const checked = check('[TOOL: delegate_task ARG: {"title": "Copy", "assignees": ["Writer"], "instruction": "Write it."}]', jarvis);
    if (!("refused" in checked)) throw new Error("not refused");
    expect(checked.refused).toMatchObject({ ok: false, problem: "invalid" });
    expect(checked.refused.text).toContain("description: description is required: say what the task is about");
  });

  test("loop guards: a repeat in the run, the per-run delegation limit, the per-reply limit", () => {
    const first = check(DELEGATE, jarvis);
    if ("refused" in first) throw new Error(first.refused.text);
    expect(check(DELEGATE, jarvis, new Set([first.signature]))).toMatchObject({ refused: { problem: "guard", stop: { reason: "repeated identical tool call" } } });
    expect(check(DELEGATE, { ...jarvis, delegations: 2 })).toMatchObject({ refused: { problem: "guard", stop: { reason: "delegation limit per run reached (2)" } } });
    // The limit counts delegations only.
    expect("refused" in check('[TOOL: post_message ARG: {"content": "hi"}]', { ...jarvis, delegations: 2 })).toBe(false);
    const tooMany = check(DELEGATE, jarvis, new Set(), MAX_TOOL_CALLS_PER_REPLY);
    expect(tooMany).toMatchObject({ refused: { problem: "guard", stop: { reason: `more than ${MAX_TOOL_CALLS_PER_REPLY} tool calls in one reply` } } });
    if (!("refused" in tooMany)) throw new Error("not refused");
    expect(noteFor("Jarvis", "delegate_task", tooMany.refused)).toBe(
      `Jarvis was stopped from calling delegate_task: more than ${MAX_TOOL_CALLS_PER_REPLY} tool calls in one reply. Choices: ask again for the rest in a new message.`,
    );
  });
});

test("every registry entry carries its description, usage, schema, approval default and executor", () => {
  for (const entry of TOOL_REGISTRY) {
    expect(entry.description.length).toBeGreaterThan(0);
    expect(entry.usage.startsWith("{")).toBe(true);
    expect(typeof entry.args.safeParse).toBe("function");
    expect(["never", "always", "high_priority"]).toContain(entry.approval);
    expect(typeof entry.execute).toBe("function");
  }
  expect(TOOL_REGISTRY.filter((entry) => "delegates" in entry && entry.delegates).map((entry) => entry.name)).toEqual(["delegate_task"]);
});

describe("plan mode and approval priority", () => {
  test("in plan mode a squad lead's delegate_task is refused, naming propose_plan; in act mode, or for a non-lead, it is not", () => {
    const planning = check(DELEGATE, { ...jarvis, isSquadLead: true, leadMode: "plan" });
    expect(planning).toEqual({ refused: { ok: false, problem: "invalid", text: `delegate_task: ${PLAN_MODE_REFUSAL}` } });
    expect(PLAN_MODE_REFUSAL).toContain("propose_plan");
    expect("refused" in check(DELEGATE, { ...jarvis, isSquadLead: true, leadMode: "act" })).toBe(false);
    expect("refused" in check(DELEGATE, { ...jarvis, isSquadLead: false, leadMode: "plan" })).toBe(false);
  });

  test("a call is judged by the higher of its task's priority and the one it names: a hijacked lead's \"low\" on a high task is still high", () => {
    expect(callPriority({ priority: "low" }, "high")).toBe("high");
    expect(callPriority({ priority: "medium" }, "high")).toBe("high");
    expect(needsApproval("high_priority", callPriority({ priority: "low" }, "high"))).toBe(true);
    expect(callPriority({ priority: "high" }, "low")).toBe("high");
    expect(callPriority({ title: "x" }, "high")).toBe("high");
    expect(callPriority({ priority: "urgent!" }, "low")).toBe("low");
    expect(callPriority({}, undefined)).toBe("medium");
  });

  test("the lead's prompt says plan mode only in plan mode", async () => {
    const base = {
      runId: "r" as never,
      agent: { name: "Jarvis", role: "Lead", kind: "lead", sessionKey: "agent:jarvis:product", systemPrompt: "", isSquadLead: true },
      department: { name: "Product", slug: "product" },
      task: { title: "T", description: "", status: "inbox" as const, priority: "medium", tags: [], assignees: [] },
      thread: [],
      threadOmitted: false,
      trigger: { kind: "mentioned" as const, text: "You were @mentioned" },
      tools: [{ name: "propose_plan", description: "", usage: "" }],
      squad: [],
      toolCalls: "native" as const,
    };
    const planned = await assemblePrompt({ ...base, leadMode: "plan" }, BASE_MIDDLEWARES);
    expect(planned.messages[0].content).toContain(PLAN_MODE_LINE);
    const acting = await assemblePrompt({ ...base, leadMode: "act" }, BASE_MIDDLEWARES);
    expect(acting.messages[0].content).not.toContain("Plan mode is on");
  });
});
