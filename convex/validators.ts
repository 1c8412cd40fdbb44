import { v, type Infer } from "convex/values";
import { API_SCOPES } from "./lib/apiKeys";
import { EVENT_TYPES } from "./lib/events";

/** A validator for exactly one of `values`: the lists below stay data, and their validators follow from them. */
function oneOf<const T extends string>(values: readonly T[]) {
  return v.union(...values.map((value) => v.literal(value)));
}

/** Board columns, in display order; `blocked` sits apart from the flow. */
export const TASK_STATUSES = ["inbox", "assigned", "in_progress", "review", "done", "blocked"] as const;
export const vTaskStatus = oneOf(TASK_STATUSES);
export type TaskStatus = Infer<typeof vTaskStatus>;

export const PRIORITIES = ["low", "medium", "high"] as const;
export const vPriority = oneOf(PRIORITIES);

/** Who must approve an agent's call of a tool: nobody, a human every time, or a human when the priority is high. */
export const APPROVAL_POLICIES = ["never", "always", "high_priority"] as const;
/** How a squad lead works on a task or in #maestro: propose a plan for approval first, or delegate directly (the default). */
export const LEAD_MODES = ["plan", "act"] as const;
export type LeadMode = (typeof LEAD_MODES)[number];
export const vLeadMode = oneOf(LEAD_MODES);

/**
 * How agents call tools with a department's model (lib/modelConfig): `native`
 * (the request's `tools`, answers' `tool_calls`), `text` (the `[TOOL: …]`
 * lines of the prompt) or `auto` (native, and `[TOOL: …]` in the text still read).
 */
export const TOOL_CALL_MODES = ["native", "text", "auto"] as const;
export const vToolCallMode = oneOf(TOOL_CALL_MODES);
export type ToolCallMode = Infer<typeof vToolCallMode>;

/** A department admin's overrides of the JSON config's chat defaults (lib/config ChatSettings); a field left out keeps the default. */
export const vChatOverrides = v.object({
  enabled: v.optional(v.boolean()),
  maxMessageChars: v.optional(v.number()),
  scannerEnabled: v.optional(v.boolean()),
  scannerTimeoutMs: v.optional(v.number()),
});

export const vApprovalPolicy = oneOf(APPROVAL_POLICIES);
export type ApprovalPolicy = Infer<typeof vApprovalPolicy>;
/** One tool's approval policy on an agent; tools without one use the registry's default. */
export const vToolApproval = v.object({ tool: v.string(), policy: vApprovalPolicy });
export type Priority = Infer<typeof vPriority>;

export const AGENT_KINDS = ["lead", "coder", "architect", "specialist", "writer", "designer"] as const;
export const vAgentKind = oneOf(AGENT_KINDS);
export type AgentKind = Infer<typeof vAgentKind>;

export const AGENT_STATUSES = ["idle", "active", "blocked", "offline"] as const;
export const vAgentStatus = oneOf(AGENT_STATUSES);
export type AgentStatus = Infer<typeof vAgentStatus>;

/** Roles per department, strongest first: owners and admins run it, members work in it, viewers read it. */
export const MEMBER_ROLES = ["owner", "admin", "member", "viewer"] as const;
export const vMemberRole = oneOf(MEMBER_ROLES);
export type MemberRole = Infer<typeof vMemberRole>;

/** Who did something: a human member, an agent (by sessionKey) or Maestro itself. */
export const vActor = v.union(
  v.object({ kind: v.literal("member"), userId: v.id("users"), name: v.string() }),
  v.object({ kind: v.literal("agent"), sessionKey: v.string(), name: v.string() }),
  v.object({ kind: v.literal("system") }),
);
export type Actor = Infer<typeof vActor>;

/** A resolved @mention: `key` is an agent's sessionKey or `member:<userId>`. */
export const vMention = v.object({ kind: v.union(v.literal("agent"), v.literal("member")), key: v.string(), name: v.string() });
export type Mention = Infer<typeof vMention>;

export const ACTIVITY_TYPES = [
  // Tasks and their threads.
  ...["task_created", "task_updated", "task_status_changed", "task_assigned", "message_posted", "delegation_created", "blocking_message_received"],
  // Cleaning up: tasks archived, restored or deleted; messages edited or deleted (in threads, channels and DMs).
  ...["task_archived", "task_unarchived", "task_deleted", "message_edited", "message_deleted"],
  // The roster and the people.
  ...["agent_created", "agent_updated", "agent_status_changed", "member_joined", "member_role_changed", "member_removed"],
] as const;
export const vActivityType = oneOf(ACTIVITY_TYPES);
export type ActivityType = Infer<typeof vActivityType>;

