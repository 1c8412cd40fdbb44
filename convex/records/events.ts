/**
 * The department's event log: the messaging spec's NATS subjects, kept as
 * rows, which is also the audit trail. Emitting an event queues its webhook
 * delivery when the department has one (records/webhooks.ts); the delivery
 * runs after the commit, in its own action.
 */
import type { PaginationOptions } from "convex/server";
import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import type { ActivityData, Actor, EventType } from "../validators";
import { webhookOf } from "./webhooks";

/** Appends to the department's event log and queues its webhook delivery, if any. */
export async function emitEvent(
  ctx: MutationCtx,
  event: {
    departmentId: Id<"departments">;
    type: EventType;
    actor: Actor;
    channelId?: Id<"channels">;
    messageId?: Id<"channelMessages">;
    correlationId?: string;
    data?: ActivityData;
  },
): Promise<void> {
  const eventId = await ctx.db.insert("events", { ...event, data: event.data ?? {} });
  const webhook = await webhookOf(ctx, event.departmentId);
  if (webhook === null) return;
  const deliveryId = await ctx.db.insert("webhookDeliveries", {
    departmentId: event.departmentId,
    webhookId: webhook._id,
    eventId,
    status: "pending",
    attempts: 0,
  });
  // A hand-off after the commit, not a call: the delivery is its own action.
  await ctx.scheduler.runAfter(0, internal.webhookDelivery.deliver, { deliveryId });
}

/** One page of the log, newest first. */
export async function eventPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions) {
  return await ctx.db
    .query("events")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .order("desc")
    .paginate(paginationOpts);
}
