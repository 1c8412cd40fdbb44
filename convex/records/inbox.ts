/**
 * The inbox: one row per message per recipient (an agent's sessionKey or
 * `member:<userId>`), with whether it was read, handled (a blocking message
 * a run opened with) or nudged about. Badges count it, "mark read" writes
 * it, and a run's prompt is shown from it; every read is logged as a
 * `messaging.read` event, which is also the audit trail of who read what.
 */
import { v, type Infer } from "convex/values";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { actorKey, agentActor } from "../lib/actors";
import type { InjectionMessage } from "../lib/injection";
import { MAX_UNREAD_COUNTED } from "../lib/limits";
import { currentBody } from "../lib/messageChanges";
import { redactPii } from "../lib/pii";
import { linkedTaskIds, withTaskLinks } from "../lib/taskLinks";
import type { Recipient } from "../lib/channels";
import { vImportance, type Actor, type Importance } from "../validators";
import { emitEvent } from "./events";
import { piiRulesOf } from "./settings";

type ReadCtx = QueryCtx | MutationCtx;

/** Most inbox rows one call marks read (a bigger backlog takes another call). */
export const MAX_MARKED_PER_CALL = 500;
/** Unread rows counted per agent for the roster's badge; more shows as "9+". */
export const MAX_AGENT_UNREAD_COUNTED = 9;
/** Most blocking messages one model call opens with. */
export const MAX_BLOCKING_PER_CALL = 5;
/** Most unread messages weighed for one injection (lib/injection ranks and packs them): the newest. */
export const MAX_INJECTION_CANDIDATES = 150;
/** Most unread critical, and blocking, messages weighed for one injection besides the newest, however old. */
export const MAX_URGENT_CANDIDATES = 50;
/** Unread rows beyond the newest window that are counted (not read into the prompt) for the footer. */
export const MAX_OLDER_COUNTED = 100;

/** Which unread rows a lookup reads: only those that arrived after `after` (a `_creationTime`), and in which order (newest first by default). */
export type UnreadRange = { after?: number; order?: "asc" | "desc" };

/** A recipient's unread rows in a department, newest first. */
export async function unreadRows(ctx: ReadCtx, recipientKey: string, departmentId: Id<"departments">, limit: number, range: UnreadRange = {}): Promise<Array<Doc<"inbox">>> {
  return await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_readAt", (q) => {
      const unread = q.eq("recipientKey", recipientKey).eq("departmentId", departmentId).eq("readAt", undefined);
      return range.after === undefined ? unread : unread.gt("_creationTime", range.after);
    })
    .order(range.order ?? "desc")
    .take(limit);
}

/** A recipient's unread rows of one importance in a department, newest first, found by index whatever their age. */
export async function unreadRowsOfImportance(ctx: ReadCtx, recipientKey: string, departmentId: Id<"departments">, importance: Importance, limit: number, range: UnreadRange = {}) {
  return await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_readAt_and_importance", (q) => {
      const unread = q.eq("recipientKey", recipientKey).eq("departmentId", departmentId).eq("readAt", undefined).eq("importance", importance);
      return range.after === undefined ? unread : unread.gt("_creationTime", range.after);
    })
    .order(range.order ?? "desc")
    .take(limit);
}

/** A recipient's unread blocking rows in a department, newest first, found by index whatever their age. */
export async function unreadBlockingRows(ctx: ReadCtx, recipientKey: string, departmentId: Id<"departments">, limit: number, range: UnreadRange = {}): Promise<Array<Doc<"inbox">>> {
  return await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_readAt_and_blocking", (q) => {
      const unread = q.eq("recipientKey", recipientKey).eq("departmentId", departmentId).eq("readAt", undefined).eq("blocking", true);
      return range.after === undefined ? unread : unread.gt("_creationTime", range.after);
    })
    .order(range.order ?? "desc")
    .take(limit);
}

/** A recipient's unread rows in one conversation. */
export async function unreadRowsIn(ctx: ReadCtx, recipientKey: string, channelId: Id<"channels">, limit: number): Promise<Array<Doc<"inbox">>> {
  return await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_channel_and_readAt", (q) => q.eq("recipientKey", recipientKey).eq("channelId", channelId).eq("readAt", undefined))
    .take(limit);
}

