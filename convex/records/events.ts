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

/** What the admin's event log narrows to; each part optional. `actor` is a member's userId, an agent's sessionKey, or Maestro. */
export interface EventFilter {
  type?: EventType;
  channelId?: Id<"channels">;
  actor?: { kind: "member"; userId: Id<"users"> } | { kind: "agent"; sessionKey: string } | { kind: "system" };
  /** One delegation's events: an A2A correlation id (`a2a:<taskId>`). */
  correlationId?: string;
}

/**
 * One page of the log, newest first, narrowed by `filter`. The most
 * selective part picks the index (a correlation id, then a channel, then an actor, then a type)
 * and the rest filter that index's range, so a page never walks the whole log
 * for the common one-filter views.
 */
export async function eventPage(ctx: QueryCtx, departmentId: Id<"departments">, paginationOpts: PaginationOptions, filter: EventFilter = {}) {
  const { type, channelId, actor, correlationId } = filter;
  const events = ctx.db.query("events");
  const base =
    correlationId !== undefined
      ? events.withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", correlationId))
      : channelId !== undefined
      ? events.withIndex("by_department_and_channel", (q) => q.eq("departmentId", departmentId).eq("channelId", channelId))
      : actor !== undefined
        ? events.withIndex("by_department_and_actor", (q) => {
            const kind = q.eq("departmentId", departmentId).eq("actor.kind", actor.kind);
            if (actor.kind === "member") return kind.eq("actor.userId", actor.userId);
            if (actor.kind === "agent") return kind.eq("actor.userId", undefined).eq("actor.sessionKey", actor.sessionKey);
            return kind;
          })
        : type !== undefined
          ? events.withIndex("by_department_and_type", (q) => q.eq("departmentId", departmentId).eq("type", type))
          : events.withIndex("by_department", (q) => q.eq("departmentId", departmentId));
  // What the index did not narrow, a filter over its range does.
  const typeLeft = type !== undefined && (correlationId !== undefined || channelId !== undefined || actor !== undefined) ? type : undefined;
  const actorLeft = correlationId !== undefined || channelId !== undefined ? actor : undefined;
  const channelLeft = correlationId !== undefined ? channelId : undefined;
  const newest = base.order("desc");
  if (typeLeft === undefined && actorLeft === undefined && channelLeft === undefined) return await newest.paginate(paginationOpts);
  return await newest
    // Filtering inside paginate keeps pages whole (a filter after it would return short pages); the index range bounds the walk.
    // eslint-disable-next-line @convex-dev/no-filter-in-query
    .filter((q) => {
      const parts = [];
      if (typeLeft !== undefined) parts.push(q.eq(q.field("type"), typeLeft));
      if (channelLeft !== undefined) parts.push(q.eq(q.field("channelId"), channelLeft));
      if (actorLeft !== undefined) {
        parts.push(q.eq(q.field("actor.kind"), actorLeft.kind));
        if (actorLeft.kind === "member") parts.push(q.eq(q.field("actor.userId"), actorLeft.userId));
        if (actorLeft.kind === "agent") parts.push(q.eq(q.field("actor.sessionKey"), actorLeft.sessionKey));
      }
      return q.and(...parts);
    })
    .paginate(paginationOpts);
}

/** Most events and runs one trace returns. */
export const MAX_TRACE_ROWS = 200;

/**
 * What one A2A correlation id spans in a department (the spec's "Tracing"):
 * its events (envelopes, messaging lines), oldest first, and the runs that
 * worked under it, each bounded.
 */
export async function traceOf(ctx: QueryCtx, departmentId: Id<"departments">, correlationId: string) {
  const events = await ctx.db
    .query("events")
    .withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", correlationId))
    .take(MAX_TRACE_ROWS);
  const runs = await ctx.db
    .query("runs")
    .withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", correlationId))
    .take(MAX_TRACE_ROWS);
  return { events, runs };
}

/** Whether anything in the department carries `correlationId` (an event or a run): one index read each. */
export async function hasTraceOf(ctx: QueryCtx, departmentId: Id<"departments">, correlationId: string): Promise<boolean> {
  const event = await ctx.db
    .query("events")
    .withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", correlationId))
    .first();
  if (event !== null) return true;
  const run = await ctx.db
    .query("runs")
    .withIndex("by_department_and_correlationId", (q) => q.eq("departmentId", departmentId).eq("correlationId", correlationId))
    .first();
  return run !== null;
}
