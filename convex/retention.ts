/**
 * Retention per department (messaging spec, "Retention"; lib/retention):
 * admins read and set the policy in the department's settings, and an
 * hourly cron applies it in bounded passes — a few conversations and a
 * batch of files per transaction, each pass scheduling the next page. A thread is kept whole while any of it is inside the
 * window; nothing newer than the window or within the cap is touched.
 * The history (feed, notifications, handled wake-ups, ended runs' steps)
 * has passes of its own, each a batch of every kind, until none is left.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import { env, internalMutation, type MutationCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { checkRetention, retains, retentionCutoffs, retentionDayMs, type RetentionPolicy } from "./lib/retention";
import { deleteActivitiesBefore } from "./records/activities";
import { deleteThread, topLevelBefore, topLevelBeyond } from "./records/channelMessages";
import { deleteFilesBefore } from "./records/channelFiles";
import { conversationsPage } from "./records/channels";
import { deleteNotificationsBefore } from "./records/notifications";
import { deleteRunSteps } from "./records/runEvents";
import { isActive, markStepsDeleted, runsCreatedBetween } from "./records/runs";
import { departmentsWithRetention, retentionOf, runStepsSweptBeforeOf, saveRetention, saveRunStepsSweptBefore } from "./records/settings";
import { deleteHandledTriggersBefore } from "./records/triggers";

const vPolicy = v.object({
  messageTtlDays: v.optional(v.number()),
  maxMessagesPerConversation: v.optional(v.number()),
  artifactTtlDays: v.optional(v.number()),
  historyTtlDays: v.optional(v.number()),
});

/** Conversations one pass looks at. */
const CONVERSATIONS_PER_PASS = 20;
/** Threads one pass deletes per conversation, and files per pass. */
export const RETENTION_BATCH = 50;
/** Rows of each history kind one pass deletes (feed entries, notifications, wake-ups, run steps). */
export const HISTORY_BATCH = 200;
/** Runs one history pass looks at. */
const RUNS_PER_PASS = 50;

/** Admins: the department's retention policy ({}: everything is kept). */
export const get = departmentQuery({
  role: "admin",
  args: {},
  returns: vPolicy,
  handler: async (ctx, { departmentId }) => await retentionOf(ctx, departmentId),
});

/** Admins: replaces the policy; a field left out keeps everything of its kind. */
export const update = departmentMutation({
  role: "admin",
  args: { policy: vPolicy },
  returns: v.null(),
  handler: async (ctx, { departmentId, policy }) => {
    await saveRetention(ctx, departmentId, checkRetention(policy));
    return null;
  },
});

/** The cron: one pass for every department with a policy. */
export const sweep = internalMutation({
  args: {},
  returns: v.number(),
  handler: async (ctx) => {
    const departments = await departmentsWithRetention(ctx);
    for (const departmentId of departments) {
      await ctx.scheduler.runAfter(0, internal.retention.sweepDepartment, { departmentId, cursor: null, files: true });
      await ctx.scheduler.runAfter(0, internal.retention.sweepHistory, { departmentId });
    }
    return departments.length;
  },
});

/** Deletes what `policy` says is past its time in one conversation, a batch at most; returns the threads deleted. */
async function sweepConversation(ctx: MutationCtx, channelId: Id<"channels">, policy: RetentionPolicy, messagesBefore: number | undefined): Promise<number> {
  let deleted = 0;
  if (messagesBefore !== undefined) {
    for (const root of await topLevelBefore(ctx, channelId, messagesBefore, RETENTION_BATCH)) {
      // A thread someone answered inside the window is kept whole.
      if ((root.lastReplyAt ?? root._creationTime) >= messagesBefore) continue;
      if (await deleteThread(ctx, root)) deleted += 1;
    }
  }
  if (policy.maxMessagesPerConversation !== undefined) {
    for (const root of await topLevelBeyond(ctx, channelId, policy.maxMessagesPerConversation, RETENTION_BATCH)) {
      if (await deleteThread(ctx, root)) deleted += 1;
    }
  }
  return deleted;
}

/**
 * One bounded pass over a department: a batch of its files past their
 * window, then a page of conversations, a batch of threads each; the next
 * page (and, while batches of files come back full, more files) is
 * scheduled as its own pass. A conversation with more than a batch to
 * delete is finished by the next hourly passes.
 */
