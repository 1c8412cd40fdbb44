/**
 * Following work over the HTTP API and MCP (convex/tasksApi.ts): a task, its
 * subtasks, what waits on a person, and its thread's messages, in the
 * messaging contracts' style (snake_case, ids as strings, whole epoch
 * milliseconds, names rather than keys).
 *
 *   TaskDetail    { id, title, description, status, priority, tags[], assignees[], created_by, created_at,
 *                   updated_at, project_id, archived, delegated_by, parent, subtasks[], subtasks_truncated,
 *                   waiting_for_person[] }
 *   TaskSummary   { id, title, status, priority, tags[], assignees[], delegated_by, parent_id, updated_at }
 *   ThreadMessage { id, task_id, from, from_kind, body, mentions[], created_at, edited, deleted, correlation_id? }
 */
import type { Doc } from "../_generated/dataModel";
import { actorName } from "./actors";
import { ms, taskJson, type TaskJson } from "./messagingJson";

/** A subtask as its parent lists it. */
export interface SubtaskJson {
  id: string;
  title: string;
  status: string;
  assignees: string[];
  delegated_by: string | null;
  updated_at: number;
}

/** Something on the task that waits for a person to decide: an agent's question, a tool call to approve, a plan to approve. */
export interface WaitingJson {
  kind: "question" | "approval" | "plan";
  /** The card's id (the app's question, approval or plan card). */
  id: string;
  /** The agent that waits. */
  agent: string;
  /** The question, the tool to approve, or the plan's summary. */
  text: string;
  since: number;
  /** When the card lapses unanswered; null for cards that never do. */
  expires_at: number | null;
}

export interface TaskDetailJson extends TaskJson {
  updated_at: number;
  archived: boolean;
  delegated_by: string | null;
  parent: { id: string; title: string; status: string } | null;
  subtasks: SubtaskJson[];
  subtasks_truncated: boolean;
  waiting_for_person: WaitingJson[];
}

export interface TaskSummaryJson {
  id: string;
  title: string;
  status: string;
  priority: string;
  tags: string[];
  assignees: string[];
  delegated_by: string | null;
  parent_id: string | null;
  updated_at: number;
}

export interface ThreadMessageJson {
  id: string;
  task_id: string;
  from: string;
  from_kind: "agent" | "member" | "system";
  body: string;
  mentions: string[];
  created_at: number;
  edited: boolean;
  deleted: boolean;
  correlation_id?: string;
}

/** A task's row and what its reader resolved (names, its parent, subtasks, waiting cards) as a TaskDetail. */
export function taskDetailJson(
  task: Doc<"tasks">,
  resolved: {
    assignees: string[];
    createdBy: string;
    delegatedBy: string | null;
    parent: Doc<"tasks"> | null;
    subtasks: SubtaskJson[];
    subtasksTruncated: boolean;
    waiting: WaitingJson[];
  },
): TaskDetailJson {
  return {
    ...taskJson(task, { assignees: resolved.assignees, createdBy: resolved.createdBy, projectId: task.departmentId }),
    updated_at: ms(task.updatedAt),
    archived: task.archivedAt !== undefined,
    delegated_by: resolved.delegatedBy,
    parent: resolved.parent === null ? null : { id: resolved.parent._id, title: resolved.parent.title, status: resolved.parent.status },
    subtasks: resolved.subtasks,
    subtasks_truncated: resolved.subtasksTruncated,
    waiting_for_person: resolved.waiting,
  };
}

export function taskSummaryJson(task: Doc<"tasks">, { assignees, delegatedBy }: { assignees: string[]; delegatedBy: string | null }): TaskSummaryJson {
  return {
    id: task._id,
    title: task.title,
    status: task.status,
    priority: task.priority,
    tags: [...task.tags],
    assignees,
    delegated_by: delegatedBy,
    parent_id: task.parentTaskId ?? null,
    updated_at: ms(task.updatedAt),
  };
}

export function threadMessageJson(m: Doc<"messages">): ThreadMessageJson {
  const json: ThreadMessageJson = {
    id: m._id,
    task_id: m.taskId,
    from: actorName(m.author),
    from_kind: m.author.kind,
    body: m.content,
    mentions: m.mentions.map((mention) => mention.name),
    created_at: ms(m._creationTime),
    edited: m.editedAt !== undefined,
    deleted: m.deletedAt !== undefined,
  };
  if (m.correlationId !== undefined) json.correlation_id = m.correlationId;
  return json;
}