/** The small data object an activity carries (names, old/new values), flat on purpose. */
export const vActivityData = v.record(v.string(), v.union(v.string(), v.number(), v.boolean(), v.null()));
export type ActivityData = Infer<typeof vActivityData>;

export const vNotificationKind = v.union(v.literal("mention"), v.literal("assignment"));
export type NotificationKind = Infer<typeof vNotificationKind>;

export const vTriggerKind = v.union(v.literal("assigned"), v.literal("mentioned"));
export type TriggerKind = Infer<typeof vTriggerKind>;

/** `waiting`: paused for a person (an approval, an answer or a plan review); it holds no lease and resumes when they respond. */
export const RUN_STATUSES = ["queued", "running", "waiting", "completed", "error", "aborted"] as const;
export const vRunStatus = oneOf(RUN_STATUSES);
export type RunStatus = Infer<typeof vRunStatus>;

/**
 * Why a run started: an assignment, a mention, a delegated task's result, a
 * human's answer, a blocking channel message or DM, or the end-of-run nudge
 * about what arrived while the agent worked.
 */
export const RUN_TRIGGER_KINDS = ["assigned", "mentioned", "delegation_result", "answer", "message", "nudge"] as const;
export const vRunTriggerKind = oneOf(RUN_TRIGGER_KINDS);
export type RunTriggerKind = Infer<typeof vRunTriggerKind>;

/** What started a run (or was folded into it). */
export const vRunTrigger = v.object({
  kind: vRunTriggerKind,
  messageId: v.optional(v.id("messages")),
  /** The blocking channel message or DM that started the run (kind "message"). */
  channelMessageId: v.optional(v.id("channelMessages")),
  /** The #maestro message (its chat id) that @mentioned the agent (kind "mentioned"): the run answers in #maestro. */
  chatId: v.optional(v.number()),
  note: v.optional(v.string()),
});

/** Per model call: ms assembling context, waiting for the model, dispatching tools. */
export const vRunTiming = v.object({ contextMs: v.number(), modelMs: v.number(), dispatchMs: v.number() });

/** One dispatched tool call and what came of it. */
export const vToolCallRecord = v.object({
  name: v.string(),
  /** The arguments as JSON (cut to a bounded length). */
  args: v.string(),
  outcome: v.union(v.literal("ok"), v.literal("error"), v.literal("denied"), v.literal("invalid"), v.literal("refused")),
  /** The concise observation fed back to the model. */
  observation: v.string(),
  at: v.number(),
});
export type ToolCallRecord = Infer<typeof vToolCallRecord>;

// ---- messaging: channels, threads, DMs (specs/messaging-project-graph.md) ----

export const CHANNEL_VISIBILITIES = ["project", "private"] as const;
export const vChannelVisibility = oneOf(CHANNEL_VISIBILITIES);
export type ChannelVisibility = Infer<typeof vChannelVisibility>;

/** A channel proper, or a DM (a private conversation that always has a human in it). */
export const vChannelKind = v.union(v.literal("channel"), v.literal("dm"));
export type ChannelKind = Infer<typeof vChannelKind>;

export const IMPORTANCES = ["normal", "high", "critical"] as const;
export const vImportance = oneOf(IMPORTANCES);
export type Importance = Infer<typeof vImportance>;

export const vMessageType = v.union(v.literal("channel"), v.literal("thread"), v.literal("dm"));
export type MessageType = Infer<typeof vMessageType>;

/** A file in Convex storage attached to a message: name, type and size as checked when it was added. */
export const vFileArtifact = v.object({
  kind: v.literal("file"),
  storageId: v.id("_storage"),
  name: v.string(),
  contentType: v.string(),
  size: v.number(),
});
export type FileArtifact = Infer<typeof vFileArtifact>;

/** An upload refused for what it is (lib/uploads): its blob is deleted and the caller told why. */
const vUploadRefusal = v.object({ ok: v.literal(false), message: v.string() });
/** What an upload's checks answer before its blob is read (lib/uploads PreparedUpload). */
export const vPreparedUpload = v.union(vUploadRefusal, v.object({ ok: v.literal(true), scan: v.union(v.null(), v.object({ timeoutMs: v.number() })), text: v.boolean() }));
/** What recording an upload answers (lib/uploads RecordedUpload). */
export const vRecordedUpload = v.union(vUploadRefusal, v.object({ ok: v.literal(true), artifact: vFileArtifact }));

