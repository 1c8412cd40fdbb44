import { v, type Infer } from "convex/values";
import { internal } from "../_generated/api";
import type { Doc, Id } from "../_generated/dataModel";
import { env, internalAction, internalMutation, internalQuery, type MutationCtx } from "../_generated/server";
import { MAX_AGENTS_PER_DEPARTMENT } from "../agents";
import { agentActor } from "../lib/actors";
import type { Actor } from "../validators";
import { resolveAgentNames, type RosterEntry } from "../lib/agentNames";
import { recordActivity } from "../lib/activity";
import { MaestroError } from "../lib/errors";
import { postMessage } from "../messages";
import { createTask, getTaskX } from "../tasks";
import { taskQuery } from "../functions";
import { vPriority, vTaskStatus } from "../validators";
import { brainConfig } from "../brain/config";
import { guards, maxDelegationsPerTree, sameWork } from "./guards";

const vDelegationArgs = {
  departmentId: v.id("departments"),
  delegatorSessionKey: v.string(),
  title: v.string(),
  description: v.string(),
  assignees: v.array(v.string()),
  instruction: v.string(),
  priority: v.optional(vPriority),
  tags: v.optional(v.array(v.string())),
  /** The task the delegator was working on: the new task's parent. */
  parentTaskId: v.optional(v.id("tasks")),
  /** The call's idempotency key (tools/idempotency): the same call from the same cause finds the same task. */
  key: v.optional(v.string()),
  /** The delegator was woken by a result of its own delegation: the re-delegation detector applies. */
  onResult: v.optional(v.boolean()),
};

const vGuardStop = v.object({ reason: v.string(), choices: v.string() });

/** The spec's result when the task exists (`created: false` when an earlier identical call made it), or why not. */
const vDelegationResult = v.union(
  v.object({
    ok: v.literal(true),
    taskId: v.id("tasks"),
    title: v.string(),
    assigneesResolved: v.array(v.string()),
    assigneesRequested: v.array(v.string()),
    created: v.boolean(),
  }),
  v.object({ ok: v.literal(false), problem: v.literal("guard"), guard: vGuardStop }),
  v.object({
    ok: v.literal(false),
    problem: v.union(v.literal("unknown_assignee"), v.literal("invalid")),
    message: v.string(),
    /** The agents the delegator could have named. */
    squad: v.array(v.string()),
  }),
);
export type DelegationResult = Infer<typeof vDelegationResult>;

const vDelegationRoster = v.object({
  delegator: v.union(v.object({ name: v.string(), sessionKey: v.string() }), v.null()),
  roster: v.array(v.object({ name: v.string(), role: v.string(), sessionKey: v.string() })),
});
type DelegationRoster = Infer<typeof vDelegationRoster>;

/** The delegator (who must be an agent of the department) and the roster it may delegate to. */
export const delegationRoster = internalQuery({
  args: { departmentId: v.id("departments"), delegatorSessionKey: v.string() },
  returns: vDelegationRoster,
  handler: async (ctx, { departmentId, delegatorSessionKey }) => {
    const agents = await ctx.db
      .query("agents")
      .withIndex("by_department_and_nameKey", (q) => q.eq("departmentId", departmentId))
      .take(MAX_AGENTS_PER_DEPARTMENT);
    const delegator = agents.find((a) => a.sessionKey === delegatorSessionKey);
    return {
      delegator: delegator === undefined ? null : { name: delegator.name, sessionKey: delegator.sessionKey },
      roster: agents.map((a) => ({ name: a.name, role: a.role, sessionKey: a.sessionKey })),
    };
  },
});

