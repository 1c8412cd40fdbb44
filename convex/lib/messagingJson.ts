/**
 * The messaging spec's data contracts ("Minimal Data Contracts (JSON)"): how
 * the HTTP API (convex/messagingApi.ts) and the MCP tools over it answer with
 * Maestro's rows. snake_case, ids as strings, times in epoch milliseconds; a
 * project is a department, so `project_id` is the department's id.
 *
 *   Message { id, from, to?, type, body, mentions[], artifacts[], blocking, importance, created_at,
 *             context: {project_id, task_id?, batch_id?}, correlation_id?, channel_id, thread_id?, reply_count }
 *   Channel { id, project_id, name, topic?, visibility, created_by, created_at, archived, members?, last_message_at? }
 *   Thread  { id, channel_id, root_message_id, created_by, created_at, reply_count, last_reply_at? }
 *   DM      { id, participants[], created_at, last_message_at? }
 *   Project { id, name, slug, description?, owner, created_at, schema_version }
 *   Agent   { id, name, role, endpoint_url, capabilities[], owner, project_id }
 */
import type { Doc } from "../_generated/dataModel";
import type { Actor, Artifact } from "../validators";
import { actorName } from "./actors";

/** The contract's version, as the spec's project hash carries it. */
export const SCHEMA_VERSION = 1;

/** A message as the records hand it out (records/channelMessages publicMessage: no department). */
export type StoredMessage = Omit<Doc<"channelMessages">, "departmentId">;

export interface MessageJson {
  id: string;
  from: string;
  to?: string[];
  type: "channel" | "thread" | "dm";
  body: string;
  mentions: string[];
  artifacts: ArtifactJson[];
  blocking: boolean;
  importance: string;
  created_at: number;
  context: { project_id: string; task_id?: string; batch_id?: string };
  correlation_id?: string;
  channel_id: string;
  thread_id?: string;
  reply_count: number;
}

export type ArtifactJson =
  | { kind: "task"; task_id: string }
  | { kind: "link"; url: string; title?: string }
  | { kind: "file"; file_id: string; name: string; content_type: string; size: number };

function artifactJson(artifact: Artifact): ArtifactJson {
  if (artifact.kind === "task") return { kind: "task", task_id: artifact.taskId };
  if (artifact.kind === "link") return artifact.title === undefined ? { kind: "link", url: artifact.url } : { kind: "link", url: artifact.url, title: artifact.title };
  return { kind: "file", file_id: artifact.storageId, name: artifact.name, content_type: artifact.contentType, size: artifact.size };
}

/** A time as the contract gives it: whole epoch milliseconds (a row's `_creationTime` has a fraction that orders rows made in the same millisecond). */
export function ms(time: number): number;
export function ms(time: number | undefined): number | undefined;
export function ms(time: number | undefined): number | undefined {
  return time === undefined ? undefined : Math.floor(time);
}

/** Where a history page starts (records/channelMessages PageStart): after a message's exact time, or at a whole millisecond. */
export type CursorStart = { after: number } | { atOrAfter: number };

/** What a history page's `next_cursor` holds, base64url (opaque to clients): `m1:>` and a message's exact time, or `m1:>=` and a millisecond. */
const CURSOR_PREFIX = "m1:";

