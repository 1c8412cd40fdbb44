import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { departmentQuery } from "./functions";
import { checkPageSize } from "./lib/validate";
import { activityPage } from "./records/activities";
import { vActivityData, vActivityType, vActor } from "./validators";

/** The department's activity feed, newest first, a page at a time. */
export const list = departmentQuery({
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(
    v.object({
      _id: v.id("activities"),
      _creationTime: v.number(),
      type: vActivityType,
      actor: vActor,
      taskId: v.optional(v.id("tasks")),
      data: vActivityData,
    }),
  ),
  handler: async (ctx, { departmentId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await activityPage(ctx, departmentId, paginationOpts);
    return {
      ...page,
      page: page.page.map(({ _id, _creationTime, type, actor, taskId, data }) => ({ _id, _creationTime, type, actor, taskId, data })),
    };
  },
});
