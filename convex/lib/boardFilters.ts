import { MaestroError } from "./errors";
import { LIMITS } from "./limits";
import type { Priority } from "../validators";

/** What the board's filter bar asks the server for; every field narrows, absent fields don't. */
export interface BoardFilterArgs {
  text?: string;
  assignee?: string;
  tag?: string;
  priority?: Priority;
  mine?: boolean;
  /** Archived tasks instead of the live ones. */
  archived?: boolean;
}

/** Filters checked and trimmed; `text` undefined means no search. */
export interface BoardFilter {
  text?: string;
  assignee?: string;
  tag?: string;
  priority?: Priority;
  mine: boolean;
  archived: boolean;
}

/** Longest search text; longer is a client bug or abuse, refused with a clear error. */
export const SEARCH_TEXT_CHARS = 100;

/**
 * Trims the filter bar's arguments and refuses oversized ones with
 * INVALID_ARGUMENT. Blank strings count as "no filter", as an empty box does.
 */
export function cleanBoardFilter(args: BoardFilterArgs): BoardFilter {
  const text = args.text?.trim() ?? "";
  if (text.length > SEARCH_TEXT_CHARS) {
    throw new MaestroError("INVALID_ARGUMENT", `Search text is ${text.length} characters; the limit is ${SEARCH_TEXT_CHARS}.`);
  }
  const tag = args.tag?.trim() ?? "";
  if (tag.length > LIMITS.tagChars) {
    throw new MaestroError("INVALID_ARGUMENT", `A tag is ${tag.length} characters; the limit is ${LIMITS.tagChars}.`);
  }
  const assignee = args.assignee?.trim() ?? "";
  return {
    text: text === "" ? undefined : text,
    tag: tag === "" ? undefined : tag,
    assignee: assignee === "" ? undefined : assignee,
    priority: args.priority,
    mine: args.mine === true,
    archived: args.archived === true,
  };
}

type FilterableTask = { tags: string[]; assigneeSessionKeys: string[]; priority: Priority; createdBy: string; archivedAt?: number; deletedAt?: number; inboxOf?: string };

/**
 * The filters the index can't express (array membership, "mine"): a task
 * matches when it passes every one set. Tags compare case-insensitively, as
 * `cleanTags` de-duplicates them. "Mine" is a task the member created or
 * holds as an assignee (`memberKey`). Deleted tasks and agents' inbox tasks
 * never match; archived ones match only the `archived` filter, which shows
 * nothing else.
 */
export function matchesBoardFilter(task: FilterableTask, filter: BoardFilter, memberKey: string): boolean {
  if (task.deletedAt !== undefined || task.inboxOf !== undefined) return false;
  if ((task.archivedAt !== undefined) !== filter.archived) return false;
  if (filter.priority !== undefined && task.priority !== filter.priority) return false;
  if (filter.assignee !== undefined && !task.assigneeSessionKeys.includes(filter.assignee)) return false;
  if (filter.tag !== undefined) {
    const tag = filter.tag.toLowerCase();
    if (!task.tags.some((t) => t.toLowerCase() === tag)) return false;
  }
  if (filter.mine && task.createdBy !== memberKey && !task.assigneeSessionKeys.includes(memberKey)) return false;
  return true;
}

/** True when any filter is set: the board then shows a subset of each column. */
export function isFiltered(filter: BoardFilter): boolean {
  return filter.text !== undefined || filter.assignee !== undefined || filter.tag !== undefined || filter.priority !== undefined || filter.mine || filter.archived;
}
