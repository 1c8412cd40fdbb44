/**
 * The loop guards on tool calls, as data: each says why it stopped a call
 * (recorded on the run) and what people can do (said in the thread). The
 * guards that span runs — the delegation budget of a task tree and the
 * re-delegation detector — are here too, as pure functions over what the
 * delegation mutation reads, because a fresh run must not mean a fresh limit.
 */
import { normalizeName } from "./agentNames";
import type { GuardStop } from "./notes";

/** Delegations one task tree (a human's task and everything delegated under it) may hold. */
export const DEFAULT_MAX_DELEGATIONS_PER_TREE = 10;

function positiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/** The per-tree budget, overridable with MAESTRO_MAX_DELEGATIONS_PER_TREE. */
export function maxDelegationsPerTree(source: Record<string, string | undefined>): number {
  return positiveInt(source.MAESTRO_MAX_DELEGATIONS_PER_TREE, DEFAULT_MAX_DELEGATIONS_PER_TREE);
}

/** A task's status as the rest of a sentence: "“Hero copy” is in review". */
export const STATUS_WORDS: Record<string, string> = {
  inbox: "in the inbox",
  assigned: "assigned",
  in_progress: "in progress",
  review: "in review",
  done: "done",
  blocked: "blocked",
};

export const guards = {
  perReply: (limit: number): GuardStop => ({
    reason: `more than ${limit} tool calls in one reply`,
    choices: "ask again for the rest in a new message.",
  }),
  repeated: (): GuardStop => ({
    reason: "repeated identical tool call",
    choices: "nothing is lost, the first call ran; ask again in a new message if it really should happen twice.",
  }),
  perRun: (limit: number): GuardStop => ({
    reason: `delegation limit per run reached (${limit})`,
    choices: "ask again in a new message for the rest of the work, or split the request into smaller tasks.",
  }),
  depth: (depth: number, limit: number): GuardStop => ({
    reason: `delegation depth limit reached (limit ${limit})`,
    choices: `this task is already ${depth} delegation(s) deep: do the work here, or a human can create a new task for it.`,
  }),
  treeBudget: (limit: number, rootTitle: string): GuardStop => ({
    reason: `delegation budget for this task tree reached (${limit} delegations under “${rootTitle}”)`,
    choices: "finish or close the tasks already delegated, or a human can create a new task for new work.",
  }),
  redelegation: (title: string, status: string): GuardStop => ({
    reason: `re-delegating work already delegated on a result (“${title}” is ${STATUS_WORDS[status] ?? status})`,
    choices: `wait for “${title}” to finish, or a person can ask for more in this thread and the lead may delegate again.`,
  }),
};

/** A title as work is compared: case, accents and punctuation do not matter. */
export function normalizeTitle(title: string): string {
  return normalizeName(title).replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/**
 * The earlier delegated subtask that `title` repeats, if any: the same title
 * once normalised, or one title containing the other as whole words.
 */
export function sameWork<T extends { title: string }>(title: string, subtasks: readonly T[]): T | undefined {
  const wanted = normalizeTitle(title);
  if (wanted === "") return undefined;
  const contains = (a: string, b: string) => ` ${a} `.includes(` ${b} `);
  return subtasks.find((t) => {
    const existing = normalizeTitle(t.title);
    return existing !== "" && (existing === wanted || contains(existing, wanted) || contains(wanted, existing));
  });
}
