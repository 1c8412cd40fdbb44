/** Delegation's checks that need no database: names against the roster, before anything is written. */
import { resolveAgentNames, type RosterEntry } from "./agentNames";
import { normalizeTitle } from "./guards";
import type { TaskStatus } from "../validators";

/** Why a delegation was refused before anything was written, with the agents the delegator could have named. */
export type DelegationProblem = { ok: false; problem: "unknown_assignee" | "invalid"; message: string; squad: string[] };

/**
 * The names that resolved, and the ones that did not (as requested, with why
 * in words and the squad to choose from). The spec resolves what it can: a
 * delegation goes to the names that resolve, and is refused only when none do.
 */
export interface DelegationCheck {
  ok: true;
  resolved: RosterEntry[];
  unresolved: string[];
  /** Set when some names did not resolve: what was wrong with them. */
  unresolvedMessage?: string;
  squad: string[];
}

/**
 * The checks every delegation passes before anything is written (delegate_task
 * and /delegate, named by `label` in the errors): a title, an instruction, at
 * least one assignee, at least one name resolving to an agent of the roster,
 * and never the delegating agent itself (`delegator` is null for a person).
 */
export function checkDelegation(
  input: { title: string; instruction: string; assignees: string[] },
  roster: RosterEntry[],
  delegator: { name: string; sessionKey: string } | null,
  label: string,
): DelegationCheck | DelegationProblem {
  const squad = roster.filter((a) => a.sessionKey !== delegator?.sessionKey).map((a) => a.name);
  const invalid = (message: string) => ({ ok: false as const, problem: "invalid" as const, message, squad });
  if (input.title === "") return invalid(`${label} needs a title.`);
  if (input.instruction === "") return invalid(`${label} needs an instruction for the assignees.`);
  if (input.assignees.length === 0) return invalid(`${label} needs at least one assignee: name agents from the squad roster.`);
  const { resolved, unknown } = resolveAgentNames(input.assignees, roster);
  if (delegator !== null && resolved.some((agent) => agent.sessionKey === delegator.sessionKey)) {
    return invalid(`${delegator.name} cannot delegate to themselves; pick another agent from the roster.`);
  }
  if (unknown.length === 0) return { ok: true, resolved, unresolved: [], squad };
  const detail = unknown
    .map((u) => `"${u.requested}"${u.suggestions.length > 0 ? ` (did you mean ${u.suggestions.join(" or ")}?)` : ""}`)
    .join(", ");
  const message = `Unknown assignee${unknown.length > 1 ? "s" : ""}: ${detail}. The squad is: ${squad.join(", ")}.`;
  if (resolved.length === 0) return { ok: false, problem: "unknown_assignee", message, squad };
  return { ok: true, resolved, unresolved: unknown.map((u) => u.requested), unresolvedMessage: message, squad };
}

/** What a delegation asks, as far as "is this the same delegation?" goes. */
export interface DelegationAsk {
  departmentId: string;
  parentTaskId: string;
  delegatedBy: string;
  title: string;
  assigneeSessionKeys: readonly string[];
}

/**
 * Whether `task` is an open task that answers `ask` already: the same
 * department, parent and delegator, the same title once normalised, and the
 * same assignees. Delegation is idempotent by what it asks, not by what
 * triggered it, so a retry after a failed run finds the first task.
 */
export function answersDelegation(
  task: { departmentId: string; parentTaskId?: string; delegatedBy?: string; title: string; assigneeSessionKeys: readonly string[]; status: string },
  ask: DelegationAsk,
): boolean {
  if (task.status === "done") return false;
  if (task.departmentId !== ask.departmentId || task.parentTaskId !== ask.parentTaskId || task.delegatedBy !== ask.delegatedBy) return false;
  if (normalizeTitle(task.title) !== normalizeTitle(ask.title)) return false;
  const have = [...new Set(task.assigneeSessionKeys)].sort();
  const want = [...new Set(ask.assigneeSessionKeys)].sort();
  return have.length === want.length && have.every((key, i) => key === want[i]);
}

/** Where a subtask's work stands, as its parent reads it: open, or handed back (review or done). */
const HANDED_BACK: ReadonlySet<TaskStatus> = new Set(["review", "done"]);
/** A parent in these columns follows its subtasks; done and blocked are someone's decision and stay. */
const FOLLOWS_SUBTASKS: ReadonlySet<TaskStatus> = new Set(["inbox", "assigned", "in_progress", "review"]);

/**
 * The column a parent task moves to so it reflects its subtasks (its live
 * delegated work), or null to stay: In progress while any subtask is open,
 * Review once every subtask is in Review or Done. Never Done (a person
 * accepts the work), and a parent that is Done or Blocked stays.
 */
export function parentStatusFromSubtasks(parent: TaskStatus, subtasks: readonly TaskStatus[]): TaskStatus | null {
  if (subtasks.length === 0 || !FOLLOWS_SUBTASKS.has(parent)) return null;
  const next: TaskStatus = subtasks.every((status) => HANDED_BACK.has(status)) ? "review" : "in_progress";
  return next === parent ? null : next;
}
