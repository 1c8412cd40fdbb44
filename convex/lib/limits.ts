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
