import { v } from "convex/values";
import { internalMutation, type MutationCtx } from "./_generated/server";
import { DEMO_SQUAD } from "./lib/demoSquad";
import { insertSquadAgents } from "./records/agents";
import { departmentBySlug, insertDepartment } from "./records/departments";
import { insertTaskRow } from "./records/tasks";
import type { Priority, TaskStatus } from "./validators";

const DEMO_DEPARTMENT = { name: "Product Squad", slug: "product" };

const DEMO_TASKS: Array<{
  title: string;
  description: string;
  status: TaskStatus;
  priority: Priority;
  tags: string[];
  assignees: string[];
}> = [
  { title: "Landing page for the launch", description: "Hero, feature grid and a signup form.", status: "inbox", priority: "high", tags: ["launch", "web"], assignees: [] },
  { title: "Pricing page copy", description: "Three tiers, plain words.", status: "assigned", priority: "medium", tags: ["copy"], assignees: ["Writer"] },
  { title: "Signup API rate limits", description: "Per-IP and per-account limits on signup.", status: "in_progress", priority: "high", tags: ["api"], assignees: ["Dev Bot"] },
  { title: "Review the event schema", description: "Check the analytics event schema before it ships.", status: "review", priority: "low", tags: ["data"], assignees: ["Archie"] },
  { title: "Pick the launch date", description: "Agreed with marketing.", status: "done", priority: "medium", tags: ["launch"], assignees: ["Jarvis"] },
];

/** Seeds the demo squad once; running it again changes nothing. Returns the department id. */
export const demo = internalMutation({
  args: {},
  returns: v.id("departments"),
  handler: async (ctx) => {
    const existing = await departmentBySlug(ctx, DEMO_DEPARTMENT.slug);
    if (existing !== null) return existing._id;
    return await seedDemoDepartment(ctx);
  },
});

async function seedDemoDepartment(ctx: MutationCtx) {
  const departmentId = await insertDepartment(ctx, DEMO_DEPARTMENT.name, DEMO_DEPARTMENT.slug);
  const added = await insertSquadAgents(ctx, departmentId, DEMO_DEPARTMENT.slug, DEMO_SQUAD);
  const sessionKeyByName = new Map(added.map((agent) => [agent.name, agent.sessionKey]));
  const now = Date.now();
  for (const [index, task] of DEMO_TASKS.entries()) {
    await insertTaskRow(ctx, {
      departmentId,
      title: task.title,
      description: task.description,
      status: task.status,
      priority: task.priority,
      tags: task.tags,
      assigneeSessionKeys: task.assignees.map((name) => sessionKeyByName.get(name)!),
      createdBy: "system",
      order: index + 1,
      updatedAt: now,
    });
  }
  return departmentId;
}