/** Where a delegation under `parentTaskId` would stand: its depth, its tree's root and the tree's delegations so far (up to `budget`). */
async function delegationTree(ctx: MutationCtx, parentTaskId: Id<"tasks">, budget: number) {
  // Depth counts the unbroken chain of delegations above; the root is the topmost task whatever made it.
  let depth = 0;
  let counting = true;
  let root = await getTaskX(ctx, parentTaskId);
  for (let current: Doc<"tasks"> | null = root, hops = 0; current !== null && hops < MAX_TREE_HOPS; hops++) {
    if (counting && current.delegatedBy !== undefined) depth += 1;
    else counting = false;
    root = current;
    current = current.parentTaskId === undefined ? null : await ctx.db.get("tasks", current.parentTaskId);
  }
  // Breadth first from the root, stopping as soon as the budget is reached: reads stay bounded by it.
  let delegations = 0;
  const queue: Array<Id<"tasks">> = [root._id];
  while (queue.length > 0 && delegations < budget) {
    const children = await ctx.db
      .query("tasks")
      .withIndex("by_parent", (q) => q.eq("parentTaskId", queue.shift()))
      .take(budget + 1);
    for (const child of children) {
      if (child.delegatedBy !== undefined) delegations += 1;
      queue.push(child._id);
    }
  }
  return { depth, root, delegations: Math.min(delegations, budget) };
}

/**
 * On a result, the delegator repeating a subtask of this task it already
 * delegated, unless a person has written in the thread since (asked for more).
 */
async function redelegatedWork(ctx: MutationCtx, parentTaskId: Id<"tasks">, title: string) {
  const subtasks = await ctx.db
    .query("tasks")
    .withIndex("by_parent", (q) => q.eq("parentTaskId", parentTaskId))
    .take(MAX_SUBTASKS);
  const repeated = sameWork(title, subtasks.filter((t) => t.delegatedBy !== undefined));
  if (repeated === undefined) return null;
  const since = await ctx.db
    .query("messages")
    .withIndex("by_task", (q) => q.eq("taskId", parentTaskId).gt("_creationTime", repeated._creationTime))
    .take(MAX_MESSAGES_SCANNED);
  return since.some((m) => m.author.kind === "member") ? null : repeated;
}

/** Bound on the parent hops walked to a tree's root. */
const MAX_TREE_HOPS = 100;
/** Subtasks of one task the re-delegation detector compares with. */
export const MAX_SUBTASKS = 100;
/** Thread messages read to see whether a person asked for more. */
const MAX_MESSAGES_SCANNED = 200;

const vCreated = v.object({ ok: v.literal(true), taskId: v.id("tasks"), title: v.string(), created: v.boolean() });

/** Who delegates: an agent (delegate_task) or a person (/delegate); `delegatedBy` is what the task's badge names. */
export interface Delegator {
  actor: Actor;
  delegatedBy: string;
}

/**
 * Creates a delegated task and its first instruction message, after the
 * guards that span runs: the delegation depth, the task tree's budget and, on
 * a result, re-delegating the same work. Used by delegate_task and /delegate.
 */
export async function createDelegation(
  ctx: MutationCtx,
  delegator: Delegator,
  args: {
    departmentId: Id<"departments">;
    title: string;
    description: string;
    assigneeSessionKeys: string[];
    instruction: string;
    priority?: Doc<"tasks">["priority"];
    tags?: string[];
    parentTaskId?: Id<"tasks">;
    key?: string;
    onResult?: boolean;
  },
): Promise<Infer<typeof vCreated> | { ok: false; guard: Infer<typeof vGuardStop> }> {
  if (args.parentTaskId !== undefined) {
    const { maxDelegationDepth } = brainConfig();
    const budget = maxDelegationsPerTree(env);
    const tree = await delegationTree(ctx, args.parentTaskId, budget);
    if (tree.depth >= maxDelegationDepth) return { ok: false as const, guard: guards.depth(tree.depth, maxDelegationDepth) };
    if (tree.delegations >= budget) return { ok: false as const, guard: guards.treeBudget(budget, tree.root.title) };
    if (args.onResult === true) {
      const repeated = await redelegatedWork(ctx, args.parentTaskId, args.title);
      if (repeated !== null) return { ok: false as const, guard: guards.redelegation(repeated.title, repeated.status) };
    }
  }
  const actor = delegator.actor;
  const taskId = await createTask(ctx, actor, {
    departmentId: args.departmentId,
    title: args.title,
    description: args.description,
    priority: args.priority,
    tags: args.tags,
    assigneeSessionKeys: args.assigneeSessionKeys,
    parentTaskId: args.parentTaskId,
    delegatedBy: delegator.delegatedBy,
  });
  if (args.key !== undefined) await ctx.db.patch("tasks", taskId, { delegationKey: args.key });
  const task = await getTaskX(ctx, taskId);
  const names = [];
  for (const key of args.assigneeSessionKeys) {
    const agent = await ctx.db
      .query("agents")
      .withIndex("by_sessionKey", (q) => q.eq("sessionKey", key))
      .unique();
    if (agent !== null) names.push(agent.name);
  }
  const mentions = names.map((name) => `@${name}`).join(" ");
  await postMessage(ctx, actor, task, `${mentions} ${args.instruction.trim()}`);
  await recordActivity(ctx, {
    departmentId: args.departmentId,
    type: "delegation_created",
    actor,
    taskId,
    data: { title: task.title, assignees: names.join(", "), parentTitle: args.parentTaskId === undefined ? null : ((await ctx.db.get("tasks", args.parentTaskId))?.title ?? null) },
  });
  return { ok: true as const, taskId, title: task.title, created: true };
}

