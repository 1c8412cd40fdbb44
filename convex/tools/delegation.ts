import { v, type Infer } from "convex/values";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import { internalAction, internalMutation, internalQuery, type MutationCtx } from "../_generated/server";
import { MAX_AGENTS_PER_DEPARTMENT } from "../agents";
import { agentActor } from "../lib/actors";
import { resolveAgentNames } from "../lib/agentNames";
import { recordActivity } from "../lib/activity";
import { MaestroError } from "../lib/errors";
import { postMessage } from "../messages";
import { createTask, getTaskX } from "../tasks";
import { vPriority } from "../validators";
import { brainConfig } from "../brain/config";

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
  /** The run making the call, so a retry of the same call finds the same task. */
  runId: v.optional(v.id("runs")),
};

const vDelegationResult = v.object({
  ok: v.literal(true),
  taskId: v.id("tasks"),
  title: v.string(),
  assigneesResolved: v.array(v.string()),
  assigneesRequested: v.array(v.string()),
});

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

/** FNV-1a over the call's canonical JSON: the same call in the same run gets the same key. */
export function delegationKey(runId: string, args: Record<string, unknown>): string {
  const canonical = JSON.stringify(args, Object.keys(args).sort());
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash ^= canonical.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${runId}:${hash.toString(16)}`;
}

/**
 * Creates the delegated task and its first instruction message in one
 * transaction, so a delegation is never half made. Idempotent by key.
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
  },
  returns: v.object({ taskId: v.id("tasks"), title: v.string(), created: v.boolean() }),
  handler: async (ctx, args) => {
    if (args.key !== undefined) {
      const existing = await ctx.db
        .query("tasks")
        .withIndex("by_delegationKey", (q) => q.eq("delegationKey", args.key))
        .first();
      if (existing !== null) return { taskId: existing._id, title: existing.title, created: false };
    }
    const delegator = await ctx.db
      .query("agents")
      .withIndex("by_sessionKey", (q) => q.eq("sessionKey", args.delegatorSessionKey))
      .unique();
    if (delegator === null || delegator.departmentId !== args.departmentId) {
      throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
    }
    if (args.parentTaskId !== undefined) {
      const depth = await delegationDepth(ctx, args.parentTaskId);
      const { maxDelegationDepth } = brainConfig();
      if (depth >= maxDelegationDepth) {
        throw new MaestroError(
          "INVALID_ARGUMENT",
          `delegation depth limit reached: this task is already ${depth} delegation(s) deep (limit ${maxDelegationDepth}); do the work or ask a human instead`,
        );
      }
    }
    const actor = agentActor(delegator);
    const taskId = await createTask(ctx, actor, {
      departmentId: args.departmentId,
      title: args.title,
      description: args.description,
      priority: args.priority,
      tags: args.tags,
      assigneeSessionKeys: args.assigneeSessionKeys,
      parentTaskId: args.parentTaskId,
      delegatedBy: delegator.sessionKey,
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
    return { taskId, title: task.title, created: true };
  },
});

/** How many delegations led to `taskId` (0 for a task a human created). */
async function delegationDepth(ctx: MutationCtx, taskId: Id<"tasks">): Promise<number> {
  let depth = 0;
  let current = await ctx.db.get("tasks", taskId);
  while (current?.delegatedBy !== undefined && depth < 100) {
    depth += 1;
    current = current.parentTaskId === undefined ? null : await ctx.db.get("tasks", current.parentTaskId);
  }
  return depth;
}

/**
 * `delegate_task`: resolves the assignees by name within the delegator's
 * department, creates a public task assigned to them with `parentTaskId` and
 * `delegatedBy`, and posts the first instruction from the delegator, starting
 * with the assignees' @mentions. Their assignment wakes them.
 */
export const delegateTask = internalAction({
  args: vDelegationArgs,
  returns: vDelegationResult,
  // Annotated: it calls functions of its own module, which TypeScript cannot infer through.
  handler: async (ctx, args): Promise<Infer<typeof vDelegationResult>> => {
    const title = args.title.trim();
    const instruction = args.instruction.trim();
    if (title === "") throw new MaestroError("INVALID_ARGUMENT", "delegate_task needs a title.");
    if (instruction === "") throw new MaestroError("INVALID_ARGUMENT", "delegate_task needs an instruction for the assignees.");
    if (args.assignees.length === 0) {
      throw new MaestroError("INVALID_ARGUMENT", "delegate_task needs at least one assignee: name agents from the squad roster.");
    }
    const { delegator, roster }: DelegationRoster = await ctx.runQuery(internal.tools.delegation.delegationRoster, {
      departmentId: args.departmentId,
      delegatorSessionKey: args.delegatorSessionKey,
    });
    if (delegator === null) throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
    const { resolved, unknown } = resolveAgentNames(args.assignees, roster);
    if (unknown.length > 0) {
      const detail = unknown
        .map((u) => `"${u.requested}"${u.suggestions.length > 0 ? ` (did you mean ${u.suggestions.join(" or ")}?)` : ""}`)
        .join(", ");
      throw new MaestroError(
        "INVALID_ARGUMENT",
        `Unknown assignee${unknown.length > 1 ? "s" : ""}: ${detail}. The squad is: ${roster.filter((a) => a.sessionKey !== delegator.sessionKey).map((a) => a.name).join(", ")}.`,
      );
    }
    if (resolved.some((agent) => agent.sessionKey === delegator.sessionKey)) {
      throw new MaestroError("INVALID_ARGUMENT", `${delegator.name} cannot delegate to themselves; pick another agent from the roster.`);
    }
    const key =
      args.runId === undefined
        ? undefined
        : delegationKey(args.runId, { title, description: args.description, assignees: resolved.map((a) => a.sessionKey), instruction });
    const created: { taskId: Id<"tasks">; title: string } = await ctx.runMutation(internal.tools.delegation.createDelegatedTask, {
      departmentId: args.departmentId,
      delegatorSessionKey: delegator.sessionKey,
      title,
      description: args.description,
      assigneeSessionKeys: resolved.map((a) => a.sessionKey),
      instruction,
      priority: args.priority,
      tags: args.tags,
      parentTaskId: args.parentTaskId,
      key,
    });
    return {
      ok: true as const,
      taskId: created.taskId,
      title: created.title,
      assigneesResolved: resolved.map((a) => a.name),
      assigneesRequested: args.assignees,
    };
  },
});
