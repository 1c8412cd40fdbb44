import { defineSchema, defineTable } from "convex/server";
import { v } from "convex/values";
import {
  vAgentKind,
  vAgentStatus,
  vMemberRole,
  vPriority,
  vTaskStatus,
} from "./validators";

export default defineSchema({
  departments: defineTable({
    name: v.string(),
    slug: v.string(),
    /** The department's current `#maestro` chat session; "New session" replaces it. */
    chatSessionId: v.string(),
  }).index("by_slug", ["slug"]),

  members: defineTable({
    departmentId: v.id("departments"),
    /** `ctx.auth` identity's tokenIdentifier: the only key we trust for a human. */
    tokenIdentifier: v.string(),
    name: v.string(),
    role: vMemberRole,
  })
    .index("by_tokenIdentifier", ["tokenIdentifier"])
    .index("by_department_and_tokenIdentifier", ["departmentId", "tokenIdentifier"]),

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
  })
    .index("by_department_and_status_and_order", ["departmentId", "status", "order"])
    .index("by_parent", ["parentTaskId"]),
});