/**
 * Creates the delegated task and its first instruction message in one
 * transaction, so a delegation is never half made. Idempotent by key. The
 * guards that span runs are checked here, in the same transaction: the
 * delegation depth, the task tree's budget and, on a result, re-delegating
 * the same work.
 */
export const createDelegatedTask = internalMutation({
  args: {
    departmentId: v.id("departments"),
    delegatorSessionKey: v.string(),
    title: v.string(),
    description: v.string(),
    assigneeSessionKeys: v.array(v.string()),
    instruction: v.string(),
    priority: v.optional(vPriority),
    tags: v.optional(v.array(v.string())),
    parentTaskId: v.optional(v.id("tasks")),
    key: v.optional(v.string()),
    onResult: v.optional(v.boolean()),
  },
  returns: v.union(vCreated, v.object({ ok: v.literal(false), guard: vGuardStop })),
  handler: async (ctx, args) => {
    if (args.key !== undefined) {
      const existing = await ctx.db
        .query("tasks")
        .withIndex("by_delegationKey", (q) => q.eq("delegationKey", args.key))
        .first();
      if (existing !== null) return { ok: true as const, taskId: existing._id, title: existing.title, created: false };
    }
    const delegator = await ctx.db
      .query("agents")
      .withIndex("by_sessionKey", (q) => q.eq("sessionKey", args.delegatorSessionKey))
      .unique();
    if (delegator === null || delegator.departmentId !== args.departmentId) {
      throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
    }
    return await createDelegation(ctx, { actor: agentActor(delegator), delegatedBy: delegator.sessionKey }, args);
  },
});

type DelegationProblem = Extract<DelegationResult, { problem: "unknown_assignee" | "invalid" }>;

/**
 * The checks every delegation passes before anything is written (delegate_task
 * and /delegate, named by `label` in the errors): a title, an instruction, at
 * least one assignee, every name resolving to an agent of the roster, and
 * never the delegating agent itself (`delegator` is null for a person).
 */
export function checkDelegation(
  input: { title: string; instruction: string; assignees: string[] },
  roster: RosterEntry[],
  delegator: { name: string; sessionKey: string } | null,
  label: string,
): { ok: true; resolved: RosterEntry[] } | DelegationProblem {
  const squad = roster.filter((a) => a.sessionKey !== delegator?.sessionKey).map((a) => a.name);
  const invalid = (message: string) => ({ ok: false as const, problem: "invalid" as const, message, squad });
  if (input.title === "") return invalid(`${label} needs a title.`);
  if (input.instruction === "") return invalid(`${label} needs an instruction for the assignees.`);
  if (input.assignees.length === 0) return invalid(`${label} needs at least one assignee: name agents from the squad roster.`);
  const { resolved, unknown } = resolveAgentNames(input.assignees, roster);
  if (unknown.length > 0) {
    const detail = unknown
      .map((u) => `"${u.requested}"${u.suggestions.length > 0 ? ` (did you mean ${u.suggestions.join(" or ")}?)` : ""}`)
      .join(", ");
    return {
      ok: false,
      problem: "unknown_assignee",
      message: `Unknown assignee${unknown.length > 1 ? "s" : ""}: ${detail}. The squad is: ${squad.join(", ")}.`,
      squad,
    };
  }
  if (delegator !== null && resolved.some((agent) => agent.sessionKey === delegator.sessionKey)) {
    return invalid(`${delegator.name} cannot delegate to themselves; pick another agent from the roster.`);
  }
  return { ok: true, resolved };
}