/** How many unread a recipient has in one conversation, up to the badge's bound. */
export async function unreadCountIn(ctx: ReadCtx, recipientKey: string, channelId: Id<"channels">, limit = MAX_UNREAD_COUNTED + 1): Promise<number> {
  return (await unreadRowsIn(ctx, recipientKey, channelId, limit)).length;
}

/**
 * `recipientKey`'s inbox rows for these messages, in order. Ids come as
 * strings (a model or a client sent them): ones that are not message ids, or
 * whose message is not in that inbox, are skipped.
 */
export async function inboxRowsFor(ctx: ReadCtx, recipientKey: string, messageIds: readonly string[]): Promise<Array<Doc<"inbox">>> {
  const rows = [];
  for (const raw of messageIds) {
    const messageId = ctx.db.normalizeId("channelMessages", raw);
    if (messageId === null) continue;
    const row = await ctx.db
      .query("inbox")
      .withIndex("by_recipient_and_message", (q) => q.eq("recipientKey", recipientKey).eq("messageId", messageId))
      .unique();
    if (row !== null) rows.push(row);
  }
  return rows;
}

/** A posted message reaches its recipients' inboxes. */
export async function deliverToInboxes(
  ctx: MutationCtx,
  message: { departmentId: Id<"departments">; channelId: Id<"channels">; messageId: Id<"channelMessages">; importance: Importance; blocking: boolean },
  recipients: readonly Recipient[],
): Promise<void> {
  const { departmentId, channelId, messageId, importance, blocking } = message;
  for (const r of recipients) {
    await ctx.db.insert("inbox", { departmentId, recipientKey: r.key, channelId, messageId, importance, blocking, direct: r.direct });
  }
}

/** Marks rows read and logs one event per conversation touched; returns how many were unread. */
export async function markRowsRead(ctx: MutationCtx, rows: Array<Doc<"inbox">>, actor: Actor): Promise<number> {
  const now = Date.now();
  const perChannel = new Map<Id<"channels">, number>();
  for (const row of rows) {
    if (row.readAt !== undefined) continue;
    await ctx.db.patch("inbox", row._id, { readAt: now });
    perChannel.set(row.channelId, (perChannel.get(row.channelId) ?? 0) + 1);
  }
  for (const [channelId, count] of perChannel) {
    await emitEvent(ctx, { departmentId: rows[0].departmentId, type: "messaging.read", actor, channelId, data: { count } });
  }
  return [...perChannel.values()].reduce((a, b) => a + b, 0);
}

/** Marks what a recipient has unread read: in one conversation, or (without `channelId`) in the whole department. */
export async function markAllRead(ctx: MutationCtx, recipientKey: string, departmentId: Id<"departments">, actor: Actor, channelId?: Id<"channels">): Promise<number> {
  const rows =
    channelId === undefined
      ? await unreadRows(ctx, recipientKey, departmentId, MAX_MARKED_PER_CALL)
      : await unreadRowsIn(ctx, recipientKey, channelId, MAX_MARKED_PER_CALL);
  return await markRowsRead(ctx, rows, actor);
}

/** Marks a recipient's rows of `messageIds` read (those in `channelId` only, when given). */
export async function markMessagesRead(ctx: MutationCtx, recipientKey: string, messageIds: readonly string[], actor: Actor, channelId?: Id<"channels">): Promise<number> {
  const rows = (await inboxRowsFor(ctx, recipientKey, messageIds.slice(0, MAX_MARKED_PER_CALL))).filter((row) => channelId === undefined || row.channelId === channelId);
  return await markRowsRead(ctx, rows, actor);
}

/**
 * An agent's key reads its inbox from a position of its own: the rows that
 * arrived after the key was made and that no call with a key has marked read
 * (`keyReadAt`), whatever its runs in Maestro have read, newest first. An
 * agent that runs outside Maestro has no runs, and its key's reads count as
 * the agent's (`readAt` too, for the roster's badge).
 */