/** What a message carries besides its text: a link to a task, a web link, or a file. */
export const vArtifact = v.union(
  v.object({ kind: v.literal("task"), taskId: v.id("tasks") }),
  v.object({ kind: v.literal("link"), url: v.string(), title: v.optional(v.string()) }),
  vFileArtifact,
);
export type Artifact = Infer<typeof vArtifact>;

/** The spec's message context: the project (a department here), and the task and batch it is about. */
export const vMessageContext = v.object({
  taskId: v.optional(v.id("tasks")),
  /** A batch is the set of tasks one delegation tree created: named by its root task. */
  batchId: v.optional(v.id("tasks")),
});

export const vEventType = oneOf(EVENT_TYPES);
export type EventType = Infer<typeof vEventType>;

/** An approval's state; an expired one counts as denied. */
export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired"] as const;
export const vApprovalStatus = oneOf(APPROVAL_STATUSES);
export type ApprovalStatus = Infer<typeof vApprovalStatus>;
/** A question card's state; cancelled when its run was stopped, expired when nobody answered in time. */
export const vQuestionStatus = v.union(v.literal("pending"), v.literal("answered"), v.literal("cancelled"), v.literal("expired"));
/** A plan card's state; cancelled when its run was stopped, expired (counted as rejected) when nobody decided in time. */
export const vPlanStatus = v.union(v.literal("pending"), v.literal("approved"), v.literal("rejected"), v.literal("cancelled"), v.literal("expired"));
/** One step of a lead's plan: what, for whom, and how urgent. */
export const vPlanStep = v.object({ title: v.string(), assignee: v.string(), description: v.optional(v.string()), priority: v.optional(vPriority) });
export type PlanStep = Infer<typeof vPlanStep>;

/** What a run waits for while `waiting`. */
export const vPauseKind = v.union(v.literal("approval"), v.literal("question"), v.literal("plan"));
export type PauseKind = Infer<typeof vPauseKind>;
/** A call's result; `callId`: the native call it answers (paired by `tool_call_id` when the conversation is replayed). */
const vObservation = v.object({ tool: v.string(), text: v.string(), callId: v.optional(v.string()) });
/** A native tool call as the model made it: its id, wire name and argument text (lib/completionStream WireToolCall). */
export const vWireToolCall = v.object({ id: v.string(), name: v.string(), arguments: v.string() });
/** A message of a run's conversation as kept across a pause (brain/model ChatMessage). */
export const vStoredMessage = v.object({
  role: v.union(v.literal("assistant"), v.literal("user"), v.literal("tool")),
  content: v.string(),
  /** An assistant reply's native tool calls. */
  toolCalls: v.optional(v.array(vWireToolCall)),
  /** A `tool` message: the call it answers. */
  toolCallId: v.optional(v.string()),
});

/** A tool call run outside Maestro: its output comes back through `runs.toolOutput` (no card; the call itself waits). */
export const vRunPauseKind = v.union(vPauseKind, v.literal("tool_output"));
export type RunPauseKind = Infer<typeof vRunPauseKind>;
/** What an external tool handed back for the paused call: its output, or why it failed. */
export const vToolOutput = v.object({ outcome: v.union(v.literal("ok"), v.literal("error")), text: v.string() });
export type ToolOutput = Infer<typeof vToolOutput>;

/**
 * A waiting run's place in its loop, kept on the run so the next attempt
 * picks up exactly there: the conversation so far, the reply whose tool call
 * paused, and the results of that reply's other calls.
 */
export const vRunPause = v.object({
  kind: vRunPauseKind,
  /** The approvals, questions or plans row; for `tool_output`, the call's id (lib/pauses toolCallId). */
  id: v.string(),
  /** For `tool_output`: what the external tool submitted, kept until the next attempt takes it. */
  output: v.optional(vToolOutput),
  conversation: v.array(vStoredMessage),
  round: v.number(),
  /** The paused call's `tool_call` index, and the next free one. */
  index: v.number(),
  nextIndex: v.number(),
  call: v.object({ name: v.string(), args: v.string(), id: v.optional(v.string()) }),
  reply: v.string(),
  /** The reply's native tool calls (absent for `[TOOL: …]` calls, which are read again from `reply`). */
  replyCalls: v.optional(v.array(vWireToolCall)),
  before: v.array(vObservation),
  after: v.array(vObservation),
  /** The run's call signatures and posted notes (brain/dispatch), so resuming keeps its guards. */
  seen: v.array(v.string()),
});
export type RunPause = Infer<typeof vRunPause>;