/**
 * `delegate_task`: resolves the assignees by name within the delegator's
 * department, creates a public task assigned to them with `parentTaskId` and
 * `delegatedBy`, and posts the first instruction from the delegator, starting
 * with the assignees' @mentions. Their assignment wakes them. What the model
 * got wrong (unknown names, itself as assignee) and guard stops come back as
 * typed results, not thrown errors.
 */
export const delegateTask = internalAction({
  args: vDelegationArgs,
  returns: vDelegationResult,
  // Annotated: it calls functions of its own module, which TypeScript cannot infer through.
  handler: async (ctx, args): Promise<DelegationResult> => {
    const title = args.title.trim();
    const instruction = args.instruction.trim();
    const { delegator, roster }: DelegationRoster = await ctx.runQuery(internal.tools.delegation.delegationRoster, {
      departmentId: args.departmentId,
      delegatorSessionKey: args.delegatorSessionKey,
    });
    if (delegator === null) throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
    const check = checkDelegation({ title, instruction, assignees: args.assignees }, roster, delegator, "delegate_task");
    if (!check.ok) return check;
    const { resolved } = check;
    const created = await ctx.runMutation(internal.tools.delegation.createDelegatedTask, {
      departmentId: args.departmentId,
      delegatorSessionKey: delegator.sessionKey,
      title,
      description: args.description,
      assigneeSessionKeys: resolved.map((a) => a.sessionKey),
      instruction,
      priority: args.priority,
      tags: args.tags,
      parentTaskId: args.parentTaskId,
      key: args.key,
      onResult: args.onResult,
    });
    if (!created.ok) return { ok: false, problem: "guard", guard: created.guard };
    return {
      ok: true,
      taskId: created.taskId,
      title: created.title,
      assigneesResolved: resolved.map((a) => a.name),
      assigneesRequested: args.assignees,
      created: created.created,
    };
  },
});

/**
 * A task's subtasks (what was delegated from it), oldest first, with their
 * live status and assignees: the drawer lists them under the parent.
 */
export const listSubtasks = taskQuery({
  args: {},
  returns: v.object({
    subtasks: v.array(
      v.object({
        _id: v.id("tasks"),
        title: v.string(),
        status: vTaskStatus,
        assignees: v.array(v.string()),
        delegatedBy: v.optional(v.string()),
        updatedAt: v.number(),
      }),
    ),
    /** More subtasks exist than are listed. */
    truncated: v.boolean(),
  }),
  handler: async (ctx, { taskId }) => {
    const children = await ctx.db
      .query("tasks")
      .withIndex("by_parent", (q) => q.eq("parentTaskId", taskId))
      .take(MAX_SUBTASKS + 1);
    const names = new Map<string, string>();
    const nameOf = async (sessionKey: string) => {
      if (!names.has(sessionKey)) {
        const agent = await ctx.db
          .query("agents")
          .withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey))
          .unique();
        // A person who delegated with /delegate is recorded by name, not by an agent's session key.
        names.set(sessionKey, agent?.name ?? (sessionKey.startsWith("agent:") ? "an agent that was removed" : sessionKey));
      }
      return names.get(sessionKey)!;
    };
    const subtasks = [];
    for (const child of children.slice(0, MAX_SUBTASKS)) {
      const assignees = [];
      for (const key of child.assigneeSessionKeys) assignees.push(await nameOf(key));
      subtasks.push({
        _id: child._id,
        title: child.title,
        status: child.status,
        assignees,
        delegatedBy: child.delegatedBy === undefined ? undefined : await nameOf(child.delegatedBy),
        updatedAt: child.updatedAt,
      });
    }
    return { subtasks, truncated: children.length > MAX_SUBTASKS };
  },
});