export async function keyUnreadRows(ctx: ReadCtx, recipientKey: string, departmentId: Id<"departments">, keySince: number, limit: number): Promise<Array<Doc<"inbox">>> {
  return await ctx.db
    .query("inbox")
    .withIndex("by_recipient_and_department_and_keyReadAt", (q) =>
      q.eq("recipientKey", recipientKey).eq("departmentId", departmentId).eq("keyReadAt", undefined).gt("_creationTime", keySince),
    )
    .order("desc")
    .take(limit);
}

/** Marks rows read for the agent's key (and for the agent itself when it runs outside Maestro); returns how many the key had unread. */
export async function markRowsReadByKey(ctx: MutationCtx, rows: Array<Doc<"inbox">>, actor: Actor, runsOutside: boolean): Promise<number> {
  const now = Date.now();
  const perChannel = new Map<Id<"channels">, number>();
  for (const row of rows) {
    if (row.keyReadAt !== undefined) continue;
    await ctx.db.patch("inbox", row._id, runsOutside && row.readAt === undefined ? { keyReadAt: now, readAt: now } : { keyReadAt: now });
    perChannel.set(row.channelId, (perChannel.get(row.channelId) ?? 0) + 1);
  }
  for (const [channelId, count] of perChannel) {
    await emitEvent(ctx, { departmentId: rows[0].departmentId, type: "messaging.read", actor, channelId, data: { count } });
  }
  return [...perChannel.values()].reduce((a, b) => a + b, 0);
}

/** The key's `messageIds` (or, without them, everything it has unread) marked read for it (markRowsReadByKey). */
export async function markReadByKey(
  ctx: MutationCtx,
  agent: Doc<"agents">,
  keySince: number,
  messageIds: readonly string[] | undefined,
  actor: Actor,
): Promise<number> {
  const rows =
    messageIds === undefined
      ? await keyUnreadRows(ctx, agent.sessionKey, agent.departmentId, keySince, MAX_MARKED_PER_CALL)
      : await inboxRowsFor(ctx, agent.sessionKey, messageIds.slice(0, MAX_MARKED_PER_CALL));
  return await markRowsReadByKey(ctx, rows, actor, agent.runsOutside === true);
}

/** The key's unread messages as the inbox shows them (unreadFor's shape), newest first. */
export async function keyUnreadFor(ctx: QueryCtx, agent: Doc<"agents">, keySince: number, limit: number): Promise<InjectionMessage[]> {
  return await asInjectionMessages(ctx, agent.departmentId, await keyUnreadRows(ctx, agent.sessionKey, agent.departmentId, keySince, limit), null);
}

/** Rows the inbox `summary` counts: unread in a department, up to the badge's bound. */
export async function unreadSummary(ctx: QueryCtx, recipientKey: string, departmentId: Id<"departments">) {
  const rows = await unreadRows(ctx, recipientKey, departmentId, MAX_UNREAD_COUNTED + 1);
  return { unread: Math.min(rows.length, MAX_UNREAD_COUNTED), direct: rows.filter((r) => r.direct).length, more: rows.length > MAX_UNREAD_COUNTED };
}

/** Where a message sits, as a person would say it: "a DM", "#launch", "thread in #launch". */
export function whereOf(channel: Doc<"channels">, message: Pick<Doc<"channelMessages">, "threadRootId">, thread = "thread in"): string {
  if (channel.kind === "dm") return "a DM";
  return message.threadRootId !== undefined ? `${thread} #${channel.name}` : `#${channel.name}`;
}

/**
 * The agent's unread messages as the injection budget takes them
 * (lib/injection), newest first; `inbox.read` shows the same to the model.
 */
export async function unreadFor(ctx: QueryCtx, agent: Doc<"agents">, taskId: Id<"tasks"> | null, limit: number): Promise<InjectionMessage[]> {
  return await asInjectionMessages(ctx, agent.departmentId, await unreadRows(ctx, agent.sessionKey, agent.departmentId, limit), taskId);
}

