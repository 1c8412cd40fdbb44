/**
 * Every side-effecting tool acts once per cause (records/toolEffects, keys from
 * lib/idempotency): the same call from the same cause — a retried attempt,
 * a run started again by the same trigger after the model failed — makes one
 * effect and gets the first call's result; another cause makes a new one.
 * Calls go through the real dispatcher (brain/dispatch) with an action
 * context that forwards to the test deployment.
 */
import { describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import crons from "../../convex/crons";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import type { ActionCtx } from "../../convex/_generated/server";
import { DEFAULT_BRAIN_CONFIG } from "../../convex/lib/brainConfig";
import { dispatchCall, type Dispatched } from "../../convex/brain/dispatch";
import { parseToolCalls } from "../../convex/lib/toolCalls";
import { EFFECT_SWEEP_BATCH, effectTtlMs, MIN_EFFECT_TTL_MS } from "../../convex/records/toolEffects";
import { ALREADY_DELEGATED, TOOL_REGISTRY } from "../../convex/tools/registry";
import { AGENTS, createTask, demoSquad, holdScheduledFunctions, insertRun, setupTest, type TestConvex } from "./setup";

holdScheduledFunctions();

/** An action context for the dispatcher and the executors, forwarding to the test deployment's internal functions. */
function actionCtx(t: TestConvex): ActionCtx {
  type Call = (ref: unknown, args: unknown) => Promise<unknown>;
  return { runMutation: t.mutation as unknown as Call, runQuery: t.query as unknown as Call, runAction: t.action as unknown as Call } as unknown as ActionCtx;
}

/** The tables a tool's effect shows in, by size. */
const EFFECT_TABLES = ["messages", "channelMessages", "channels", "channelMembers", "tasks", "chat", "inbox", "activities", "toolEffects"] as const;

async function sizes(t: TestConvex) {
  return await t.run(async (ctx) => {
    const out: Record<string, number> = {};
    for (const table of EFFECT_TABLES) out[table] = (await ctx.db.query(table).collect()).length;
    return out;
  });
}

async function setup() {
  const { t, departmentId, admin } = await demoSquad();
  const taskId = await createTask(admin, departmentId, { title: "Launch page" });
  // Jarvis may call every tool, so one agent exercises the whole registry.
  await t.run(async (ctx) => {
    const jarvis = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.jarvis)).unique())!;
    await ctx.db.patch("agents", jarvis._id, { allowedTools: TOOL_REGISTRY.map((tool) => tool.name) });
  });
  const channelId = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
  const rootId = await admin.mutation(api.channelMessages.post, { channelId, body: "Who takes the hero copy?" });
  /** A person's message in the task's thread: what a run's trigger names. */
  const say = async (content: string) => await admin.mutation(api.messages.create, { taskId, content });
  return { t, departmentId, admin, taskId, rootId, say };
}

/** A run of Jarvis on the task, started by `trigger`, as its first attempt. */
async function startRun(t: TestConvex, taskId: Id<"tasks">, trigger: Doc<"runs">["trigger"]): Promise<Id<"runs">> {
  const runId = await insertRun(t, AGENTS.jarvis, taskId);
  await t.run(async (ctx) => await ctx.db.patch("runs", runId, { trigger, attempt: 1 }));
  return runId;
}

/** The run ends as a failed model call leaves it. */
async function fail(t: TestConvex, runId: Id<"runs">) {
  await t.run(async (ctx) => await ctx.db.patch("runs", runId, { status: "error", reason: "Model call failed: 500 Internal Server Error" }));
}

/** One tool call as the model wrote it, dispatched as a fresh attempt would (nothing seen yet). */
async function dispatch(t: TestConvex, runId: Id<"runs">, line: string): Promise<Dispatched> {
  const [call] = parseToolCalls(line);
  return await dispatchCall(actionCtx(t), runId, call, DEFAULT_BRAIN_CONFIG, new Set(), () => {});
}

function observed(dispatched: Dispatched): string {
  if (!("observation" in dispatched)) throw new Error("the call paused");
  return dispatched.observation.text;
}

