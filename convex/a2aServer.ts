/**
 * The squad as an A2A server (issue 45): the department setting that
 * publishes its agent card (owners and admins; off by default), and what
 * convex/a2aServerApi.ts runs once it has hashed the caller's key: the card's
 * facts, a message sent, a task read, a task cancelled. Every call with a
 * key needs the `a2a:tasks` scope and the card's own department: another
 * department's key is refused, another department's task id is unknown.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { env, internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "./_generated/server";
import type { Doc } from "./_generated/dataModel";
import { departmentMutation, departmentQuery } from "./functions";
import { a2aCardTitle, isFinalA2AState, MAX_A2A_ATTACHMENTS, MAX_A2A_HISTORY } from "./lib/a2aServer";
import { webhookAllowPrivateFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { checkWebhookUrl } from "./lib/webhooks";
import { a2aServerEnabled, a2aServerTaskOf, setA2aServerEnabled, setA2aServerPush, setA2aServerPushedState } from "./records/a2aServer";
import { scopedKeyAgentX } from "./records/agentApiKeys";
import { departmentAgents } from "./records/agents";
import { departmentBySlug } from "./records/departments";
import { limitOrThrow } from "./records/rateLimits";
import { a2aTaskView, cancelA2aTask, clientA2aTaskX, continueA2aTask, openA2aCard } from "./reactions/a2aServer";

/** The scope a key needs to hand the squad work over A2A. */
export const A2A_SERVER_SCOPE = "a2a:tasks" as const;

/** Where a department's A2A server answers, under the HTTP actions origin: the agent card is at `<this>.well-known/agent-card.json`. */
export function a2aServerPath(slug: string): string {
  return `/a2a/${encodeURIComponent(slug)}/`;
}

const vPart = v.union(
  v.object({ kind: v.literal("text"), text: v.string() }),
  v.object({ kind: v.literal("file"), name: v.string(), mediaType: v.string(), url: v.union(v.string(), v.null()) }),
);
const vTaskView = v.object({
  id: v.string(),
  contextId: v.string(),
  state: v.union(v.literal("submitted"), v.literal("working"), v.literal("input-required"), v.literal("completed"), v.literal("failed"), v.literal("canceled")),
  message: v.union(v.string(), v.null()),
  at: v.number(),
  artifacts: v.array(v.object({ id: v.string(), name: v.string(), description: v.string(), parts: v.array(vPart) })),
  history: v.array(v.object({ id: v.string(), role: v.union(v.literal("user"), v.literal("agent")), parts: v.array(vPart), at: v.number() })),
});

const vPushConfig = v.object({ id: v.string(), url: v.string(), token: v.string() });

/** A push target as the client named it, its URL checked as a webhook's is (no loopback or private address unless MAESTRO_WEBHOOK_ALLOW_PRIVATE=1). */
function checkedPush(push: { id: string; url: string; token: string }): { id: string; url: string; token: string } {
  if (push.token.length > 500 || push.id.length > 200) throw new MaestroError("INVALID_ARGUMENT", "A push notification token is at most 500 characters, its id 200.");
  return { id: push.id === "" ? "default" : push.id, url: checkWebhookUrl(push.url, webhookAllowPrivateFromEnv()), token: push.token };
}

/** Saves the task's push target and starts following it for that target (convex/a2aServerPush.ts). */
async function pushTo(ctx: MutationCtx, row: Doc<"a2aServerTasks">, push: { id: string; url: string; token: string }): Promise<void> {
  await setA2aServerPush(ctx, row, push);
  await ctx.scheduler.runAfter(0, internal.a2aServerPush.follow, { taskId: row.taskId, url: push.url, round: 0 });
}

/** The department publishing at `slug`; unknown or not publishing reads as not found (a card that is off does not exist). */
async function publishingX(ctx: QueryCtx, slug: string): Promise<Doc<"departments">> {
  const department = await departmentBySlug(ctx, slug);
  if (department === null || !(await a2aServerEnabled(ctx, department._id))) throw new MaestroError("NOT_FOUND", "No A2A agent is published here.");
  return department;
}

/** The key's agent, holding the scope, of the department publishing at `slug`. */
async function clientX(ctx: QueryCtx, keyHash: string, slug: string): Promise<Doc<"agents">> {
  const department = await publishingX(ctx, slug);
  const agent = await scopedKeyAgentX(ctx, keyHash, A2A_SERVER_SCOPE);
  if (agent.departmentId !== department._id) throw new MaestroError("FORBIDDEN", "This API key belongs to another department: use a key of this department's agents.");
  return agent;
}