/** A channel message's current text with the tasks it links named (lib/taskLinks); only its own department's tasks are titled. */
export async function bodyWithTaskLinks(ctx: QueryCtx, message: Doc<"channelMessages">): Promise<string> {
  const links = [];
  for (const taskId of linkedTaskIds(message.artifacts)) {
    const task = await ctx.db.get("tasks", taskId);
    const readable = task !== null && task.departmentId === message.departmentId && task.deletedAt === undefined;
    links.push({ taskId, title: readable ? task.title : null });
  }
  return withTaskLinks(currentBody(message), links);
}

/** Inbox rows as the model is shown them; rows whose message or channel is gone are left out. */
async function asInjectionMessages(ctx: QueryCtx, departmentId: Id<"departments">, rows: ReadonlyArray<Doc<"inbox">>, taskId: Id<"tasks"> | null): Promise<InjectionMessage[]> {
  const pii = await piiRulesOf(ctx, departmentId);
  const out: InjectionMessage[] = [];
  for (const row of rows) {
    const message = await ctx.db.get("channelMessages", row.messageId);
    const channel = await ctx.db.get("channels", row.channelId);
    if (message === null || channel === null) continue;
    out.push({
      id: message._id,
      from: message.from.kind === "system" ? "Maestro" : message.from.name,
      where: whereOf(channel, message),
      // What a model is shown is the message as it is now, without the PII the department's rules name (lib/pii), blocking openings included, and the tasks it links by title.
      body: redactPii(await bodyWithTaskLinks(ctx, message), pii),
      importance: message.importance,
      direct: row.direct,
      aboutTask: taskId !== null && (message.context.taskId === taskId || message.context.batchId === taskId),
      createdAt: message._creationTime,
      threadId: message.threadRootId ?? undefined,
    });
  }
  return out;
}

const vInjectionMessage = v.object({
  id: v.string(),
  from: v.string(),
  where: v.string(),
  body: v.string(),
  importance: vImportance,
  direct: v.boolean(),
  aboutTask: v.boolean(),
  createdAt: v.number(),
  threadId: v.optional(v.string()),
});

/**
 * What an agent's run is shown from its inbox: the unread messages, blocking
 * ones apart, and how many older unread ones were not read at all (`older`,
 * `olderMore` when there are more than were counted); null when the run or
 * agent is gone.
 */
export const vRunInbox = v.union(
  v.null(),
  v.object({ blocking: v.array(vInjectionMessage), unread: v.array(vInjectionMessage), older: v.optional(v.number()), olderMore: v.optional(v.boolean()) }),
);

/**
 * What arrived for a run's agent, for the prompt: unhandled blocking
 * messages (they open the call) and everything else unread (packed into the
 * injection budget). The newest unread are weighed, and besides them every
 * unread critical and blocking message, however old, read by index (up to
 * MAX_URGENT_CANDIDATES each); older unread ones beyond that are counted for
 * the footer, not read.
 */
export async function inboxOfRun(ctx: QueryCtx, run: Doc<"runs">, agent: Doc<"agents">): Promise<Infer<typeof vRunInbox>> {
  const window = await unreadRows(ctx, agent.sessionKey, agent.departmentId, MAX_INJECTION_CANDIDATES + MAX_OLDER_COUNTED + 1);
  const newest = window.slice(0, MAX_INJECTION_CANDIDATES);
  const byMessage = new Map(newest.map((row) => [row.messageId, row]));
  const urgent = [
    ...(await unreadRowsOfImportance(ctx, agent.sessionKey, agent.departmentId, "critical", MAX_URGENT_CANDIDATES)),
    ...(await unreadBlockingRows(ctx, agent.sessionKey, agent.departmentId, MAX_URGENT_CANDIDATES)),
  ];
  for (const row of urgent) if (!byMessage.has(row.messageId)) byMessage.set(row.messageId, row);
  // Newest first, as the window reads them.
  const rows = [...byMessage.values()].sort((a, b) => b._creationTime - a._creationTime);
  const older = window.slice(MAX_INJECTION_CANDIDATES, MAX_INJECTION_CANDIDATES + MAX_OLDER_COUNTED).filter((row) => !byMessage.has(row.messageId)).length;
  const unread = await asInjectionMessages(ctx, agent.departmentId, rows, run.taskId);
  const blockingRows = new Set<string>(rows.filter((row) => row.blocking).map((row) => row.messageId));
  const blockingIds = new Set<string>();
  for (const row of rows) {
    if (row.blocking && row.handledAt === undefined && blockingIds.size < MAX_BLOCKING_PER_CALL) blockingIds.add(row.messageId);
  }
  return {
    blocking: unread.filter((m) => blockingIds.has(m.id)).reverse(),
    // A blocking message that does not open the call still weighs as critical: it must be shown or counted.
    unread: unread.filter((m) => !blockingIds.has(m.id)).map((m) => (blockingRows.has(m.id) ? { ...m, importance: "critical" as const } : m)),
    older,
    olderMore: window.length > MAX_INJECTION_CANDIDATES + MAX_OLDER_COUNTED,
  };
}

