/**
 * What a run says in the thread, as a system note, when a tool call could
 * not do what was asked: the delegation spec wants a "clear error returned in
 * thread", where the people who asked are looking, not only on the run. Each
 * note names the problem and the choices. Notes never @mention anyone, so
 * they notify nobody and wake no agent. Pure: no Convex context.
 */

/** A loop guard that stopped a call: the reason recorded on the run, and what people can do. */
export interface GuardStop {
  /** Recorded on the run's `guards`, in words. */
  reason: string;
  /** What the people in the thread can do about it. */
  choices: string;
}

function list(names: readonly string[]): string {
  return names.length === 0 ? "none" : names.join(", ");
}

/** A call to a tool the registry does not know. */
export function unknownToolNote(agent: string, tool: string, tools: readonly string[]): string {
  return (
    `${agent} tried to use a tool that does not exist: "${tool}". ` +
    `Choices: ask ${agent} again (its tools are: ${list(tools)}), or an owner or admin can change its tools in the roster.`
  );
}

/** A call to a tool the agent is not allowed (permission denied). */
export function deniedNote(agent: string, tool: string, allowedAgents: readonly string[]): string {
  const ask = allowedAgents.length > 0 ? `ask an agent that may (${list(allowedAgents)}), or ` : "";
  return `Permission denied: ${agent} may not call ${tool}. Choices: ${ask}an owner or admin can allow ${tool} for ${agent} in the roster.`;
}

/** A delegation naming agents that are not in the squad. */
export function unknownAssigneeNote(agent: string, title: string, problem: string, squad: readonly string[]): string {
  return (
    `${agent} could not delegate “${title}”: ${problem} ` +
    `Choices: mention ${agent} again naming agents from the squad (${list(squad)}), or an owner or admin can add the agent to the roster.`
  );
}

/** A delegation that went to some of the names it gave: the rest are not in the squad. */
export function partialAssigneeNote(agent: string, title: string, assigned: readonly string[], problem: string, squad: readonly string[]): string {
  return (
    `${agent} delegated “${title}” to ${list(assigned)} only: ${problem} ` +
    `Choices: mention ${agent} again naming agents from the squad (${list(squad)}), or an owner or admin can add the agent to the roster.`
  );
}

/** A loop guard stopped a call. */
export function guardNote(agent: string, tool: string, stop: GuardStop): string {
  return `${agent} was stopped from calling ${tool}: ${stop.reason}. Choices: ${stop.choices}`;
}
