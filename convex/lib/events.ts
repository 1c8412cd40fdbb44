import type { Id } from "../_generated/dataModel";
import type { MutationCtx } from "../_generated/server";
import type { ActivityData, Actor, EventType } from "../validators";

/** Appends to the department's event log (the spec's NATS subjects; also the audit trail). */
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
  await ctx.db.insert("events", { ...event, data: event.data ?? {} });
}