/**
 * After the model has seen an injection: what it was shown counts as read,
 * and the blocking messages it opened with as handled (the run resumed with them).
 */
export async function markInjectionSeen(ctx: MutationCtx, agent: Doc<"agents">, shown: string[], blocking: string[]): Promise<void> {
  const now = Date.now();
  const rows = await inboxRowsFor(ctx, agent.sessionKey, [...blocking, ...shown].slice(0, MAX_INJECTION_CANDIDATES + MAX_BLOCKING_PER_CALL));
  for (const row of rows) {
    if (blocking.includes(row.messageId) && row.handledAt === undefined) await ctx.db.patch("inbox", row._id, { handledAt: now });
  }
  if (rows.length > 0) await markRowsRead(ctx, rows, agentActor(agent));
}

/** The end-of-run nudge names these rows: they nudge no more. */
export async function markNudged(ctx: MutationCtx, rows: ReadonlyArray<Doc<"inbox">>): Promise<void> {
  const now = Date.now();
  for (const row of rows) await ctx.db.patch("inbox", row._id, { nudgedAt: now });
}

/** Rows the messaging figures read in a window, per kind, bounded: the department's, or only one person's (`onlyKey`). */
export async function statsRows(ctx: QueryCtx, departmentId: Id<"departments">, since: number, until: number, limit: number, onlyKey?: string) {
  const messages = await ctx.db
    .query("channelMessages")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId).gte("_creationTime", since).lt("_creationTime", until))
    .take(limit);
  // One person's figures count what they posted (their DMs too); the department's leave DMs out, which are their participants' business.
  const posted = onlyKey === undefined ? messages.filter((m) => m.to === undefined) : messages.filter((m) => actorKey(m.from) === onlyKey);
  const read =
    onlyKey === undefined
      ? await ctx.db
          .query("inbox")
          .withIndex("by_department_and_readAt", (q) => q.eq("departmentId", departmentId).gte("readAt", since).lt("readAt", until))
          .take(limit)
      : await ctx.db
          .query("inbox")
          .withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", onlyKey).eq("departmentId", departmentId).gte("readAt", since).lt("readAt", until))
          .take(limit);
  const unread =
    onlyKey === undefined
      ? await ctx.db
          .query("inbox")
          .withIndex("by_department_and_readAt", (q) => q.eq("departmentId", departmentId).eq("readAt", undefined))
          .take(limit)
      : await ctx.db
          .query("inbox")
          .withIndex("by_recipient_and_department_and_readAt", (q) => q.eq("recipientKey", onlyKey).eq("departmentId", departmentId).eq("readAt", undefined))
          .take(limit);
  return { posted, read, unread, partial: messages.length >= limit || read.length >= limit || unread.length >= limit };
}

/** Deletes every inbox row of a message (retention deletes the message). */
export async function forgetInboxRows(ctx: MutationCtx, messageId: Id<"channelMessages">): Promise<void> {
  for (const row of await ctx.db.query("inbox").withIndex("by_message", (q) => q.eq("messageId", messageId)).collect()) await ctx.db.delete("inbox", row._id);
}