/** Owners and admins: whether the department publishes its agent card, where, and what key it takes. */
export const settings = departmentQuery({
  role: "admin",
  args: {},
  returns: v.object({ enabled: v.boolean(), path: v.string(), cardPath: v.string(), siteUrl: v.union(v.string(), v.null()), scope: v.literal(A2A_SERVER_SCOPE) }),
  handler: async (ctx) => {
    const path = a2aServerPath(ctx.department.slug);
    return { enabled: await a2aServerEnabled(ctx, ctx.department._id), path, cardPath: `${path}.well-known/agent-card.json`, siteUrl: env.CONVEX_SITE_URL ?? null, scope: A2A_SERVER_SCOPE };
  },
});

/** Owners and admins: publish the agent card (or stop). */
export const setEnabled = departmentMutation({
  role: "admin",
  args: { enabled: v.boolean() },
  returns: v.null(),
  handler: async (ctx, { enabled }) => {
    await setA2aServerEnabled(ctx, ctx.department._id, enabled, ctx.viewer.user._id);
    return null;
  },
});

/** What the agent card says: the department, its squad lead (the agent) and its roster (the skills). Null when nothing is published at `slug`. */
export const cardFacts = internalQuery({
  args: { slug: v.string() },
  returns: v.union(
    v.null(),
    v.object({
      department: v.string(),
      description: v.string(),
      slug: v.string(),
      lead: v.union(v.object({ name: v.string(), role: v.string() }), v.null()),
      roster: v.array(v.object({ id: v.string(), name: v.string(), role: v.string(), kind: v.string() })),
    }),
  ),
  handler: async (ctx, { slug }) => {
    const department = await departmentBySlug(ctx, slug);
    if (department === null || !(await a2aServerEnabled(ctx, department._id))) return null;
    const agents = await departmentAgents(ctx, department._id);
    const lead = agents.find((a) => a.isSquadLead);
    return {
      department: department.name,
      description: department.description ?? "",
      slug: department.slug,
      lead: lead === undefined ? null : { name: lead.name, role: lead.role },
      roster: agents.filter((a) => !a.isSquadLead).map((a) => ({ id: a.nameKey, name: a.name, role: a.role, kind: a.kind })),
    };
  },
});

/** Checks the key for the department at `slug` before any JSON-RPC is read: 401 unknown key, 403 no scope or another department's, 404 nothing published. */
export const authorizeClient = internalQuery({
  args: { keyHash: v.string(), slug: v.string() },
  returns: v.null(),
  handler: async (ctx, { keyHash, slug }) => {
    await clientX(ctx, keyHash, slug);
    return null;
  },
});

/**
 * `message/send`: without `taskId` a new card for the squad lead; with one,
 * the client's next message on that task (refused once the task is final).
 * `parts` are file and data parts the HTTP action already stored.
 */
export const sendForKey = internalMutation({
  args: {
    keyHash: v.string(),
    slug: v.string(),
    taskId: v.union(v.string(), v.null()),
    contextId: v.union(v.string(), v.null()),
    text: v.string(),
    parts: v.array(v.object({ storageId: v.id("_storage"), name: v.string() })),
    historyLength: v.number(),
    push: v.optional(vPushConfig),
  },
  returns: vTaskView,
  handler: async (ctx, { keyHash, slug, taskId, contextId, text, parts, historyLength, push }) => {
    const client = await clientX(ctx, keyHash, slug);
    await limitOrThrow(ctx, "agentApiCall", client.sessionKey);
    if (parts.length > MAX_A2A_ATTACHMENTS) throw new MaestroError("TOO_LARGE", `A message brings at most ${MAX_A2A_ATTACHMENTS} file and data parts.`);
    if (taskId === null) {
      if (text.trim() === "" && parts.length === 0) throw new MaestroError("INVALID_ARGUMENT", "The message has no text, file or data part.");
      const target = push === undefined ? undefined : checkedPush(push);
      const { task, row } = await openA2aCard(ctx, client, { text, title: a2aCardTitle(text, parts.length), parts, contextId });
      if (target !== undefined) await pushTo(ctx, row, target);
      return await a2aTaskView(ctx, task, row, historyLength);
    }
    const { task, row } = await clientA2aTaskX(ctx, client, taskId);
    const before = await a2aTaskView(ctx, task, row, 0);
    if (isFinalA2AState(before.state)) throw new MaestroError("CONFLICT", `The task is ${before.state}: it takes no more messages.`);
    if (parts.length > 0) throw new MaestroError("INVALID_ARGUMENT", "A follow-up message takes text only; send files with the first message.");
    if (text.trim() === "") throw new MaestroError("INVALID_ARGUMENT", "The message has no text.");
    if (push !== undefined) await pushTo(ctx, row, checkedPush(push));
    await continueA2aTask(ctx, client, task, text);
    return await a2aTaskView(ctx, (await ctx.db.get("tasks", task._id))!, row, historyLength);
  },
});