const CALLS: Array<[string, (ids: { rootId: Id<"channelMessages"> }) => string]> = [
  ["post_message in the thread", () => '[TOOL: post_message ARG: {"content": "Hero copy is drafted."}]'],
  ["post_message in a channel", () => '[TOOL: post_message ARG: {"content": "Hero copy is drafted.", "channel": "#general"}]'],
  ["reply_thread", ({ rootId }) => `[TOOL: reply_thread ARG: {"message_id": "${rootId}", "content": "I take it."}]`],
  ["dm_send", () => '[TOOL: dm_send ARG: {"to": ["Ada"], "content": "Need your eyes on the copy."}]'],
  ["create_channel", () => '[TOOL: create_channel ARG: {"name": "launch-copy", "topic": "The copy"}]'],
  ["chat.post", () => '[TOOL: chat.post ARG: {"text": "Copy drafted for the launch page."}]'],
  ["delegate_task", () => '[TOOL: delegate_task ARG: {"title": "Hero image", "description": "The hero image.", "assignees": ["Writer"], "instruction": "Draw it."}]'],
];

describe("each side-effecting tool acts once per cause", () => {
  test.each(CALLS)("%s: the same call after the model failed and the trigger started the run again → one effect, the same result; another cause → a new one (a delegation: the open task it made)", async (_label, write) => {
    const { t, taskId, rootId, say } = await setup();
    const call = write({ rootId });
    const asked = await say("Please get the launch copy going.");
    const first = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    const before = await sizes(t);
    const result = observed(await dispatch(t, first, call));
    expect(result).not.toMatch(/failed|refused|denied/);
    const afterFirst = await sizes(t);
    expect(afterFirst).not.toEqual(before);
    expect(afterFirst.toolEffects - before.toolEffects).toBe(call.includes("delegate_task") ? 0 : 1);

    // delegate_task keeps its own key on the task it made (tasks.delegationKey) and says so on a repeat.
    const repeated = call.includes("delegate_task") ? JSON.stringify({ ...(JSON.parse(result) as object), alreadyExisted: true, note: ALREADY_DELEGATED }) : result;
    // A second attempt of the same run repeats the call: nothing new.
    expect(observed(await dispatch(t, first, call))).toBe(repeated);
    expect(await sizes(t)).toEqual(afterFirst);

    // The model fails; the same trigger starts the run again, and it makes the same call.
    await fail(t, first);
    const retried = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    expect(observed(await dispatch(t, retried, call))).toBe(repeated);
    expect(await sizes(t)).toEqual(afterFirst);

    // Another cause (a new message asking again) acts again, unless the effect itself forbids it.
    await fail(t, retried);
    const again = await say("And once more, please.");
    const afterSay = await sizes(t);
    const other = await startRun(t, taskId, { kind: "mentioned", messageId: again });
    const otherResult = observed(await dispatch(t, other, call));
    if (call.includes("create_channel")) {
      // A channel name is taken once: the new cause is told so instead of getting the old result.
      expect(otherResult).toMatch(/create_channel failed: .*(taken|exists)/i);
    } else if (call.includes("delegate_task")) {
      // Delegation is idempotent by what it asks: the open task it made under this parent is the answer.
      expect(otherResult).toBe(repeated);
      expect(await sizes(t)).toEqual(afterSay);
    } else {
      expect(await sizes(t)).not.toEqual(afterSay);
    }
  });

  test("update_task_status: a repeat from the same cause does not move the task back after a person moved it", async () => {
    const { t, admin, taskId, say } = await setup();
    // An agent moves only its own work (tools/thread requireTaskOfAgent): Jarvis is on this task.
    await t.run(async (ctx) => await ctx.db.patch("tasks", taskId, { assigneeSessionKeys: [AGENTS.jarvis] }));
    const asked = await say("Move it to review when ready.");
    const first = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    const line = '[TOOL: update_task_status ARG: {"status": "review"}]';
    const result = observed(await dispatch(t, first, line));
    expect(result).toBe("moved the task from inbox to review");
    await admin.mutation(api.tasks.setStatus, { taskId, status: "in_progress" });
    await fail(t, first);
    const retried = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    expect(observed(await dispatch(t, retried, line))).toBe(result);
    expect((await admin.query(api.tasks.get, { taskId })).status).toBe("in_progress");
    // A new request moves it.
    await fail(t, retried);
    const other = await startRun(t, taskId, { kind: "mentioned", messageId: await say("Review it now.") });
    expect(observed(await dispatch(t, other, line))).toBe("moved the task from in_progress to review");
  });

  test("an approved call that acted is not asked about again when the same cause runs again; a new cause is", async () => {
    const { t, taskId, say } = await setup();
    const policy = (value: "always" | "never") =>
      t.run(async (ctx) => {
        const jarvis = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.jarvis)).unique())!;
        await ctx.db.patch("agents", jarvis._id, { toolApprovals: [{ tool: "post_message", policy: value }] });
      });
    const line = '[TOOL: post_message ARG: {"content": "Shipping the copy now."}]';
    const asked = await say("Post when the copy ships.");
    await policy("always");
    const first = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    expect(await dispatch(t, first, line)).toMatchObject({ pause: { kind: "approval", tool: "post_message" } });
    // The person approved and the call ran (as the resumed run does), then the model failed.
    await policy("never");
    const result = observed(await dispatch(t, first, line));
    await fail(t, first);
    await policy("always");
    const before = await sizes(t);
    // The same trigger starts the run again: the call returns what it did, with no second card.
    const retried = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    expect(observed(await dispatch(t, retried, line))).toBe(result);
    expect(await sizes(t)).toEqual(before);
    // A new request is asked about.
    await fail(t, retried);
    const other = await startRun(t, taskId, { kind: "mentioned", messageId: await say("Post it again please.") });
    expect(await dispatch(t, other, line)).toMatchObject({ pause: { kind: "approval", tool: "post_message" } });
  });

  test("a blocking DM is a cause of its own: two DMs asking the same get two answers", async () => {
    const { t, departmentId, admin, taskId } = await setup();
    const channelId = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.jarvis] });
    const first = await admin.mutation(api.channelMessages.post, { channelId, body: "@Jarvis status?", blocking: true });
    const second = await admin.mutation(api.channelMessages.post, { channelId, body: "@Jarvis status again?", blocking: true });
    const line = '[TOOL: post_message ARG: {"content": "On track."}]';
    const one = await startRun(t, taskId, { kind: "message", channelMessageId: first });
    observed(await dispatch(t, one, line));
    await fail(t, one);
    const before = await sizes(t);
    const two = await startRun(t, taskId, { kind: "message", channelMessageId: second });
    observed(await dispatch(t, two, line));
    expect((await sizes(t)).messages).toBe(before.messages + 1);
  });

  test("a failed effect records nothing: the next call tries again", async () => {
    const { t, admin, departmentId, taskId, say } = await setup();
    const asked = await say("Post in #later.");
    const first = await startRun(t, taskId, { kind: "mentioned", messageId: asked });
    const line = '[TOOL: post_message ARG: {"content": "Here.", "channel": "#later"}]';
    expect(observed(await dispatch(t, first, line))).toMatch(/post_message failed: No channel #later/);
    expect((await sizes(t)).toolEffects).toBe(0);
    await admin.mutation(api.channels.create, { departmentId, name: "later", visibility: "project" });
    expect(observed(await dispatch(t, first, line))).toMatch(/^posted in #later/);
  });
});

