import { authTables } from "@convex-dev/auth/server";
import { defineSchema, defineTable } from "convex/server";
import { v } from "convex/values";
import {
  vActivityData,
  vActivityType,
  vActor,
  vAgentKind,
  vAgentStatus,
  vMemberRole,
  vMention,
  vNotificationKind,
  vPriority,
  vRunStatus,
  vRunTiming,
  vRunTrigger,
  vTaskStatus,
  vToolCallRecord,
  vTriggerKind,
} from "./validators";

export default defineSchema({
  // Convex Auth's tables (accounts, sessions, refresh tokens, its failed-attempt limits).
  ...authTables,

  /** A person: a Convex Auth account (email + password) or a Clerk identity. */
  users: defineTable({
    name: v.optional(v.string()),
    image: v.optional(v.string()),
    email: v.optional(v.string()),
    emailVerificationTime: v.optional(v.number()),
    phone: v.optional(v.string()),
    phoneVerificationTime: v.optional(v.number()),
    isAnonymous: v.optional(v.boolean()),
    /** Set for people signed in through an external provider (Clerk): `ctx.auth`'s tokenIdentifier. */
    tokenIdentifier: v.optional(v.string()),
  })
    .index("email", ["email"])
    .index("phone", ["phone"])
    .index("by_tokenIdentifier", ["tokenIdentifier"]),

  /** A link that lets one person join one department with one role, once, before it expires. */
  invites: defineTable({
    departmentId: v.id("departments"),
    email: v.string(),
    role: vMemberRole,
    /** Lower-case hex SHA-256 of the token; the token itself is shown once, to the inviter. */
    tokenHash: v.string(),
    expiresAt: v.number(),
    createdBy: v.id("users"),
    acceptedAt: v.optional(v.number()),
    acceptedBy: v.optional(v.id("users")),
    revokedAt: v.optional(v.number()),
  })
    .index("by_tokenHash", ["tokenHash"])
    .index("by_department", ["departmentId"]),

  departments: defineTable({
    name: v.string(),
    slug: v.string(),
    /** The department's current `#maestro` chat session; "New session" replaces it. */
    chatSessionId: v.string(),
  }).index("by_slug", ["slug"]),

  members: defineTable({
    departmentId: v.id("departments"),
    userId: v.id("users"),
    name: v.string(),
    role: vMemberRole,
  })
    .index("by_user", ["userId"])
    .index("by_department_and_user", ["departmentId", "userId"]),

  agents: defineTable({
    departmentId: v.id("departments"),
    name: v.string(),
    /** Lower-cased name, so names stay unique per department case-insensitively. */
    nameKey: v.string(),
    role: v.string(),
    kind: vAgentKind,
    sessionKey: v.string(),
    status: vAgentStatus,
    isSquadLead: v.boolean(),
    allowedTools: v.array(v.string()),
    model: v.optional(v.string()),
    systemPrompt: v.string(),
  })
    .index("by_department_and_nameKey", ["departmentId", "nameKey"])
    .index("by_sessionKey", ["sessionKey"]),

  tasks: defineTable({
    departmentId: v.id("departments"),
    title: v.string(),
    description: v.string(),
    status: vTaskStatus,
    priority: vPriority,
    tags: v.array(v.string()),
    assigneeSessionKeys: v.array(v.string()),
    createdBy: v.string(),
    parentTaskId: v.optional(v.id("tasks")),
    delegatedBy: v.optional(v.string()),
    /** Position within its column; fractional so a move writes one document. */
    order: v.number(),
    updatedAt: v.number(),
    /** Set by delegate_task: the same call retried finds its task instead of creating another. */
    delegationKey: v.optional(v.string()),
    /** An agent's open question (ask_question): the task is blocked until a human answers. */
    pendingQuestion: v.optional(
      v.object({ agentSessionKey: v.string(), messageId: v.id("messages"), previousStatus: vTaskStatus }),
    ),
  })
    .index("by_department_and_status_and_order", ["departmentId", "status", "order"])
    .index("by_parent", ["parentTaskId"])
    .index("by_delegationKey", ["delegationKey"])
    .searchIndex("search_title", { searchField: "title", filterFields: ["departmentId", "status"] }),

  /** A task's thread. */
  messages: defineTable({
    taskId: v.id("tasks"),
    departmentId: v.id("departments"),
    author: vActor,
    content: v.string(),
    mentions: v.array(vMention),
  }).index("by_task", ["taskId"]),

  /** The department's feed, newest first by creation time. */
  activities: defineTable({
    departmentId: v.id("departments"),
    type: vActivityType,
    actor: vActor,
    taskId: v.optional(v.id("tasks")),
    data: vActivityData,
  }).index("by_department", ["departmentId"]),

  notifications: defineTable({
    departmentId: v.id("departments"),
    /** An agent's sessionKey or `member:<userId>`. */
    recipientKey: v.string(),
    kind: vNotificationKind,
    taskId: v.id("tasks"),
    messageId: v.optional(v.id("messages")),
    readAt: v.optional(v.number()),
  })
    .index("by_recipient_and_readAt", ["recipientKey", "readAt"])
    .index("by_recipient_and_task_and_readAt", ["recipientKey", "taskId", "readAt"]),

  /**
   * Work for the brain: an agent was assigned a task or mentioned in its
   * thread. Recorded by an internal function the board schedules; the brain
   * consumes pending rows.
   */
  agentTriggers: defineTable({
    departmentId: v.id("departments"),
    agentSessionKey: v.string(),
    taskId: v.id("tasks"),
    kind: vTriggerKind,
    messageId: v.optional(v.id("messages")),
    status: v.union(v.literal("pending"), v.literal("consumed")),
    /** The run that took this trigger up (a new run, or one already queued or running). */
    runId: v.optional(v.id("runs")),
    /** Why no run took it up, when none did. */
    note: v.optional(v.string()),
  })
    .index("by_task", ["taskId"])
    .index("by_agent_and_task", ["agentSessionKey", "taskId"]),

  /** One agent thinking about one task: assemble context → model → tools → reply. */
  runs: defineTable({
    departmentId: v.id("departments"),
    agentId: v.id("agents"),
    agentSessionKey: v.string(),
    taskId: v.id("tasks"),
    trigger: vRunTrigger,
    status: vRunStatus,
    /** Why it ended: "replied", a guard's reason, the model's error… */
    reason: v.optional(v.string()),
    iterations: v.number(),
    toolCalls: v.array(vToolCallRecord),
    model: v.optional(v.string()),
    promptTokens: v.number(),
    completionTokens: v.number(),
    /** Triggers folded into this run while it was queued or running. */
    foldedTriggers: v.number(),
    /** A trigger arrived while running: run once more when done. */
    rerunRequested: v.boolean(),
    /** The newest trigger folded in while running: what the follow-up run answers. */
    foldedTrigger: v.optional(vRunTrigger),
    delegations: v.number(),
    /** Loop guards that stopped something in this run, in words. */
    guards: v.array(v.string()),
    /** Per model call: ms spent assembling context, waiting for the model, dispatching tools. */
    timings: v.array(vRunTiming),
    startedAt: v.optional(v.number()),
    endedAt: v.optional(v.number()),
  })
    .index("by_task", ["taskId"])
    .index("by_agent_and_task", ["agentSessionKey", "taskId"])
    .index("by_agent_and_status", ["agentSessionKey", "status"]),

  /** A department admin's overrides of the JSON config's chat defaults (one document per department). */
  settings: defineTable({
    departmentId: v.id("departments"),
    chat: v.object({
      enabled: v.optional(v.boolean()),
      maxMessageChars: v.optional(v.number()),
      scannerEnabled: v.optional(v.boolean()),
      scannerTimeoutMs: v.optional(v.number()),
    }),
  }).index("by_department", ["departmentId"]),

  /** The #maestro chat: `id` increases strictly across all sessions; reads filter by session. */
  chat: defineTable({
    id: v.number(),
    departmentId: v.id("departments"),
    sessionId: v.string(),
    /** RFC 3339. */
    ts: v.string(),
    author: v.string(),
    text: v.string(),
    truncated: v.boolean(),
    redacted: v.boolean(),
    /** Which person posted an `@human` message (the spec's author stays `@human`); absent for agents and the WebUI password. */
    postedBy: v.optional(v.object({ userId: v.id("users"), name: v.string() })),
  })
    .index("by_chat_id", ["id"])
    .index("by_session_and_chat_id", ["sessionId", "id"]),

  /** Each agent's chat cursor: the highest chat id it has been shown. */
  chatCursors: defineTable({
    agentId: v.string(),
    lastId: v.number(),
    /** The agent's last turn used only chat tools: remind it next time. */
    remindNext: v.boolean(),
  }).index("by_agentId", ["agentId"]),

  /**
   * API keys that let an agent outside Maestro use the chat (the MCP server).
   * Only the key's SHA-256 is kept; the plaintext is shown once, on creation.
   */
  agentApiKeys: defineTable({
    agentId: v.id("agents"),
    departmentId: v.id("departments"),
    /** Lower-case hex SHA-256 of the whole key. */
    hash: v.string(),
    /** The key's first 12 characters, to tell keys apart in the UI. */
    prefix: v.string(),
    /** The admin who created it. */
    createdBy: v.id("users"),
    revokedAt: v.optional(v.number()),
  })
    .index("by_hash", ["hash"])
    // The list shows an agent's keys newest first (by _creationTime); the next index counts active ones.
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_agent", ["agentId"])
    .index("by_agent_and_revokedAt", ["agentId", "revokedAt"]),
});