/** `tasks/get`: the task as its card says it is, with up to `historyLength` messages of the card's thread. */
export const getForKey = internalQuery({
  args: { keyHash: v.string(), slug: v.string(), taskId: v.string(), historyLength: v.number() },
  returns: vTaskView,
  handler: async (ctx, { keyHash, slug, taskId, historyLength }) => {
    const client = await clientX(ctx, keyHash, slug);
    const { task, row } = await clientA2aTaskX(ctx, client, taskId);
    return await a2aTaskView(ctx, task, row, Math.min(historyLength, MAX_A2A_HISTORY));
  },
});

/** `tasks/cancel`: stops the runs on the card and its subtasks and archives the card; a final task is not cancelable (CONFLICT). */
export const cancelForKey = internalMutation({
  args: { keyHash: v.string(), slug: v.string(), taskId: v.string() },
  returns: vTaskView,
  handler: async (ctx, { keyHash, slug, taskId }) => {
    const client = await clientX(ctx, keyHash, slug);
    await limitOrThrow(ctx, "agentApiCall", client.sessionKey);
    const { task, row } = await clientA2aTaskX(ctx, client, taskId);
    const before = await a2aTaskView(ctx, task, row, 0);
    if (isFinalA2AState(before.state)) throw new MaestroError("CONFLICT", `The task is already ${before.state}.`);
    await cancelA2aTask(ctx, client, task, row);
    const fresh = await clientA2aTaskX(ctx, client, taskId);
    return await a2aTaskView(ctx, fresh.task, fresh.row, 0);
  },
});

/** `CreateTaskPushNotificationConfig`: where the task's updates are POSTed (one target per task; a new one replaces it). */
export const setPushForKey = internalMutation({
  args: { keyHash: v.string(), slug: v.string(), taskId: v.string(), push: vPushConfig },
  returns: vPushConfig,
  handler: async (ctx, { keyHash, slug, taskId, push }) => {
    const client = await clientX(ctx, keyHash, slug);
    await limitOrThrow(ctx, "agentApiCall", client.sessionKey);
    const { row } = await clientA2aTaskX(ctx, client, taskId);
    const target = checkedPush(push);
    await pushTo(ctx, row, target);
    return target;
  },
});

/** `GetTaskPushNotificationConfig` / `ListTaskPushNotificationConfigs`: the task's push target, if it has one. */
export const pushForKey = internalQuery({
  args: { keyHash: v.string(), slug: v.string(), taskId: v.string() },
  returns: v.union(vPushConfig, v.null()),
  handler: async (ctx, { keyHash, slug, taskId }) => {
    const client = await clientX(ctx, keyHash, slug);
    const { row } = await clientA2aTaskX(ctx, client, taskId);
    return row.push ?? null;
  },
});

/** `DeleteTaskPushNotificationConfig`: no more pushes for the task. */
export const deletePushForKey = internalMutation({
  args: { keyHash: v.string(), slug: v.string(), taskId: v.string() },
  returns: v.null(),
  handler: async (ctx, { keyHash, slug, taskId }) => {
    const client = await clientX(ctx, keyHash, slug);
    const { row } = await clientA2aTaskX(ctx, client, taskId);
    await setA2aServerPush(ctx, row, undefined);
    return null;
  },
});

/** What convex/a2aServerPush.ts pushes: the task as its card says it is, when `url` is still its target. */
export const pushPayload = internalQuery({
  args: { taskId: v.id("tasks"), url: v.string() },
  returns: v.union(v.null(), v.object({ token: v.string(), pushedState: v.union(v.string(), v.null()), view: vTaskView })),
  handler: async (ctx, { taskId, url }) => {
    const task = await ctx.db.get("tasks", taskId);
    const row = task === null ? null : await a2aServerTaskOf(ctx, taskId);
    if (task === null || row === null || row.push?.url !== url) return null;
    return { token: row.push.token, pushedState: row.pushedState ?? null, view: await a2aTaskView(ctx, task, row, 0) };
  },
});

/** Records the state pushed to `url` (nothing when the target changed meanwhile). */
export const recordPushed = internalMutation({
  args: { taskId: v.id("tasks"), url: v.string(), state: v.string() },
  returns: v.null(),
  handler: async (ctx, { taskId, url, state }) => {
    const row = await a2aServerTaskOf(ctx, taskId);
    if (row !== null && row.push?.url === url) await setA2aServerPushedState(ctx, row, state);
    return null;
  },
});
