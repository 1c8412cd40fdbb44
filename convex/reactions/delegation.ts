/**
 * A delegation: a public task for the named agents, under the delegator's
 * task, with the first instruction posted in its thread (its @mentions
 * notify the assignees, whose assignment wakes them). The guards that span
 * runs are checked first, in the same transaction: the delegation depth,
 * the task tree's budget and, on a result, re-delegating the same work.
 * Used by delegate_task and /delegate.
 */
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx } from "../_generated/server";
import { brainConfig } from "../lib/brainConfig";
import { guards, maxDelegationsPerTree, sameWork } from "../lib/guards";
import { MAX_SUBTASKS } from "../lib/limits";
import type { GuardStop } from "../lib/notes";
import { recordActivity } from "../records/activities";
import { agentBySessionKey } from "../records/agents";
import { personWroteSince } from "../records/messages";
import { delegationTree, subtasksOf } from "../records/tasks";
import type { Actor } from "../validators";
import { delegationCreated } from "./a2a";
import { createTask, leadHoldsParent, reflectSubtasks } from "./taskChange";
import { postToThread } from "./threadPost";

/** Thread messages read to see whether a person asked for more. */
const MAX_MESSAGES_SCANNED = 200;

/** Who delegates: an agent (delegate_task) or a person (/delegate); `delegatedBy` is what the task's badge names. */
export interface Delegator {
  actor: Actor;
  delegatedBy: string;
}

export interface Delegation {
  departmentId: Id<"departments">;
  title: string;
  description: string;
  assigneeSessionKeys: string[];
  instruction: string;
  priority?: Doc<"tasks">["priority"];
  tags?: string[];
  parentTaskId?: Id<"tasks">;
  /** The channel the task is followed in (`/delegate` typed there); else its parent's, if any. */
  channelId?: Id<"channels">;
  /** The call's idempotency key, kept on the task (lib/idempotency). */
  key?: string;
  /** The delegator was woken by a result of its own delegation: the re-delegation detector applies. */
  onResult?: boolean;
}

/** The delegated task (`created: false` when the same call made it already), or the guard that stopped it. */
export type Delegated = { ok: true; taskId: Id<"tasks">; title: string; created: boolean } | { ok: false; guard: GuardStop };

/** The guard a delegation under `parentTaskId` trips, or null. */
async function treeGuard(ctx: MutationCtx, parentTaskId: Id<"tasks">, title: string, onResult: boolean): Promise<GuardStop | null> {
  const { maxDelegationDepth } = brainConfig();
  const budget = maxDelegationsPerTree(env);
  const tree = await delegationTree(ctx, parentTaskId, budget);
  if (tree.depth >= maxDelegationDepth) return guards.depth(tree.depth, maxDelegationDepth);
  if (tree.delegations >= budget) return guards.treeBudget(budget, tree.root.title);
  if (!onResult) return null;
  // On a result: the same work again is refused, unless a person has written in the thread since (asked for more).
  const { subtasks } = await subtasksOf(ctx, parentTaskId, MAX_SUBTASKS);
  const repeated = sameWork(title, subtasks.filter((t) => t.delegatedBy !== undefined));
  if (repeated === undefined || (await personWroteSince(ctx, parentTaskId, repeated._creationTime, MAX_MESSAGES_SCANNED))) return null;
  return guards.redelegation(repeated.title, repeated.status);
}

/** Creates a delegated task and its first instruction message, after the guards that span runs. */
export async function createDelegation(ctx: MutationCtx, delegator: Delegator, args: Delegation): Promise<Delegated> {
  if (args.parentTaskId !== undefined) {
    const guard = await treeGuard(ctx, args.parentTaskId, args.title, args.onResult === true);
    if (guard !== null) return { ok: false, guard };
  }
  const { actor } = delegator;
  const parent = args.parentTaskId === undefined ? null : await ctx.db.get("tasks", args.parentTaskId);
  const followedIn = args.channelId ?? parent?.channelId;
  const task = await createTask(ctx, actor, {
    departmentId: args.departmentId,
    title: args.title,
    description: args.description,
    priority: args.priority,
    tags: args.tags,
    assigneeSessionKeys: args.assigneeSessionKeys,
    parentTaskId: args.parentTaskId,
    delegatedBy: delegator.delegatedBy,
    delegationKey: args.key,
    // Delegated work is followed where it was asked for, else where its parent's is.
    ...(followedIn === undefined ? {} : { channelId: followedIn }),
  });
  const names = [];
  for (const key of args.assigneeSessionKeys) {
    const agent = await agentBySessionKey(ctx, key);
    if (agent !== null) names.push(agent.name);
  }
  const mentions = names.map((name) => `@${name}`).join(" ");
  await postToThread(ctx, actor, task, `${mentions} ${args.instruction.trim()}`);
  await delegationCreated(ctx, actor, task);
  await recordActivity(ctx, {
    departmentId: args.departmentId,
    type: "delegation_created",
    actor,
    taskId: task._id,
    data: { title: task.title, assignees: names.join(", "), parentTitle: parent?.title ?? null },
  });
  if (parent !== null) {
    // The parent it was split from is the lead's to follow, and reflects its subtasks.
    const lead = actor.kind === "agent" ? await agentBySessionKey(ctx, actor.sessionKey) : null;
    if (lead !== null) await leadHoldsParent(ctx, parent, lead);
    // A new subtask is open: a parent already In progress stays so (a reply's second delegation reads nothing more).
    if (parent.status !== "in_progress") await reflectSubtasks(ctx, parent._id);
  }
  return { ok: true, taskId: task._id, title: task.title, created: true };
}
