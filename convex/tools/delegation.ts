/**
 * `delegate_task`'s executor (tools/registry): the roster it may name, the
 * delegation itself in one transaction (reactions/delegation), and the
 * action that checks the names before anything is written. What the model
 * got wrong (unknown names, itself as assignee) and guard stops come back as
 * typed results, not thrown errors.
 */
import { v, type Infer, type ObjectType } from "convex/values";
import { internal } from "../_generated/api";
import { internalAction, internalMutation, internalQuery, type MutationCtx } from "../_generated/server";
import { agentActor } from "../lib/actors";
import { answersDelegation, checkDelegation } from "../lib/delegation";
import { MAX_SUBTASKS } from "../lib/limits";
import { MaestroError } from "../lib/errors";
import { createDelegation } from "../reactions/delegation";
import { agentBySessionKey, departmentAgents } from "../records/agents";
import { subtasksOf, taskByDelegationKey } from "../records/tasks";
import { vPriority } from "../validators";

/** What every delegation names apart from its assignees. */
const vDelegationFields = {
  departmentId: v.id("departments"),
  delegatorSessionKey: v.string(),
  title: v.string(),
  description: v.string(),
  instruction: v.string(),
  priority: v.optional(vPriority),
  tags: v.optional(v.array(v.string())),
  /** The task the delegator was working on: the new task's parent. */
  parentTaskId: v.optional(v.id("tasks")),
  /** The call's idempotency key (lib/idempotency): the same call from the same cause finds the same task. */
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
    /** The requested names that resolved to no agent (the task went to the others), and why. */
    assigneesUnresolved: v.array(v.string()),
    unresolvedMessage: v.optional(v.string()),
    squad: v.array(v.string()),
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

/** The delegator (who must be an agent of the department) and the roster it may delegate to. */
export const delegationRoster = internalQuery({
  args: { departmentId: v.id("departments"), delegatorSessionKey: v.string() },
  returns: vDelegationRoster,
  handler: async (ctx, { departmentId, delegatorSessionKey }) => {
    const agents = await departmentAgents(ctx, departmentId);
    const delegator = agents.find((a) => a.sessionKey === delegatorSessionKey);
    return {
      delegator: delegator === undefined ? null : { name: delegator.name, sessionKey: delegator.sessionKey },
      roster: agents.map((a) => ({ name: a.name, role: a.role, sessionKey: a.sessionKey })),
    };
  },
});

const vCreateArgs = { ...vDelegationFields, assigneeSessionKeys: v.array(v.string()) };

const vCreated = v.object({ ok: v.literal(true), taskId: v.id("tasks"), title: v.string(), created: v.boolean() });

/**
 * Creates the delegated task and its first instruction message in one
 * transaction, so a delegation is never half made. Idempotent by what it
 * asks: an open task this delegator already made under the same parent,
 * with the same title (normalised) and the same assignees, is returned
 * instead of a second one, whatever run, trigger or restart asks again (and
 * by key, for the same call from the same cause). The guards that span runs
 * are checked here, in the same transaction: the delegation depth, the task
 * tree's budget and, on a result, re-delegating the same work.
 */
export const createDelegatedTask = internalMutation({
  args: vCreateArgs,
  returns: v.union(vCreated, v.object({ ok: v.literal(false), guard: vGuardStop })),
  handler: async (ctx, args) => await createDelegatedTaskHandler(ctx, args),
});

async function createDelegatedTaskHandler(ctx: MutationCtx, args: ObjectType<typeof vCreateArgs>) {
  if (args.key !== undefined) {
    const existing = await taskByDelegationKey(ctx, args.key);
    if (existing !== null) return { ok: true as const, taskId: existing._id, title: existing.title, created: false };
  }
  const delegator = await agentBySessionKey(ctx, args.delegatorSessionKey);
  if (delegator === null || delegator.departmentId !== args.departmentId) {
    throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
  }
  // On a result, the re-delegation guard (reactions/delegation) decides: it refuses the same work, with
  // the reason in the thread, unless a person asked for more since.
  if (args.parentTaskId !== undefined && args.onResult !== true) {
    const ask = { departmentId: args.departmentId, parentTaskId: args.parentTaskId, delegatedBy: delegator.sessionKey, title: args.title, assigneeSessionKeys: args.assigneeSessionKeys };
    const { subtasks } = await subtasksOf(ctx, args.parentTaskId, MAX_SUBTASKS);
    const same = subtasks.find((task) => answersDelegation(task, ask));
    if (same !== undefined) return { ok: true as const, taskId: same._id, title: same.title, created: false };
  }
  return await createDelegation(ctx, { actor: agentActor(delegator), delegatedBy: delegator.sessionKey }, args);
}

/** The spec's result for a delegation the roster check let through, or the guard that stopped it. */
function delegationResult(
  created: Infer<typeof vCreated> | { ok: false; guard: Infer<typeof vGuardStop> },
  assignees: string[],
  check: Extract<ReturnType<typeof checkDelegation>, { ok: true }>,
): DelegationResult {
  if (!created.ok) return { ok: false, problem: "guard", guard: created.guard };
  const { resolved, unresolved, unresolvedMessage, squad } = check;
  return {
    ok: true,
    taskId: created.taskId,
    title: created.title,
    assigneesResolved: resolved.map((a) => a.name),
    assigneesRequested: assignees,
    assigneesUnresolved: unresolved,
    ...(unresolvedMessage === undefined ? {} : { unresolvedMessage }),
    squad,
    created: created.created,
  };
}

/**
 * `delegate_task` in one transaction: the assignees resolved by name within
 * the delegator's department, then the task created as createDelegatedTask
 * does. One write where a roster read and a write were two round trips of
 * the run, each queued behind every other run's writes.
 */
const vByNameArgs = { ...vDelegationFields, assignees: v.array(v.string()) };

export const delegateByName = internalMutation({
  /** `assignees`: agent names as the model wrote them. */
  args: vByNameArgs,
  returns: vDelegationResult,
  handler: async (ctx, args): Promise<DelegationResult> => await delegateByNameHandler(ctx, args),
});

/** Most delegations one `delegateAllByName` makes: a reply's tool calls are bounded lower (MAX_TOOL_CALLS_PER_REPLY). */
export const MAX_DELEGATIONS_AT_ONCE = 16;

/**
 * Several `delegate_task` calls of one reply in one transaction, in order,
 * each exactly as delegateByName makes it (a later one sees the earlier
 * ones' tasks, as it would a call later): the tasks reach the board in one
 * commit, where one write each queued the second behind the first one's
 * delivery and the assignees' runs it woke.
 */
export const delegateAllByName = internalMutation({
  args: { delegations: v.array(v.object(vByNameArgs)) },
  returns: v.array(vDelegationResult),
  handler: async (ctx, { delegations }): Promise<DelegationResult[]> => {
    if (delegations.length > MAX_DELEGATIONS_AT_ONCE) throw new MaestroError("INVALID_ARGUMENT", `At most ${MAX_DELEGATIONS_AT_ONCE} delegations at once.`);
    const results: DelegationResult[] = [];
    for (const delegation of delegations) results.push(await delegateByNameHandler(ctx, delegation));
    return results;
  },
});

async function delegateByNameHandler(ctx: MutationCtx, args: ObjectType<typeof vByNameArgs>): Promise<DelegationResult> {
  const title = args.title.trim();
  const instruction = args.instruction.trim();
  const agents = await departmentAgents(ctx, args.departmentId);
  const delegator = agents.find((a) => a.sessionKey === args.delegatorSessionKey);
  if (delegator === undefined) throw new MaestroError("FORBIDDEN", "Only an agent of this department can delegate here.");
  const roster = agents.map((a) => ({ name: a.name, role: a.role, sessionKey: a.sessionKey }));
  const check = checkDelegation({ title, instruction, assignees: args.assignees }, roster, delegator, "delegate_task");
  if (!check.ok) return check;
  const { assignees, ...fields } = args;
  const created = await createDelegatedTaskHandler(ctx, {
    ...fields,
    delegatorSessionKey: delegator.sessionKey,
    title,
    instruction,
    assigneeSessionKeys: check.resolved.map((a) => a.sessionKey),
  });
  return delegationResult(created, assignees, check);
}

/**
 * `delegate_task`: resolves the assignees by name within the delegator's
 * department, creates a public task assigned to them with `parentTaskId` and
 * `delegatedBy`, and posts the first instruction from the delegator, starting
 * with the assignees' @mentions. Their assignment wakes them. Names that
 * resolve to no agent are left out and reported (an error only when none
 * resolve). What the model got wrong (unknown names, itself as assignee) and
 * guard stops come back as typed results, not thrown errors. The tool's
 * executor (tools/registry) runs the same mutation from the run's own action.
 */
export const delegateTask = internalAction({
  /** `assignees`: agent names as the model wrote them. */
  args: { ...vDelegationFields, assignees: v.array(v.string()) },
  returns: vDelegationResult,
  // Annotated: it calls functions of its own module, which TypeScript cannot infer through.
  handler: async (ctx, args): Promise<DelegationResult> => await ctx.runMutation(internal.tools.delegation.delegateByName, args),
});
