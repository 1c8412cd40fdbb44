/**
 * Limits and bounds that more than one noun reads with, in one place. Every
 * oversized input gets an INVALID_ARGUMENT error naming its limit; every read
 * of something that grows is bounded by one of these.
 */
export const LIMITS = {
  taskTitleChars: 200,
  taskDescriptionChars: 10_000,
  tagsPerTask: 10,
  tagChars: 32,
  assigneesPerTask: 10,
  messageChars: 10_000,
  agentNameChars: 60,
  agentRoleChars: 80,
  agentModelChars: 120,
  systemPromptChars: 20_000,
  departmentNameChars: 80,
  /** A department's description (the messaging spec's Project `description`). */
  departmentDescriptionChars: 500,
  /** Largest page any paginated query returns. */
  pageSize: 100,
} as const;

/**
 * Most agents a department holds. Rosters, mentions, channel membership and
 * the inbox read a department's agents with this bound, so creating one more
 * is refused: past it, an agent sorting late by name could not be mentioned.
 */
export const MAX_AGENTS_PER_DEPARTMENT = 200;
/** Most members a department lists (mention autocomplete, roster, members page). */
export const MAX_MEMBERS_PER_DEPARTMENT = 500;
/** Upper bound on departments one person belongs to, so the switcher stays bounded. */
export const MAX_DEPARTMENTS_PER_MEMBER = 50;
/** Unread counts are shown up to this many ("99+"). */
export const MAX_UNREAD_COUNTED = 99;
/** Replies a thread view shows, oldest first. */
export const MAX_THREAD_REPLIES = 200;
/** Pause cards (approvals, questions, plans) one task shows, newest first. */
export const MAX_CARDS_PER_TASK = 20;
/** Subtasks of one task listed, or compared with by the re-delegation detector. */
export const MAX_SUBTASKS = 100;
/** Most cards one board column returns (a first page, or pages added as it scrolls, up to this). */
export const MAX_TASKS_PER_COLUMN = 500;
/** Runs of one agent (or one task) scanned for the one in progress. */
export const ACTIVE_RUN_SCAN = 20;
/** Triggers folded into a run while it was still queued that the run keeps, to name each in its "why" (brain/context); more are only counted. */
export const MAX_QUEUED_TRIGGERS = 20;

/**
 * How long a run waits for an outside executor to hand back an external
 * tool's output (runs.toolOutput) before the call times out: the run then
 * goes on with the timeout as the call's error, and a late output is
 * refused. MAESTRO_EXTERNAL_CALL_TIMEOUT_MS overrides it (tests, slow executors).
 */
export const EXTERNAL_CALL_TIMEOUT_MS = 10 * 60 * 1000;

/** The external call timeout in force: the override when it is a positive whole number of ms, else the default. */
export function externalCallTimeoutMs(source: Record<string, string | undefined>): number {
  const value = Number(source.MAESTRO_EXTERNAL_CALL_TIMEOUT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : EXTERNAL_CALL_TIMEOUT_MS;
}

/** "10 minutes", "1 minute", "30 seconds": a timeout as its message says it. */
export function timeoutWords(ms: number): string {
  const minutes = ms / 60_000;
  if (Number.isInteger(minutes)) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** Waiting external calls one page lists (runs.waitingToolCalls, GET /tool-calls/waiting). */
export const MAX_WAITING_CALLS_PAGE = 50;
