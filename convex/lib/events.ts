import { internal } from "../_generated/api";
import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import type { ActivityData, Actor, EventType } from "../validators";

/**
 * Appends to the department's event log (the spec's NATS subjects; also the
 * audit trail) and, when the department has a webhook, queues its delivery.
 */
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
  const webhook = await ctx.db
    .query("webhooks")
    .withIndex("by_department", (q) => q.eq("departmentId", event.departmentId))
    .unique();
  if (webhook === null) return;
  const deliveryId = await ctx.db.insert("webhookDeliveries", {
    departmentId: event.departmentId,
    webhookId: webhook._id,
    eventId,
    status: "pending",
    attempts: 0,
  });
  await ctx.scheduler.runAfter(0, internal.webhooks.deliver, { deliveryId });
}