export const sweepDepartment = internalMutation({
  args: { departmentId: v.id("departments"), cursor: v.union(v.string(), v.null()), files: v.boolean() },
  returns: v.object({ threads: v.number(), files: v.number() }),
  handler: async (ctx, { departmentId, cursor, files }) => {
    const policy = await retentionOf(ctx, departmentId);
    if (!retains(policy)) return { threads: 0, files: 0 };
    const { messagesBefore, filesBefore } = retentionCutoffs(Date.now(), policy, retentionDayMs(env));
    const filesDeleted = files && filesBefore !== undefined ? await deleteFilesBefore(ctx, departmentId, filesBefore, RETENTION_BATCH) : 0;
    const page = await conversationsPage(ctx, departmentId, { numItems: CONVERSATIONS_PER_PASS, cursor });
    let threads = 0;
    for (const channel of page.page) threads += await sweepConversation(ctx, channel._id, policy, messagesBefore);
    const moreFiles = filesDeleted === RETENTION_BATCH;
    if (!page.isDone) await ctx.scheduler.runAfter(0, internal.retention.sweepDepartment, { departmentId, cursor: page.continueCursor, files: moreFiles });
    else if (moreFiles) await ctx.scheduler.runAfter(0, internal.retention.sweepDepartment, { departmentId, cursor: null, files: true });
    return { threads, files: filesDeleted };
  },
});

/**
 * The steps of the department's runs that ended, created before `before`,
 * walked oldest first from where the last pass stopped, at most `limit`
 * steps. A run still going (waiting for a person, say) keeps its steps; a
 * run with more steps than are left of the batch is finished by the next
 * pass. Returns the steps deleted and whether runs are left to look at.
 */
async function deleteEndedRunSteps(ctx: MutationCtx, departmentId: Id<"departments">, before: number, limit: number): Promise<{ deleted: number; more: boolean }> {
  let left = limit;
  let sweptBefore = await runStepsSweptBeforeOf(ctx, departmentId);
  const start = sweptBefore;
  const runs = await runsCreatedBetween(ctx, departmentId, sweptBefore, before, RUNS_PER_PASS);
  for (const run of runs) {
    if (!isActive(run) && run.stepsDeletedAt === undefined) {
      const { deleted, done } = await deleteRunSteps(ctx, run._id, left);
      left -= deleted;
      if (!done) break;
      // A run that recorded no steps is left as it is: there is nothing its page would miss.
      if (deleted > 0) await markStepsDeleted(ctx, run._id, Date.now());
    }
    sweptBefore = run._creationTime;
    if (left === 0) break;
  }
  if (sweptBefore !== start) await saveRunStepsSweptBefore(ctx, departmentId, sweptBefore);
  return { deleted: limit - left, more: left === 0 || runs.length === RUNS_PER_PASS };
}

/**
 * One bounded pass of the department's history retention: a batch of each
 * kind past the window; another pass is scheduled while any batch came back
 * full. Tasks, messages and the runs themselves stay.
 */
export const sweepHistory = internalMutation({
  args: { departmentId: v.id("departments") },
  returns: v.object({ activities: v.number(), notifications: v.number(), triggers: v.number(), runSteps: v.number() }),
  handler: async (ctx, { departmentId }) => {
    const { historyBefore } = retentionCutoffs(Date.now(), await retentionOf(ctx, departmentId), retentionDayMs(env));
    if (historyBefore === undefined) return { activities: 0, notifications: 0, triggers: 0, runSteps: 0 };
    const runSteps = await deleteEndedRunSteps(ctx, departmentId, historyBefore, HISTORY_BATCH);
    const deleted = {
      activities: await deleteActivitiesBefore(ctx, departmentId, historyBefore, HISTORY_BATCH),
      notifications: await deleteNotificationsBefore(ctx, departmentId, historyBefore, HISTORY_BATCH),
      triggers: await deleteHandledTriggersBefore(ctx, departmentId, historyBefore, HISTORY_BATCH),
      runSteps: runSteps.deleted,
    };
    const full = deleted.activities === HISTORY_BATCH || deleted.notifications === HISTORY_BATCH || deleted.triggers === HISTORY_BATCH;
    if (full || runSteps.more) await ctx.scheduler.runAfter(0, internal.retention.sweepHistory, { departmentId });
    return deleted;
  },
});
