/** Delegation's checks that need no database: names against the roster, before anything is written. */
import { resolveAgentNames, type RosterEntry } from "./agentNames";

/** Why a delegation was refused before anything was written, with the agents the delegator could have named. */
export type DelegationProblem = { ok: false; problem: "unknown_assignee" | "invalid"; message: string; squad: string[] };

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
