/**
 * `#` task links in a composer, as pure text helpers: the `#` being typed,
 * matching tasks, the `#Title ` a pick leaves in the text, which picked
 * tasks the text still names when it is sent, and a message's chips.
 */
import { linkedTaskIds } from "../../convex/lib/taskLinks";

/** A task a message can link (tasks.linkable, tasks.linked). */
export type TaskOption = { _id: string; title: string; status: string };

/** A `#` being typed: where it starts and what follows it up to the caret. */
export type TaskQuery = { start: number; query: string };

/** Longest run after `#` that still counts as a title being typed. */
const MAX_QUERY_CHARS = 60;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * The task link being typed at `caret`, or null. A `#` counts at the start
 * or after a non-word character (so "C#" or "issue#4" do not open it), and
 * not as a Markdown heading ("# Title"): the text after it must start at
 * once and stay on one line.
 */
export function findTaskQuery(text: string, caret: number): TaskQuery | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf("#");
  if (start === -1) return null;
  if (start > 0 && WORD_CHAR.test(before[start - 1])) return null;
  const query = before.slice(start + 1);
  if (query.length > MAX_QUERY_CHARS || /[\n#@]/.test(query)) return null;
  if (query.startsWith(" ") || query.includes("  ")) return null;
  return { start, query };
}

/**
 * Suggestions in the order to show them: titles starting with the query,
 * then those with a later word starting with it, then the rest the server
 * found (by id, or a looser title match); the server's order within each.
 */
export function rankTasks(tasks: readonly TaskOption[], query: string): TaskOption[] {
  const q = query.trim().toLocaleLowerCase();
  if (q === "") return [...tasks];
  const score = (task: TaskOption) => {
    const title = task.title.toLocaleLowerCase();
    if (title.startsWith(q)) return 0;
    if (title.split(/\s+/).some((word) => word.startsWith(q))) return 1;
    return 2;
  };
  return tasks.map((task, i) => ({ task, i, s: score(task) })).sort((a, b) => a.s - b.s || a.i - b.i).map(({ task }) => task);
}

/** What a picked task leaves in the text: `#` and its title on one line. */
export function taskLinkText(task: Pick<TaskOption, "title">): string {
  return `#${task.title.replace(/\s+/g, " ").trim()}`;
}

/** The text with the typed `#query` replaced by `#Title ` and the caret just after it. */
export function insertTaskLink(text: string, caret: number, query: TaskQuery, task: Pick<TaskOption, "title">): { text: string; caret: number } {
  const inserted = `${taskLinkText(task)} `;
  const rest = text.slice(caret).replace(/^ /, "");
  return { text: text.slice(0, query.start) + inserted + rest, caret: query.start + inserted.length };
}

/** The picked tasks whose `#Title` the text still holds (deleted from the text, a link is dropped), each once, in order picked. */
export function taskLinksIn(text: string, picked: readonly TaskOption[]): TaskOption[] {
  const seen = new Set<string>();
  return picked.filter((task) => {
    if (seen.has(task._id) || !text.includes(taskLinkText(task))) return false;
    seen.add(task._id);
    return true;
  });
}

/** A task thread message's links (`taskLinks`) in the shape chips read, like a channel message's task artifacts. */
export function taskLinkArtifacts(taskLinks: readonly string[] | undefined): Array<{ kind: "task"; taskId: string }> {
  return (taskLinks ?? []).map((taskId) => ({ kind: "task", taskId }));
}

/** One chip of a message: the task it links, titled when this department has it (null: deleted, or not this department's). */
export type TaskChip = { taskId: string; title: string | null; status: string | null };

/** A message's task chips from its artifacts, titled from the tasks the department resolved. */
export function taskChips(artifacts: ReadonlyArray<{ kind: string; taskId?: string }>, known: ReadonlyMap<string, TaskOption>): TaskChip[] {
  return linkedTaskIds(artifacts).map((taskId) => {
    const task = known.get(taskId);
    return { taskId, title: task?.title ?? null, status: task?.status ?? null };
  });
}
