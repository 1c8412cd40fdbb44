/**
 * A task's thread: its messages (cleaned, size-checked, secret-scanned, with
 * their @mentions resolved) and who in a department can be mentioned. What a
 * posted message sets off is reactions/threadPost.ts.
 */
import type { PaginationOptions } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { memberKey } from "../lib/actors";
import { normalizeName } from "../lib/agentNames";
import { MaestroError } from "../lib/errors";
import { LIMITS } from "../lib/limits";
import { parseMentions, type MentionCandidate } from "../lib/mentions";
import { cleanText } from "../lib/validate";
import type { Actor, FileArtifact, Mention } from "../validators";
import { departmentAgents } from "./agents";
import { departmentMembers } from "./members";
import { redactForDepartment } from "./settings";

type ReadCtx = QueryCtx | MutationCtx;

/** Everyone a message in this department can mention: its agents and its members. */
export async function mentionCandidates(ctx: ReadCtx, departmentId: Id<"departments">): Promise<Array<MentionCandidate & { kind: Mention["kind"] }>> {
  const agents = await departmentAgents(ctx, departmentId);
  const members = await departmentMembers(ctx, departmentId);
  return [
    ...agents.map((a) => ({ kind: "agent" as const, key: a.sessionKey, name: a.name })),
    ...members.map((m) => ({ kind: "member" as const, key: memberKey(m.userId), name: m.name })),
  ];
}

/** The agents and members `text` mentions, in the order first mentioned. */
export async function mentionsIn(ctx: ReadCtx, departmentId: Id<"departments">, text: string): Promise<Mention[]> {
  // No "@", no mention: a post then skips reading every agent and member of the department.
  if (!text.includes("@")) return [];
  const candidates = await mentionCandidates(ctx, departmentId);
  const kindByKey = new Map(candidates.map((c) => [c.key, c.kind]));
  return parseMentions(text, candidates).map(({ key, name }) => ({ kind: kindByKey.get(key)!, key, name }));
}

/** Most people and agents a message names in its `mentions` besides those @named in its text. */
export const MAX_NAMED_MENTIONS = 20;

/**
 * The agents and members a sender names outright (the spec's `mentions[]`,
 * by name as in @mentions, with or without the `@`, or by key), each once. A
 * name nobody in the department answers to is the caller's mistake: refused,
 * so nothing is posted.
 */
export async function mentionsNamed(ctx: ReadCtx, departmentId: Id<"departments">, names: readonly string[]): Promise<Mention[]> {
  if (names.length === 0) return [];
  if (names.length > MAX_NAMED_MENTIONS) throw new MaestroError("INVALID_ARGUMENT", `A message names at most ${MAX_NAMED_MENTIONS} mentions.`);
  const candidates = await mentionCandidates(ctx, departmentId);
  const found = new Map<string, Mention>();
  for (const raw of names) {
    // The project's one name rule (lib/agentNames): case, accents, spaces, "_", "-" and a leading "@" do not matter.
    const name = normalizeName(raw);
    const candidate = candidates.find((c) => c.key === raw || (name !== "" && normalizeName(c.name) === name));
    if (candidate === undefined) throw new MaestroError("INVALID_ARGUMENT", `Cannot mention ${JSON.stringify(raw.slice(0, 80))}: no agent or member of this department is called that.`);
    found.set(candidate.key, { kind: candidate.kind, key: candidate.key, name: candidate.name });
  }
  return [...found.values()];
}

/** Most tasks one thread message links. */
export const MAX_TASK_LINKS = 10;

/** The tasks a message links, checked: each once, at most MAX_TASK_LINKS, all live tasks of `departmentId` (else refused, nothing written). */
export async function checkTaskLinks(ctx: ReadCtx, departmentId: Id<"departments">, taskIds: ReadonlyArray<Id<"tasks">>): Promise<Array<Id<"tasks">>> {
  const unique = [...new Set(taskIds)];
  if (unique.length > MAX_TASK_LINKS) throw new MaestroError("INVALID_ARGUMENT", `A message links at most ${MAX_TASK_LINKS} tasks.`);
  for (const id of unique) {
    const task = await ctx.db.get("tasks", id);
    if (task === null || task.departmentId !== departmentId || task.deletedAt !== undefined) throw new MaestroError("NOT_FOUND", "A linked task is not in this department.");
  }
  return unique;
}

/** What a thread message carries besides its text: `taskLinks` (tasks of its department), `correlationId` (its A2A envelope) and `files` (checked by records/taskFiles). */
export type ThreadMessageOptions = { taskLinks?: ReadonlyArray<Id<"tasks">>; correlationId?: string; files?: FileArtifact[] };

