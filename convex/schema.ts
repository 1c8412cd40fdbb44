import { authTables } from "@convex-dev/auth/server";
import { defineSchema, defineTable } from "convex/server";
import { v } from "convex/values";
import {
  vActivityData,
  vApiScope,
  vActivityType,
  vActor,
  vAgentKind,
  vArtifact,
  vFileArtifact,
  vChannelKind,
  vChannelVisibility,
  vEventType,
  vImportance,
  vMessageContext,
  vMessageType,
  vAgentStatus,
  vMemberRole,
  vMention,
  vNotificationKind,
  vPriority,
  vRunStatus,
  vRunTiming,
  vRunTrigger,
  vTaskStatus,
  vLeadMode,
  vChatOverrides,
  vToolApproval,
  vToolCallRecord,
  vTriggerKind,
  vApprovalStatus,
  vPlanStatus,
  vPlanStep,
  vQuestionStatus,
  vRunPause,
  vPiiRules,
  vToolCallMode,
  vSummariserSetting,
  vEvalResult,
  vA2aRemoteAgent,
  vA2aRemotePhase,
} from "./validators";
import { runEventFields } from "./lib/runEvents";
import { SLASH_ACTIONS } from "./lib/slashCommands";

/** What every pause card (approvals, questions, plans: records/pauseCards.ts) holds: the run it pauses, its task and agent. */
const pauseCardFields = { departmentId: v.id("departments"), runId: v.id("runs"), taskId: v.id("tasks"), agentId: v.id("agents") };

/** A message its author edited, or that its author or an admin deleted (its text is then gone; the row keeps the thread whole). */
const messageChangeFields = { editedAt: v.optional(v.number()), deletedAt: v.optional(v.number()) };

