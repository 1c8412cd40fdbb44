/**
 * The bulk path `npm run bench:scale` seeds a department at ten times the
 * demo's size with (internal: the admin key only). Each mutation writes one
 * bounded batch through the same records, checks and secret scan as the
 * public functions: tasks through `insertTask` (what tasks.create calls),
 * thread messages through `insertMessage` (messages.create), runs through
 * `insertRun` and `appendRunEvent` (the brain's writes), a long run's
 * events through `appendRunEvent` and the stream's own validator. Channel messages
 * are cleaned, scanned and their mentions resolved as a post is
 * (reactions/delivery.ts), but not delivered to inboxes nor rate limited:
 * a seeded history, not 100,000 live posts.
 */
import { v } from "convex/values";
import { internalMutation } from "./_generated/server";
import { MaestroError } from "./lib/errors";
import { vRunEventPayload } from "./lib/runEvents";
import { LIMITS } from "./lib/limits";
import { cleanText } from "./lib/validate";
import { insertChannelMessage } from "./records/channelMessages";
import { insertMessage, mentionsIn } from "./records/messages";
import { appendRunEvent } from "./records/runEvents";
import { insertRun, markEnded, markRunning } from "./records/runs";
import { redactForDepartment } from "./records/settings";
import { insertTask, placeTask } from "./records/tasks";
import { TASK_STATUSES } from "./validators";

/** Most rows one call writes: well inside Convex's 16,000 documents written per transaction. */
export const MAX_SEED_BATCH = 500;

function checkBatch(count: number) {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_BATCH) {
    throw new MaestroError("INVALID_ARGUMENT", `A batch holds 1 to ${MAX_SEED_BATCH} rows.`);
  }
}

/** `count` tasks numbered from `startIndex`, assigned in turn to `assignees`, spread over the columns. */
export const tasks = internalMutation({
  args: { departmentId: v.id("departments"), startIndex: v.number(), count: v.number(), assignees: v.array(v.string()) },
  returns: v.array(v.id("tasks")),
  handler: async (ctx, { departmentId, startIndex, count, assignees }) => {
    checkBatch(count);
    const ids = [];
    for (let i = startIndex; i < startIndex + count; i++) {
      const { task } = await insertTask(ctx, { kind: "system" }, {
        departmentId,
        title: `Task ${i}: ${["Fix", "Write", "Review", "Design"][i % 4]} the ${["signup", "pricing", "docs", "api"][i % 4]} flow`,
        description: "Seeded by the scale benchmark.",
        priority: (["low", "medium", "high"] as const)[i % 3],
        tags: [`area-${i % 7}`],
        assigneeSessionKeys: i % 5 === 0 || assignees.length === 0 ? [] : [assignees[i % assignees.length]],
      });
      const status = TASK_STATUSES[i % TASK_STATUSES.length];
      if (status !== task.status && status !== "blocked") await placeTask(ctx, task, status);
      ids.push(task._id);
    }
    return ids;
  },
});

/** `perTask` thread messages on each task, written by the system. */
export const messages = internalMutation({
  args: { taskIds: v.array(v.id("tasks")), perTask: v.number(), startIndex: v.number() },
  returns: v.null(),
  handler: async (ctx, { taskIds, perTask, startIndex }) => {
    checkBatch(taskIds.length * perTask);
    for (const taskId of taskIds) {
      const task = await ctx.db.get("tasks", taskId);
      if (task === null) throw new MaestroError("NOT_FOUND", "Task not found.");
      for (let i = 0; i < perTask; i++) {
        await insertMessage(ctx, { kind: "system" }, task, `Update ${startIndex + i}: progress on this task, see the **notes** below.`);
      }
    }
    return null;
  },
});

/** `count` top-level messages in a channel, as its member `senderKey` (named `senderName`) would post them. */
export const channelMessages = internalMutation({
  args: { channelId: v.id("channels"), senderKey: v.string(), senderName: v.string(), count: v.number(), startIndex: v.number() },
  returns: v.null(),
  handler: async (ctx, { channelId, senderKey, senderName, count, startIndex }) => {
    checkBatch(count);
    const channel = await ctx.db.get("channels", channelId);
    if (channel === null) throw new MaestroError("NOT_FOUND", "Channel not found.");
    const userId = senderKey.replace(/^member:/, "");
    const from = { kind: "member" as const, userId: ctx.db.normalizeId("users", userId)!, name: senderName };
    for (let i = startIndex; i < startIndex + count; i++) {
      const body = await redactForDepartment(ctx, channel.departmentId, "message", cleanText("A message", `Channel note ${i}: the ${["build", "launch", "review"][i % 3]} is on track.`, LIMITS.messageChars));
      await insertChannelMessage(ctx, {
        departmentId: channel.departmentId,
        channelId,
        type: "channel",
        from,
        body,
        mentions: await mentionsIn(ctx, channel.departmentId, body),
        artifacts: [],
        importance: "normal",
        blocking: false,
        context: {},
        replyCount: 0,
      });
    }
    return null;
  },
});

/** A finished run of each agent on each task (pairs in order), with its events, as the brain writes them. */
export const runs = internalMutation({
  args: { pairs: v.array(v.object({ agentId: v.id("agents"), taskId: v.id("tasks") })) },
  returns: v.null(),
  handler: async (ctx, { pairs }) => {
    checkBatch(pairs.length * 5);
    for (const { agentId, taskId } of pairs) {
      const agent = await ctx.db.get("agents", agentId);
      if (agent === null) throw new MaestroError("NOT_FOUND", "Agent not found.");
      const runId = await insertRun(ctx, agent, taskId, { kind: "assigned" });
      await appendRunEvent(ctx, runId, { type: "control_submitted", action: "start", by: "Maestro", note: "assigned" });
      await markRunning(ctx, runId);
      await appendRunEvent(ctx, runId, { type: "agent_start", agentName: agent.name, model: "maestro-demo", attempt: 1 });
      await appendRunEvent(ctx, runId, { type: "message_start", round: 1 });
      await appendRunEvent(ctx, runId, { type: "message_end", model: "maestro-demo", promptTokens: 900, completionTokens: 120, interrupted: false });
      await appendRunEvent(ctx, runId, { type: "agent_end", reason: "complete", detail: "" });
      await markEnded(ctx, runId, "completed", "replied");
    }
    return null;
  },
});

/** `payloads` appended to a run's event stream in order (one bounded batch of a long run). */
export const runEvents = internalMutation({
  args: { runId: v.id("runs"), payloads: v.array(vRunEventPayload) },
  returns: v.number(),
  handler: async (ctx, { runId, payloads }) => {
    checkBatch(payloads.length);
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    let seq = 0;
    for (const payload of payloads) seq = await appendRunEvent(ctx, runId, payload, { run });
    return seq;
  },
});

/** Does nothing: what `npm run bench:chat` measures a #maestro post's backend CPU against (the cost of any mutation). */
export const noop = internalMutation({
  args: {},
  returns: v.null(),
  handler: async () => null,
});
