/**
 * Tasks a channel message links (its `{ kind: "task" }` artifacts) in the
 * words an agent reads: the message's text stays as written, and each link
 * follows it on a line of its own with the task's title and id, so the
 * model can name the task and open it with its tools.
 */

/** A linked task as read for the model: its title, or null when it is gone. */
export interface ReadableTaskLink {
  taskId: string;
  title: string | null;
}

/** Most characters of a title quoted per link. */
const TITLE_CHARS = 120;

/** The task ids a message's artifacts link, in order, once each. */
export function linkedTaskIds<Id extends string>(artifacts: ReadonlyArray<{ kind: string; taskId?: Id }>): Id[] {
  const ids: Id[] = [];
  for (const artifact of artifacts) if (artifact.kind === "task" && artifact.taskId !== undefined && !ids.includes(artifact.taskId)) ids.push(artifact.taskId);
  return ids;
}

/** `body` with one line per linked task: `[linked task: “Fix the login” (task id …)]`. */
export function withTaskLinks(body: string, links: readonly ReadableTaskLink[]): string {
  if (links.length === 0) return body;
  const lines = links.map(({ taskId, title }) => {
    if (title === null) return `[linked task: one that was deleted or is not in this department (task id ${taskId})]`;
    const shown = title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title;
    return `[linked task: “${shown}” (task id ${taskId})]`;
  });
  return [body, ...lines].join("\n");
}
