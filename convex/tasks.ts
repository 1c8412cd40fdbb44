import { v } from "convex/values";
import { query } from "./_generated/server";
import { getMembershipX } from "./lib/auth";
import { TASK_STATUSES, vPriority, vTaskStatus } from "./validators";

/** Most cards one column returns; the board says when a column holds more. */
export const MAX_TASKS_PER_COLUMN = 500;

const vTaskCard = v.object({
  _id: v.id("tasks"),
  title: v.string(),
  status: vTaskStatus,
  priority: vPriority,
  tags: v.array(v.string()),
  assigneeSessionKeys: v.array(v.string()),
  delegatedBy: v.optional(v.string()),
  order: v.number(),
});

/** The department's board: one entry per column, in column order, each bounded. */
export const list = query({
  args: { departmentId: v.id("departments") },
  returns: v.array(
    v.object({
      status: vTaskStatus,
      tasks: v.array(vTaskCard),
      truncated: v.boolean(),
    }),
  ),
  handler: async (ctx, { departmentId }) => {
    await getMembershipX(ctx, departmentId);
    const columns = [];
    for (const status of TASK_STATUSES) {
      const rows = await ctx.db
        .query("tasks")
        .withIndex("by_department_and_status_and_order", (q) =>
          q.eq("departmentId", departmentId).eq("status", status),
        )
        .take(MAX_TASKS_PER_COLUMN + 1);
      columns.push({
        status,
        truncated: rows.length > MAX_TASKS_PER_COLUMN,
        tasks: rows.slice(0, MAX_TASKS_PER_COLUMN).map((task) => ({
          _id: task._id,
          title: task.title,
          status: task.status,
          priority: task.priority,
          tags: task.tags,
          assigneeSessionKeys: task.assigneeSessionKeys,
          delegatedBy: task.delegatedBy,
          order: task.order,
        })),
      });
    }
    return columns;
  },
});
