import { v, type Infer } from "convex/values";

/** Board columns, in display order; `blocked` sits apart from the flow. */
export const TASK_STATUSES = ["inbox", "assigned", "in_progress", "review", "done", "blocked"] as const;
export const vTaskStatus = v.union(...TASK_STATUSES.map((s) => v.literal(s)));
export type TaskStatus = Infer<typeof vTaskStatus>;

export const PRIORITIES = ["low", "medium", "high"] as const;
export const vPriority = v.union(...PRIORITIES.map((p) => v.literal(p)));
export type Priority = Infer<typeof vPriority>;

export const vAgentKind = v.union(
  v.literal("lead"),
  v.literal("coder"),
  v.literal("architect"),
  v.literal("specialist"),
  v.literal("writer"),
  v.literal("designer"),
);
export type AgentKind = Infer<typeof vAgentKind>;

export const vAgentStatus = v.union(
  v.literal("idle"),
  v.literal("active"),
  v.literal("blocked"),
  v.literal("offline"),
);
export type AgentStatus = Infer<typeof vAgentStatus>;

export const vMemberRole = v.union(v.literal("admin"), v.literal("member"));
export type MemberRole = Infer<typeof vMemberRole>;
