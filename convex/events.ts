/**
 * The department's event log (messaging and channel lifecycle), newest
 * first: what the spec publishes on NATS subjects, read here through a
 * subscription. It names who did what, so admins read it as the audit trail.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import { departmentQuery } from "./functions";
import { checkPageSize } from "./lib/validate";
import { eventPage } from "./records/events";
import schema from "./schema";

const vEvent = schema.tables.events.validator.omit("departmentId").extend({ _id: v.id("events"), _creationTime: v.number() });

export const list = departmentQuery({
  role: "admin",
  args: { paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vEvent),
  handler: async (ctx, { departmentId, paginationOpts }) => {
    checkPageSize(paginationOpts.numItems);
    const page = await eventPage(ctx, departmentId, paginationOpts);
    return { ...page, page: page.page.map(({ departmentId: _d, ...event }) => event) };
  },
});