/** The cursor that pages on from `start`. */
export function messageCursor(start: CursorStart): string {
  const text = "after" in start ? `${CURSOR_PREFIX}>${start.after}` : `${CURSOR_PREFIX}>=${start.atOrAfter}`;
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Where a cursor from `messageCursor` starts, or null for text that is not one. */
export function cursorStart(cursor: string): CursorStart | null {
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const match = /^m1:(>=?)(\d+(?:\.\d+)?)$/.exec(text);
  if (match === null) return null;
  const time = Number(match[2]);
  if (!Number.isFinite(time)) return null;
  return match[1] === ">" ? { after: time } : { atOrAfter: time };
}

/** Leaves out the fields that are undefined, so an absent optional field is absent in the JSON too. */
function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function messageJson(m: StoredMessage, projectId: string): MessageJson {
  return defined({
    id: m._id,
    from: actorName(m.from),
    to: m.to,
    type: m.type,
    body: m.body,
    mentions: m.mentions.map((mention) => mention.name),
    artifacts: m.artifacts.map(artifactJson),
    blocking: m.blocking,
    importance: m.importance,
    created_at: ms(m._creationTime),
    context: defined({ project_id: projectId, task_id: m.context.taskId, batch_id: m.context.batchId }),
    correlation_id: m.correlationId,
    channel_id: m.channelId,
    thread_id: m.threadRootId,
    reply_count: m.replyCount,
  });
}

/** A conversation as the tools describe it (tools/messaging channelInfoTool). */
export interface ConversationInfo {
  _id: string;
  kind: "channel" | "dm";
  name: string;
  topic?: string;
  visibility: string;
  archived: boolean;
  createdBy: Actor;
  createdAt: number;
  /** Names; left out of lists. */
  members?: string[];
  lastMessageAt?: number;
}

export interface ChannelJson {
  id: string;
  project_id: string;
  name: string;
  topic?: string;
  visibility: string;
  created_by: string;
  created_at: number;
  archived: boolean;
  members?: string[];
  last_message_at?: number;
}

export interface DmJson {
  id: string;
  participants: string[];
  created_at: number;
  last_message_at?: number;
}

export function channelJson(c: ConversationInfo, projectId: string): ChannelJson {
  return defined({
    id: c._id,
    project_id: projectId,
    name: c.name,
    topic: c.topic === "" ? undefined : c.topic,
    visibility: c.visibility,
    created_by: actorName(c.createdBy),
    created_at: ms(c.createdAt),
    archived: c.archived,
    members: c.members,
    last_message_at: ms(c.lastMessageAt),
  });
}

export function dmJson(c: Pick<ConversationInfo, "_id" | "members" | "createdAt" | "lastMessageAt">): DmJson {
  return defined({ id: c._id, participants: c.members ?? [], created_at: ms(c.createdAt), last_message_at: ms(c.lastMessageAt) });
}

/** A channel or a DM, each in its own contract. */
export function conversationJson(c: ConversationInfo, projectId: string): ChannelJson | DmJson {
  return c.kind === "dm" ? dmJson(c) : channelJson(c, projectId);
}

export interface ThreadJson {
  id: string;
  channel_id: string;
  root_message_id: string;
  created_by: string;
  created_at: number;
  reply_count: number;
  last_reply_at?: number;
}

/** A thread is named by its first message: the thread's id is that message's. */
export function threadJson(root: StoredMessage): ThreadJson {
  return defined({
    id: root._id,
    channel_id: root.channelId,
    root_message_id: root._id,
    created_by: actorName(root.from),
    created_at: ms(root._creationTime),
    reply_count: root.replyCount,
    last_reply_at: ms(root.lastReplyAt),
  });
}

export interface ProjectJson {
  id: string;
  name: string;
  slug: string;
  description?: string;
  owner: string | null;
  created_at: number;
  schema_version: number;
}

export function projectJson(department: Pick<Doc<"departments">, "_id" | "name" | "slug" | "description" | "_creationTime">, owner: string | null): ProjectJson {
  return defined({
    id: department._id,
    name: department.name,
    slug: department.slug,
    description: department.description,
    owner,
    created_at: ms(department._creationTime),
    schema_version: SCHEMA_VERSION,
  });
}

export interface AgentJson {
  id: string;
  name: string;
  role: string;
  /** Where the agent is reached in this API: its inbox (`GET`), on the origin the request came to. */
  endpoint_url: string;
  /** The tools it may use. */
  capabilities: string[];
  /** The person who added it, else the project's owner; null when neither is known. */
  owner: string | null;
  project_id: string;
}

/** The agent's address in the HTTP API on `origin` (scheme, host and port, no trailing slash): its inbox, where its messages are read. */
export function agentEndpointUrl(origin: string, agentId: string): string {
  return `${origin}/agents/${encodeURIComponent(agentId)}/inbox`;
}

export function agentJson(agent: Pick<Doc<"agents">, "_id" | "name" | "role" | "allowedTools">, { origin, owner, projectId }: { origin: string; owner: string | null; projectId: string }): AgentJson {
  return {
    id: agent._id,
    name: agent.name,
    role: agent.role,
    endpoint_url: agentEndpointUrl(origin, agent._id),
    capabilities: [...agent.allowedTools],
    owner,
    project_id: projectId,
  };
}

/** A task as the HTTP API answers it (`POST /tasks`): a card of the project's board. */
export interface TaskJson {
  id: string;
  title: string;
  description: string;
  status: string;
  priority: string;
  tags: string[];
  /** The assigned agents, by name. */
  assignees: string[];
  /** Who made it, by name. */
  created_by: string;
  created_at: number;
  project_id: string;
}

export function taskJson(
  task: Pick<Doc<"tasks">, "_id" | "title" | "description" | "status" | "priority" | "tags" | "_creationTime">,
  { assignees, createdBy, projectId }: { assignees: string[]; createdBy: string; projectId: string },
): TaskJson {
  return {
    id: task._id,
    title: task.title,
    description: task.description,
    status: task.status,
    priority: task.priority,
    tags: [...task.tags],
    assignees,
    created_by: createdBy,
    created_at: ms(task._creationTime),
    project_id: projectId,
  };
}