/** What an agent API key may do (lib/apiKeys API_SCOPES). */
export const vApiScope = oneOf(API_SCOPES);

/** Which PII rules apply to injected text (lib/pii): one switch per kind; a kind left out is on. */
export const vPiiRules = v.object({ email: v.optional(v.boolean()), phone: v.optional(v.boolean()), card: v.optional(v.boolean()), iban: v.optional(v.boolean()) });

/**
 * How a department's threads are summarised for a prompt: `extractive` (the
 * default, offline, lib/injection) or an OpenAI-compatible model, with the
 * extractive summary as its fallback (lib/summariser).
 */
export const vSummariserSetting = v.union(
  v.object({ kind: v.literal("extractive") }),
  v.object({ kind: v.literal("model"), baseUrl: v.string(), model: v.string(), timeoutMs: v.number() }),
);
export type SummariserSetting = Infer<typeof vSummariserSetting>;

// ---- the delegation eval (tools/eval): the last result per department ----

/** n right of total for one figure of the eval. */
const vEvalRatio = v.object({ right: v.number(), total: v.number() });

/** One model's figures over the eval's suite (tools/eval/score.ts ModelSummary). */
export const vEvalModelSummary = v.object({
  model: v.string(),
  scenarios: v.number(),
  passed: v.number(),
  routing: vEvalRatio,
  splits: vEvalRatio,
  duplicates: v.number(),
  approvals: vEvalRatio,
  injections: vEvalRatio,
  invalidCalls: v.number(),
  promptTokens: v.number(),
  completionTokens: v.number(),
  /** Micro-dollars from the price table; null when it has no price for the model. */
  costMicros: v.union(v.number(), v.null()),
  modelCalls: v.number(),
  latencyP50Ms: v.union(v.number(), v.null()),
  latencyP99Ms: v.union(v.number(), v.null()),
  wallMs: v.number(),
});

/** An eval run as a department keeps it: when, against which server, each model's figures, each scenario's verdict per model with why. */
export const vEvalResult = v.object({
  ranAt: v.number(),
  /** The model server, without credentials (or "demo model (offline, rule-based)"). */
  server: v.string(),
  wallMs: v.number(),
  models: v.array(vEvalModelSummary),
  scenarios: v.array(
    v.object({
      id: v.string(),
      kind: v.string(),
      verdicts: v.array(v.object({ model: v.string(), pass: v.boolean(), why: v.array(v.string()) })),
    }),
  ),
});
export type EvalResult = Infer<typeof vEvalResult>;

/** A task as the HTTP API answers it (lib/messagingJson TaskJson): `POST /tasks`, and the start of every task read. */
export const vTaskJson = v.object({
  id: v.string(),
  title: v.string(),
  description: v.string(),
  status: v.string(),
  priority: v.string(),
  tags: v.array(v.string()),
  assignees: v.array(v.string()),
  created_by: v.string(),
  created_at: v.number(),
  project_id: v.string(),
});


/** One skill an A2A agent's card names, as the roster shows it (issue 45). */
export const vA2aSkill = v.object({ id: v.string(), name: v.string(), description: v.string() });
/** What an A2A agent's card said when it was added: where it is reached and what it can do. */
export const vA2aRemoteAgent = v.object({
  cardUrl: v.string(),
  /** Its JSON-RPC endpoint, from the card (checked as webhook URLs are). */
  endpointUrl: v.string(),
  protocolVersion: v.string(),
  description: v.string(),
  skills: v.array(vA2aSkill),
});
export type A2aRemoteAgent = Infer<typeof vA2aRemoteAgent>;
/** Where Maestro stands with a task it handed an A2A agent: sending a message, following the task, waiting on the squad's answer, or ended. */
export const A2A_REMOTE_PHASES = ["sending", "following", "input_required", "completed", "failed", "canceled"] as const;
export const vA2aRemotePhase = oneOf(A2A_REMOTE_PHASES);
export type A2aRemotePhase = Infer<typeof vA2aRemotePhase>;