describe("old effects are forgotten", () => {
  const insertEffect = (t: TestConvex, key: string) =>
    t.run(async (ctx) => await ctx.db.insert("toolEffects", { key, tool: "post_message", result: "null" }));
  const keys = async (t: TestConvex) => (await t.run(async (ctx) => await ctx.db.query("toolEffects").collect())).map((e) => e.key);

  test("after the TTL (a week, at least twice the pause TTL) a sweep deletes them, oldest first; younger ones stay and still de-duplicate", async () => {
    const t = setupTest();
    expect(effectTtlMs({})).toBe(MIN_EFFECT_TTL_MS);
    expect(effectTtlMs({ MAESTRO_APPROVAL_TTL_MS: String(5 * 24 * 60 * 60_000) })).toBe(10 * 24 * 60 * 60_000);
    await insertEffect(t, "old");
    vi.advanceTimersByTime(MIN_EFFECT_TTL_MS - 60_000);
    await insertEffect(t, "young");
    expect(await t.mutation(internal.sweeps.oldToolEffects, {})).toEqual({ deleted: 0 });
    vi.advanceTimersByTime(2 * 60_000);
    expect(await t.mutation(internal.sweeps.oldToolEffects, {})).toEqual({ deleted: 1 });
    expect(await keys(t)).toEqual(["young"]);
  });

  test("a backlog bigger than a pass is finished by passes scheduled at once", async () => {
    const t = setupTest();
    for (let i = 0; i < EFFECT_SWEEP_BATCH + 3; i++) await insertEffect(t, `effect ${i}`);
    vi.advanceTimersByTime(MIN_EFFECT_TTL_MS + 1);
    expect(await t.mutation(internal.sweeps.oldToolEffects, {})).toEqual({ deleted: EFFECT_SWEEP_BATCH });
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    expect(await keys(t)).toEqual([]);
  });

  test("the sweep is a cron", () => {
    expect(crons.crons["forget old tool effects"]).toMatchObject({ name: "sweeps:oldToolEffects", schedule: { type: "interval", hours: 1 } });
  });
});