/** Inserts a thread message (text checked and scanned, mentions resolved, task links checked) and returns it. */
export async function insertMessage(
  ctx: MutationCtx,
  author: Actor,
  task: Doc<"tasks">,
  rawContent: string,
  { taskLinks = [], correlationId, files = [] }: ThreadMessageOptions = {},
): Promise<Doc<"messages">> {
  // A message may be just files.
  const content = await redactForDepartment(ctx, task.departmentId, "thread message", cleanText("A message", rawContent, LIMITS.messageChars, { allowEmpty: files.length > 0 }));
  const mentions = await mentionsIn(ctx, task.departmentId, content);
  const links = await checkTaskLinks(ctx, task.departmentId, taskLinks);
  const messageId = await ctx.db.insert("messages", { taskId: task._id, departmentId: task.departmentId, author, content, mentions, ...(links.length > 0 ? { taskLinks: links } : {}), ...(correlationId === undefined ? {} : { correlationId }), ...(files.length > 0 ? { files } : {}) });
  return (await ctx.db.get("messages", messageId))!;
}

/** Edits a thread message's text (checked and scanned as when posted, mentions resolved again); returns the new text. */
export async function editMessage(ctx: MutationCtx, message: Doc<"messages">, rawContent: string): Promise<string> {
  const allowEmpty = (message.files?.length ?? 0) > 0;
  const content = await redactForDepartment(ctx, message.departmentId, "thread message", cleanText("A message", rawContent, LIMITS.messageChars, { allowEmpty }));
  const mentions = await mentionsIn(ctx, message.departmentId, content);
  await ctx.db.patch("messages", message._id, { content, mentions, editedAt: Date.now() });
  return content;
}

/** Deletes a thread message's text and files for everyone; the row stays so notifications and runs that name it stay whole. */
export async function eraseMessage(ctx: MutationCtx, messageId: Id<"messages">): Promise<void> {
  await ctx.db.patch("messages", messageId, { content: "", mentions: [], taskLinks: undefined, metadata: undefined, files: undefined, deletedAt: Date.now() });
}

/** Attaches checked metadata (lib/messageMetadata) to a message just posted, each value secret-scanned as its text is. */
export async function attachMetadata(ctx: MutationCtx, message: Doc<"messages">, metadata: Record<string, string>): Promise<void> {
  const scanned: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) scanned[key] = await redactForDepartment(ctx, message.departmentId, "message metadata", value);
  if (Object.keys(scanned).length > 0) await ctx.db.patch("messages", message._id, { metadata: scanned });
}

/** One page of a task's thread, newest first. */
export async function threadPage(ctx: QueryCtx, taskId: Id<"tasks">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("messages")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .order("desc")
    .paginate(paginationOpts);
}

/**
 * Up to `limit` messages of a task's thread posted after `after` (a
 * message's creation time; null for the start), oldest first, and whether
 * more follow. Creation times are unique in a table, so reading on from the
 * last one seen skips nothing and repeats nothing, and also picks up what is
 * posted later.
 */
export async function threadAfter(ctx: QueryCtx, taskId: Id<"tasks">, after: number | null, limit: number): Promise<{ messages: Array<Doc<"messages">>; more: boolean }> {
  const rows = await ctx.db
    .query("messages")
    .withIndex("by_task", (q) => (after === null ? q.eq("taskId", taskId) : q.eq("taskId", taskId).gt("_creationTime", after)))
    .order("asc")
    .take(limit + 1);
  return { messages: rows.slice(0, limit), more: rows.length > limit };
}

/** A task's newest messages, oldest first, at most `limit`. */
export async function newestMessages(ctx: ReadCtx, taskId: Id<"tasks">, limit: number): Promise<Array<Doc<"messages">>> {
  const recent = await ctx.db
    .query("messages")
    .withIndex("by_task", (q) => q.eq("taskId", taskId))
    .order("desc")
    .take(limit);
  return recent.reverse();
}

/** Whether a person wrote in the task's thread after `since` (looking at most at `limit` messages). */
export async function personWroteSince(ctx: ReadCtx, taskId: Id<"tasks">, since: number, limit: number): Promise<boolean> {
  const later = await ctx.db
    .query("messages")
    .withIndex("by_task", (q) => q.eq("taskId", taskId).gt("_creationTime", since))
    .take(limit);
  return later.some((m) => m.author.kind === "member");
}