/** What a card a tool asks with (a question, a plan) holds besides its own fields. */
const askedCardFields = {
  /** Absent on cards from before cards expired. */
  expiresAt: v.optional(v.number()),
  /** The call's idempotency key (lib/idempotency): the same call from the same cause does not ask twice. */
  key: v.optional(v.string()),
};

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
  /** One-time links an owner or admin makes for a member who forgot their password (Maestro sends no email). */
  passwordResets: defineTable({
    /** The department whose owner or admin made it. */
    departmentId: v.id("departments"),
    /** Whose password it sets: only theirs. */
    userId: v.id("users"),
    /** Their sign-in email (the password account's id), as it was when the link was made. */
    email: v.string(),
    /** Lower-case hex SHA-256 of the token; the token itself is shown once, to its maker. */
    tokenHash: v.string(),
    expiresAt: v.number(),
    createdBy: v.id("users"),
    usedAt: v.optional(v.number()),
    revokedAt: v.optional(v.number()),
  })
    .index("by_tokenHash", ["tokenHash"])
    .index("by_user", ["userId"]),
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
    /** What the department is for, in a line or two (the messaging spec's Project `description`); cleaned, bounded and secret-scanned. */
    description: v.optional(v.string()),
    /** The department's current `#maestro` chat session; "New session" replaces it. */
    chatSessionId: v.string(),
    /**
     * A copy of its settings row's `chat` overrides, written with it (records/settings saveChatSettings):
     * a chat post reads its department anyway, so it reads no settings row. Absent on a department made
     * before the copy, which reads its row instead.
     */
    chat: v.optional(vChatOverrides),
    /** Spend per calendar month (UTC) past which no new run starts, in micro-dollars (lib/pricing.ts); none when unset. */
    monthlyBudgetMicros: v.optional(v.number()),
    /**
     * A throwaway department of an eval run in this department (convex/evals.ts): it has no members, so
     * no list, search or address reaches it, and it is deleted once its scenario is scored (a sweep
     * removes leftovers).
     */
    evalOf: v.optional(v.id("departments")),
  })
    .index("by_slug", ["slug"])
    .index("by_evalOf", ["evalOf"]),

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
    /** Per-tool approval policies that differ from the registry's defaults (tools/registry). */
    toolApprovals: v.optional(v.array(vToolApproval)),
    model: v.optional(v.string()),
    systemPrompt: v.string(),
    /** The person who added it (the spec's Agent `owner`); none for agents made before this was kept, and seeded ones. */
    createdBy: v.optional(v.id("users")),
    /** Run outside Maestro (by a program holding its key): Maestro starts no runs of it and hands it its work instead (reactions/outside). */
    runsOutside: v.optional(v.boolean()),
    /** Where its work is POSTed, signed with `endpointSecret` (an outside agent's; checked as webhook URLs are). */
    endpointUrl: v.optional(v.string()),
    /** The HMAC key of its endpoint's deliveries; shown to the admin once, when the URL is set. */
    endpointSecret: v.optional(v.string()),
    /** An A2A agent (issue 45): what its agent card said when it was added; Maestro follows its work through `a2aRemoteTasks`. */
    a2aRemote: v.optional(vA2aRemoteAgent),
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
      v.object({
        agentSessionKey: v.string(),
        messageId: v.id("messages"),
        previousStatus: vTaskStatus,
        /** The question card a reply in the thread answers. */
        questionId: v.optional(v.id("questions")),
      }),
    ),
    /** Set by /mode (switch_mode): "plan" makes the lead propose a plan before delegating on this task. */
    leadMode: v.optional(vLeadMode),
    /** Set by /model (set_model): the model agents use on this task, overriding their own. */
    model: v.optional(v.string()),
    /** Archived: off the board unless its filter asks for archived tasks; its runs were stopped. */
    archivedAt: v.optional(v.number()),
    /** Deleted: gone for everyone (every read treats it as not found); kept so runs and cards that name it stay whole. */
    deletedAt: v.optional(v.number()),
    /** The channel the task's work is followed in: its delegations' updates are posted there too (reactions/a2a); delegated tasks inherit it. */
    channelId: v.optional(v.id("channels")),
    /**
     * An agent's inbox task (reactions/delivery): the sessionKey of the agent whose
     * runs for messages about no task (a DM, a #maestro mention) it holds. Never a
     * board card: the board, its counters, search and `#` links leave it out; its
     * runs, approvals and Stop work on it as on any task.
     */
    inboxOf: v.optional(v.string()),
  })
    .index("by_department_and_status_and_order", ["departmentId", "status", "order"])
    /** The board's unfiltered columns: only the cards it shows (live, not archived, no agent's inbox task), in column order. */
    .index("by_department_and_status_and_deletedAt_and_archivedAt_and_inboxOf_and_order", ["departmentId", "status", "deletedAt", "archivedAt", "inboxOf", "order"])
    .index("by_parent", ["parentTaskId"])
    .index("by_delegationKey", ["delegationKey"])
    .searchIndex("search_title", { searchField: "title", filterFields: ["departmentId", "status"] }),

  /**
   * How many cards each board column holds (live, not archived tasks of one
   * department in one status): kept by records/tasks.ts on every insert,
   * move, archive and delete, so a column shows its count reading one row
   * instead of counting the column.
   */
  taskColumnCounts: defineTable({
    departmentId: v.id("departments"),
    status: vTaskStatus,
    count: v.number(),
  }).index("by_department_and_status", ["departmentId", "status"]),

  /** A task's thread. */
  messages: defineTable({
    taskId: v.id("tasks"),
    departmentId: v.id("departments"),
    author: vActor,
    content: v.string(),
    mentions: v.array(vMention),
    /** Tasks of the same department the message links with `#` (checked when posted). */
    taskLinks: v.optional(v.array(v.id("tasks"))),
    /** A client's own small record (lib/messageMetadata bounds it), secret-scanned like the text. */
    metadata: v.optional(v.record(v.string(), v.string())),
    /** The A2A envelope's id, on the lines a delegation posts (reactions/a2a). */
    correlationId: v.optional(v.string()),
    /** Files the author uploaded for this task and attached (records/taskFiles), as storage recorded them. */
    files: v.optional(v.array(vFileArtifact)),
    ...messageChangeFields,
  }).index("by_task", ["taskId"]),

  /** The department's feed, newest first by creation time. */
  activities: defineTable({
    departmentId: v.id("departments"),
    type: vActivityType,
    actor: vActor,
    taskId: v.optional(v.id("tasks")),
    /** The thread message a `message_posted` entry is about: its preview follows the message's edits. */
    messageId: v.optional(v.id("messages")),
    /** The channel or DM message a `blocking_message_received` entry quotes: its preview follows the message's edits too. */
    channelMessageId: v.optional(v.id("channelMessages")),
    data: vActivityData,
  })
    .index("by_department", ["departmentId"])
    .index("by_messageId", ["messageId"])
    .index("by_channelMessageId", ["channelMessageId"]),

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
    .index("by_recipient_and_task_and_readAt", ["recipientKey", "taskId", "readAt"])
    // Oldest first: the history retention's sweep (convex/retention.ts).
    .index("by_department", ["departmentId"]),

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
    .index("by_agent_and_task", ["agentSessionKey", "taskId"])
    // Handled wake-ups, oldest first: the history retention's sweep.
    .index("by_department_and_status", ["departmentId", "status"]),

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
    /** Written by earlier versions: the newest trigger folded in while running (records/runs rerunTriggersOf reads it). */
    foldedTrigger: v.optional(vRunTrigger),
    /** Triggers folded in while running or waiting, oldest first (at most lib/limits MAX_QUEUED_TRIGGERS): the follow-up run answers each. */
    rerunTriggers: v.optional(v.array(vRunTrigger)),
    /** Triggers folded in while the run was still queued, oldest first (at most lib/limits MAX_QUEUED_TRIGGERS): its "why" names each (brain/context). */
    queuedTriggers: v.optional(v.array(vRunTrigger)),
    delegations: v.number(),
    /** Loop guards that stopped something in this run, in words. */
    guards: v.array(v.string()),
    /** Per model call: ms spent assembling context, waiting for the model, dispatching tools. */
    timings: v.array(vRunTiming),
    startedAt: v.optional(v.number()),
    endedAt: v.optional(v.number()),
    /** Counts executions: a resumed run runs again as attempt 2; an older attempt's writes are refused. */
    attempt: v.optional(v.number()),
    /** While running: the run is presumed dead after this time unless its action renews it (the sweeper ends or retries it). */
    leaseExpiresAt: v.optional(v.number()),
    /** A tool call was started: a side effect may have happened, so an interrupted run is not retried. */
    toolStarted: v.optional(v.boolean()),
    /** Last time the run did something (a streamed batch, a tool call, its end): what lists sort by. */
    lastActiveAt: v.optional(v.number()),
    /** Tokens of messages (inbox, channels, #maestro, context pack) injected into this run's prompts, summed over its model calls. */
    injectionTokens: v.optional(v.number()),
    /** A run on a delegated task: the delegation's A2A correlation id, so the chain reads from a2a.delegate through its runs to done. */
    correlationId: v.optional(v.string()),
    /** While `waiting`: where the loop resumes once a person responds. */
    paused: v.optional(vRunPause),
    /** While waiting for an outside executor's output of an external tool's call (paused.kind "tool_output"): since when. */
    externalCallSince: v.optional(v.number()),
    /** …and when the call times out (lib/limits externalCallTimeoutMs); cleared once the output is in, the call expired or the run ended. */
    externalCallExpiresAt: v.optional(v.number()),
    /** The row counting this run's events (set with its first event; see runStreams). */
    streamId: v.optional(v.id("runStreams")),
    /** What its model calls cost, in micro-dollars, at the department's prices when each call was made. */
    costMicros: v.optional(v.number()),
    /** When the run last said its own reply text where it answers (the post's creation time): only the agent's posts after it count as answering there itself. */
    repliedAt: v.optional(v.number()),
    /** When the department's history retention deleted this ended run's steps (its runEvents); the run itself stays. */
    stepsDeletedAt: v.optional(v.number()),
  })
    .index("by_task", ["taskId"])
    .index("by_agent_and_task", ["agentSessionKey", "taskId"])
    .index("by_agent_and_status", ["agentSessionKey", "status"])
    .index("by_status_and_leaseExpiresAt", ["status", "leaseExpiresAt"])
    // A department's runs newest first; the indexes below sort by deadline or by correlation id instead.
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_department", ["departmentId"])
    .index("by_agentId", ["agentId"])
    // The department's calls waiting for an outside executor, soonest to expire first (runs without one sort before any time).
    .index("by_department_and_externalCallExpiresAt", ["departmentId", "externalCallExpiresAt"])
    // A trace: the runs one A2A correlation id spans (events.trace).
    .index("by_department_and_correlationId", ["departmentId", "correlationId"]),

  /**
   * A run's durable event stream (the durable-sessions spec): submit events
   * before the model is called, harness events as the agent works, one
   * sequence per run. Screens replay a run from these rows alone.
   */
  runEvents: defineTable(runEventFields)
    .index("by_run_and_seq", ["runId", "seq"])
    .index("by_run_and_clientMessageId", ["runId", "clientMessageId"])
    // A run's tool calls and results without reading its streamed text (the drawer's runs panel).
    .index("by_run_and_type_and_seq", ["runId", "payload.type", "seq"]),

  /**
   * The head of a run's event stream: the sequence number of its newest
   * event. Appending reads it by id (the run row names it) instead of
   * looking up the newest event in the `runEvents` index, and writes here
   * rather than on the run row, so queries that read runs (lists, Stop) do
   * not re-run on every streamed batch.
   */
  /** A department's own price for a model (lib/pricing.ts has the known ones): US dollars per million tokens. */
  modelPrices: defineTable({
    departmentId: v.id("departments"),
    model: v.string(),
    inputPerMillion: v.number(),
    outputPerMillion: v.number(),
  }).index("by_department_and_model", ["departmentId", "model"]),

  /**
   * What a department's runs cost, totalled as they go (denormalised, so no
   * screen sums runs): per task, per agent, per UTC day and per month.
   */
  costTotals: defineTable({
    departmentId: v.id("departments"),
    scope: v.union(v.literal("task"), v.literal("agent"), v.literal("day"), v.literal("month")),
    /** The task's or agent's id, the day ("2026-11-26") or the month ("2026-11"). */
    key: v.string(),
    micros: v.number(),
  }).index("by_department_scope_and_key", ["departmentId", "scope", "key"]),

  runStreams: defineTable({
    runId: v.id("runs"),
    lastSeq: v.number(),
    /** The newest `message_start`: where the text streaming now begins ("Jarvis is typing…" reads from here). */
    messageStartSeq: v.optional(v.number()),
  }),

  /**
   * A tool call waiting for a person's approval, bound to its run, its call
   * and the hash of its canonical arguments; it expires (then counts as denied).
   */
  approvals: defineTable({
    ...pauseCardFields,
    /** `<runId>:<tool_call index>`. */
    toolCallId: v.string(),
    tool: v.string(),
    /** Canonical JSON (lib/idempotency canonicalJson) of the parsed arguments. */
    args: v.string(),
    /** sha256 hex of `args`: what an approval is for. */
    argsHash: v.string(),
    status: vApprovalStatus,
    expiresAt: v.number(),
    decidedBy: v.optional(v.string()),
    decidedAt: v.optional(v.number()),
    reason: v.optional(v.string()),
  })
    .index("by_task", ["taskId"])
    .index("by_run", ["runId"])
    .index("by_status_and_expiresAt", ["status", "expiresAt"])
    .index("by_department_and_status", ["departmentId", "status"]),

  /** An agent's question to the people of its task (ask_question): answered on its card or by a reply in the thread. */
  questions: defineTable({
    ...pauseCardFields,
    question: v.string(),
    status: vQuestionStatus,
    answer: v.optional(v.string()),
    answeredBy: v.optional(v.string()),
    answeredAt: v.optional(v.number()),
    ...askedCardFields,
  })
    .index("by_task", ["taskId"])
    .index("by_run", ["runId"])
    .index("by_key", ["key"])
    .index("by_status_and_expiresAt", ["status", "expiresAt"])
    .index("by_department_and_status", ["departmentId", "status"]),

  /** A squad lead's plan (propose_plan): approved, its steps are delegated exactly as proposed; rejected, the lead revises. */
  plans: defineTable({
    ...pauseCardFields,
    summary: v.string(),
    steps: v.array(vPlanStep),
    status: vPlanStatus,
    decidedBy: v.optional(v.string()),
    decidedAt: v.optional(v.number()),
    feedback: v.optional(v.string()),
    ...askedCardFields,
  })
    .index("by_task", ["taskId"])
    .index("by_run", ["runId"])
    .index("by_key", ["key"])
    .index("by_status_and_expiresAt", ["status", "expiresAt"])
    .index("by_department_and_status", ["departmentId", "status"]),

  /**
   * What a side-effecting tool call did, by its idempotency key (cause, tool,
   * canonical arguments; records/toolEffects): a repeat of the call returns this
   * result instead of acting again.
   */
  toolEffects: defineTable({
    key: v.string(),
    tool: v.string(),
    /** The run whose call made the effect. */
    runId: v.optional(v.id("runs")),
    /** The first call's result, as JSON. */
    result: v.string(),
  }).index("by_key", ["key"]),

  /** A department's own slash commands (admins edit them in settings); each overrides a global command of the same name. */
  slashCommands: defineTable({
    departmentId: v.id("departments"),
    name: v.string(),
    description: v.string(),
    argumentHint: v.string(),
    /** Absent: a prompt command. */
    action: v.optional(v.union(...SLASH_ACTIONS.map((a) => v.literal(a)))),
    passArguments: v.boolean(),
    template: v.string(),
    updatedBy: v.id("users"),
    updatedAt: v.number(),
  }).index("by_department_and_name", ["departmentId", "name"]),

  /** Slash-command invocations and failures that involved no run (those land in the run's event stream). */
  commandEvents: defineTable({
    departmentId: v.id("departments"),
    /** The task whose thread it was typed in; absent for commands typed in a channel or #maestro. */
    taskId: v.optional(v.id("tasks")),
    /** The channel or DM it was typed in; absent for commands typed in a task's thread or #maestro. */
    channelId: v.optional(v.id("channels")),
    userId: v.id("users"),
    payload: v.union(
      v.object({ type: v.literal("slash_command_invoked"), name: v.string(), invokedAs: v.string(), args: v.string() }),
      v.object({ type: v.literal("slash_command_failed"), name: v.string(), invokedAs: v.string(), error: v.string() }),
    ),
  })
    .index("by_task", ["taskId"])
    .index("by_channel", ["channelId"])
    // Everything in the department, newest first; the next index pages #maestro's alone (taskId and channelId undefined).
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_department", ["departmentId"])
    .index("by_department_and_task_and_channel", ["departmentId", "taskId", "channelId"]),

  /** The newest delegation eval (tools/eval, `npm run eval -- --report-to`) stored for a department's admins: one row per department. */
  evalResults: defineTable({ departmentId: v.id("departments"), ...vEvalResult.fields }).index("by_department", ["departmentId"]),

  /**
   * An eval run started from the app (evals.start): the scenarios run one at a time, each in a throwaway
   * department, stepped by a scheduled mutation (evals.advance) until all are scored or it is cancelled.
   */
  evalRuns: defineTable({
    departmentId: v.id("departments"),
    startedBy: v.id("users"),
    startedByName: v.string(),
    model: v.string(),
    status: v.union(v.literal("running"), v.literal("done"), v.literal("cancelled"), v.literal("failed")),
    startedAt: v.number(),
    updatedAt: v.number(),
    endedAt: v.optional(v.number()),
    error: v.optional(v.string()),
    total: v.number(),
    /** The bundled scenarios it runs, by id, in order. */
    scenarioIds: v.array(v.string()),
    /** The scenario being run (or, once done, `total`). */
    index: v.number(),
    phase: v.union(v.literal("setup"), v.literal("request"), v.literal("followUp"), v.literal("purge")),
    /** The current scenario's throwaway department and where its steps are. */
    current: v.optional(
      v.object({
        departmentId: v.id("departments"),
        taskId: v.optional(v.id("tasks")),
        followUpAt: v.number(),
        /** Runs the department must have before it counts as settled; `quiet` counts settled looks in a row. */
        runs: v.number(),
        quiet: v.number(),
        deadline: v.number(),
      }),
    ),
    /** Each scored scenario's verdict, as JSON (tools/eval/score.ts Verdict). */
    verdicts: v.array(v.string()),
  })
    .index("by_department", ["departmentId"])
    .index("by_status", ["status"]),

  /** A department admin's overrides of the JSON config's chat defaults (one document per department). */
  settings: defineTable({
    departmentId: v.id("departments"),
    chat: vChatOverrides,
    /** The lead's mode in #maestro (switch_mode there); tasks carry their own. */
    leadMode: v.optional(vLeadMode),
    /** What its channels and DMs keep (lib/retention); absent: everything. */
    retention: v.optional(
      v.object({
        messageTtlDays: v.optional(v.number()),
        maxMessagesPerConversation: v.optional(v.number()),
        artifactTtlDays: v.optional(v.number()),
        historyTtlDays: v.optional(v.number()),
      }),
    ),
    /** The history retention's place among the department's runs: the steps of ended runs created before this are deleted. */
    runStepsSweptBefore: v.optional(v.number()),
    /** How threads are summarised for a prompt (lib/summariser); absent: extractive. The model's key is in `summariserKeys`. */
    summariser: v.optional(vSummariserSetting),
    /** Which PII rules apply to injected text (lib/pii); absent or a rule left out: on. */
    pii: v.optional(vPiiRules),
    /** How agents call tools with the department's model (native, text, auto); absent: MAESTRO_TOOL_CALLS. */
    toolCalls: v.optional(vToolCallMode),
  }).index("by_department", ["departmentId"]),

  /** A department's summariser model key, apart from its settings so no settings read can return it; only the run action reads it. */
  summariserKeys: defineTable({
    departmentId: v.id("departments"),
    apiKey: v.string(),
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
    /** What the key may do (lib/apiKeys API_SCOPES); absent on keys made before scopes, which hold them all. */
    scopes: v.optional(v.array(vApiScope)),
  })
    .index("by_hash", ["hash"])
    // The list shows an agent's keys newest first (by _creationTime); the next index counts active ones.
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_agent", ["agentId"])
    .index("by_agent_and_revokedAt", ["agentId", "revokedAt"]),

  /**
   * Channels and DMs of a department. `#maestro` is not here: it is the chat
   * table's special channel. A DM is a private conversation whose
   * `dmKey` (its sorted participant keys) keeps one per set of people.
   */
  channels: defineTable({
    departmentId: v.id("departments"),
    kind: vChannelKind,
    /** Lower-case, unique per department (`dm:<key>` for DMs). */
    name: v.string(),
    topic: v.optional(v.string()),
    visibility: vChannelVisibility,
    createdBy: vActor,
    archivedAt: v.optional(v.number()),
    dmKey: v.optional(v.string()),
    lastMessageAt: v.optional(v.number()),
  })
    .index("by_department_and_kind_and_name", ["departmentId", "kind", "name"])
    .index("by_department_and_dmKey", ["departmentId", "dmKey"]),

  /**
   * Who belongs to a channel (private channels and DMs: only they may read
   * it) and who follows it (subscribed: new posts reach their inbox). A
   * project channel's reader needs no row; subscribing adds one.
   */
  channelMembers: defineTable({
    channelId: v.id("channels"),
    departmentId: v.id("departments"),
    /** An agent's sessionKey or `member:<userId>`. */
    key: v.string(),
    name: v.string(),
    subscribed: v.boolean(),
  })
    .index("by_channel_and_key", ["channelId", "key"])
    .index("by_key_and_department", ["key", "departmentId"]),

  /** A message in a channel, a thread (a reply to a channel message) or a DM. */
  channelMessages: defineTable({
    departmentId: v.id("departments"),
    channelId: v.id("channels"),
    type: vMessageType,
    /** The channel message a thread reply answers; absent on top-level messages. */
    threadRootId: v.optional(v.id("channelMessages")),
    from: vActor,
    /** For a DM: the other participants' keys. */
    to: v.optional(v.array(v.string())),
    body: v.string(),
    mentions: v.array(vMention),
    artifacts: v.array(vArtifact),
    importance: vImportance,
    blocking: v.boolean(),
    correlationId: v.optional(v.string()),
    context: vMessageContext,
    replyCount: v.number(),
    lastReplyAt: v.optional(v.number()),
    ...messageChangeFields,
  })
    .index("by_channel_and_thread", ["channelId", "threadRootId"])
    .index("by_thread", ["threadRootId"])
    .index("by_department", ["departmentId"]),

  /**
   * A file uploaded to a channel or DM (lib/files rules, checked on what
   * storage recorded): who uploaded it, and the message that first carried
   * it (none yet while it waits in the composer).
   */
  channelFiles: defineTable({
    departmentId: v.id("departments"),
    channelId: v.id("channels"),
    storageId: v.id("_storage"),
    uploaderKey: v.string(),
    name: v.string(),
    contentType: v.string(),
    size: v.number(),
    messageId: v.optional(v.id("channelMessages")),
    /** A text file's first characters, for searchFiles. */
    text: v.optional(v.string()),
  })
    .searchIndex("search_name", { searchField: "name", filterFields: ["departmentId"] })
    .searchIndex("search_text", { searchField: "text", filterFields: ["departmentId"] })
    .index("by_storage", ["storageId"])
    .index("by_message", ["messageId"])
    // Retention walks a department's files by age.
    .index("by_department", ["departmentId"]),

  /**
   * A file uploaded for a task's thread (taskFiles.add, the same rules as a
   * channel's): who uploaded it, and the thread message that carries it
   * (none yet while it waits in the composer).
   */
  taskFiles: defineTable({
    departmentId: v.id("departments"),
    taskId: v.id("tasks"),
    storageId: v.id("_storage"),
    uploaderKey: v.string(),
    name: v.string(),
    contentType: v.string(),
    size: v.number(),
    messageId: v.optional(v.id("messages")),
    /** A text file's first characters, for searchFiles. */
    text: v.optional(v.string()),
  })
    .searchIndex("search_name", { searchField: "name", filterFields: ["departmentId"] })
    .searchIndex("search_text", { searchField: "text", filterFields: ["departmentId"] })
    .index("by_storage", ["storageId"])
    .index("by_message", ["messageId"])
    .index("by_task", ["taskId"])
    // Retention walks a department's files by age.
    .index("by_department", ["departmentId"]),

  /**
   * An upload URL handed out (channelMessages.generateUploadUrl,
   * taskFiles.generateUploadUrl): for one person and one conversation or one
   * task's thread, until it expires, and the upload it took. Only a storage
   * id uploaded through a grant may be added, by the grant's person, where
   * the grant was asked for. The URL's token is kept hashed.
   */
  uploadGrants: defineTable({
    departmentId: v.id("departments"),
    /** Exactly one of channelId and taskId: where the upload may be added. */
    channelId: v.optional(v.id("channels")),
    taskId: v.optional(v.id("tasks")),
    userId: v.id("users"),
    tokenHash: v.string(),
    expiresAt: v.number(),
    storageId: v.optional(v.id("_storage")),
  })
    .index("by_token", ["tokenHash"])
    .index("by_storage", ["storageId"])
    .index("by_expiry", ["expiresAt"]),

  /**
   * How far the sweep of uploads nobody added (channelFiles.sweepUnposted)
   * has gone through storage, by upload time: one row.
   */
  fileSweeps: defineTable({ sweptUntil: v.number() }),

  /** Each recipient's copy of a message's arrival: unread until `readAt`. */
  inbox: defineTable({
    departmentId: v.id("departments"),
    /** An agent's sessionKey or `member:<userId>`. */
    recipientKey: v.string(),
    channelId: v.id("channels"),
    messageId: v.id("channelMessages"),
    importance: vImportance,
    blocking: v.boolean(),
    /** The recipient was @mentioned (or it is a DM to them). */
    direct: v.boolean(),
    readAt: v.optional(v.number()),
    /** Read through the agent's API key: a key reads from a position of its own, so neither its reads nor the agent's runs take messages from the other (records/inbox). */
    keyReadAt: v.optional(v.number()),
    /** A blocking message was taken up by the recipient's run. */
    handledAt: v.optional(v.number()),
    /** An end-of-run nudge told the recipient agent of it: it never nudges again. */
    nudgedAt: v.optional(v.number()),
  })
    // Kept beside the longer indexes below for its order: a recipient's unread rows newest first, whatever their importance.
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_recipient_and_department_and_readAt", ["recipientKey", "departmentId", "readAt"])
    // A run weighs every unread critical and blocking message, however old (records/inbox inboxOfRun).
    .index("by_recipient_and_department_and_readAt_and_importance", ["recipientKey", "departmentId", "readAt", "importance"])
    .index("by_recipient_and_department_and_readAt_and_blocking", ["recipientKey", "departmentId", "readAt", "blocking"])
    .index("by_recipient_and_channel_and_readAt", ["recipientKey", "channelId", "readAt"])
    // What an agent's key has not read yet (GET /agents/{id}/inbox), apart from what its runs read.
    .index("by_recipient_and_department_and_keyReadAt", ["recipientKey", "departmentId", "keyReadAt"])
    .index("by_recipient_and_message", ["recipientKey", "messageId"])
    // Retention deletes a message's inbox rows with it.
    .index("by_message", ["messageId"])
    .index("by_department_and_readAt", ["departmentId", "readAt"]),

  /**
   * The append-only event log (NATS subjects in the spec): messaging and
   * channel lifecycle, with who did it, so it doubles as the audit trail.
   */
  events: defineTable({
    departmentId: v.id("departments"),
    type: vEventType,
    actor: vActor,
    channelId: v.optional(v.id("channels")),
    messageId: v.optional(v.id("channelMessages")),
    correlationId: v.optional(v.string()),
    data: vActivityData,
  })
    // The whole log, newest first; the indexes below start with it for the admin's filters (events.list).
    // eslint-disable-next-line @convex-dev/no-duplicate-indexes
    .index("by_department", ["departmentId"])
    .index("by_department_and_type", ["departmentId", "type"])
    .index("by_department_and_channel", ["departmentId", "channelId"])
    .index("by_department_and_correlationId", ["departmentId", "correlationId"])
    // One index for every kind of actor: a member by userId, an agent by sessionKey, Maestro by kind alone.
    .index("by_department_and_actor", ["departmentId", "actor.kind", "actor.userId", "actor.sessionKey"]),

  /** A department's outbound webhook: its events are POSTed there, signed with `secret`. */
  webhooks: defineTable({
    departmentId: v.id("departments"),
    url: v.string(),
    /** The HMAC key; shown to the admin once, when set. */
    secret: v.string(),
    createdBy: v.id("users"),
  }).index("by_department", ["departmentId"]),

  /** One event's delivery to a webhook, with its attempts. */
  webhookDeliveries: defineTable({
    departmentId: v.id("departments"),
    webhookId: v.id("webhooks"),
    eventId: v.id("events"),
    status: v.union(v.literal("pending"), v.literal("delivered"), v.literal("failed")),
    attempts: v.number(),
    lastStatus: v.optional(v.number()),
    lastError: v.optional(v.string()),
    nextAttemptAt: v.optional(v.number()),
  }).index("by_webhook", ["webhookId"]),

  /**
   * The squad as an A2A server (issue 45, convex/a2aServerApi.ts): whether a
   * department publishes its agent card. Off until an owner or admin turns it on.
   */
  a2aServerSettings: defineTable({
    departmentId: v.id("departments"),
    enabled: v.boolean(),
    updatedBy: v.id("users"),
  }).index("by_department", ["departmentId"]),

  /**
   * An A2A task another orchestrator handed the squad: which card it follows
   * and who sent it. Its state is never stored: it is read from the card, its
   * subtasks and what waits on them (lib/a2aServer a2aTaskState); only a
   * cancel (which archives the card) is remembered, as the card cannot say why
   * it was archived.
   */
  a2aServerTasks: defineTable({
    departmentId: v.id("departments"),
    taskId: v.id("tasks"),
    /** The A2A context id: the client's, else the card's correlation id. */
    contextId: v.string(),
    /** The agent whose key sent it (the client as Maestro knows it). */
    clientAgentId: v.id("agents"),
    canceledAt: v.optional(v.number()),
    /** Where the client wants the task's updates POSTed (A2A push notifications; checked as webhook URLs are). */
    push: v.optional(v.object({ id: v.string(), url: v.string(), token: v.string() })),
    /** The last state pushed there, so each state is pushed once. */
    pushedState: v.optional(v.string()),
  })
    .index("by_task", ["taskId"])
    .index("by_department_and_context", ["departmentId", "contextId"]),

  /**
   * A task Maestro handed an A2A agent (issue 45, part 2; reactions/a2aRemote):
   * the remote task's ids, where it stands, and when Maestro looks again. One
   * per card and agent at a time; an ended one stays as the record.
   */
  a2aRemoteTasks: defineTable({
    departmentId: v.id("departments"),
    taskId: v.id("tasks"),
    agentId: v.id("agents"),
    /** The card's correlation id: every event about the remote task carries it beside the squad's. */
    correlationId: v.string(),
    /** Ids the remote agent gave the task and its context (after the first answer). */
    remoteTaskId: v.optional(v.string()),
    contextId: v.optional(v.string()),
    phase: vA2aRemotePhase,
    /** The remote state last seen (the protocol's name, e.g. `working`). */
    remoteState: v.optional(v.string()),
    /** A thread message to send as the next message (an answer to its question). */
    replyMessageId: v.optional(v.id("messages")),
    /** Messages sent, polls made, and calls that failed in a row. */
    sends: v.number(),
    polls: v.number(),
    failures: v.number(),
    /** Past this, a task still not finished is given up on: a note, the card Blocked, the remote task canceled. */
    deadlineAt: v.number(),
    endedAt: v.optional(v.number()),
  })
    .index("by_task_and_agent", ["taskId", "agentId"])
    .index("by_agent", ["agentId"]),
});
