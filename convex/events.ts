/**
 * The department's event log (messaging and channel lifecycle), newest
 * first: what the spec publishes on NATS subjects, read here through a
 * subscription. It names who did what, so admins read it as the audit
 * trail, narrowed by type, actor and channel.
 */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Id } from "./_generated/dataModel";
import type { QueryCtx } from "./_generated/server";
import { departmentQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { checkPageSize } from "./lib/validate";
import { eventPage, hasTraceOf, traceOf, type EventFilter } from "./records/events";
import schema from "./schema";
import { vEventType } from "./validators";

const vEvent = schema.tables.events.validator.omit("departmentId").extend({
  _id: v.id("events"),
  _creationTime: v.number(),
  /** Where it happened, as people say it: `#launch`, or "a DM" (whose participants the log does not name). */
  where: v.optional(v.string()),
});

/** An actor as the filter names it: `system`, `member:<userId>` (a member's key), or an agent's sessionKey. */
function actorFilter(ctx: QueryCtx, key: string): NonNullable<EventFilter["actor"]> {
  if (key === "system") return { kind: "system" };
  if (key.startsWith("member:")) {
    const userId = ctx.db.normalizeId("users", key.slice("member:".length));
    if (userId === null) throw new MaestroError("INVALID_ARGUMENT", `${JSON.stringify(key)} names no member.`);
    return { kind: "member", userId };
  }
  if (key.trim() === "" || key.length > 200) throw new MaestroError("INVALID_ARGUMENT", "Name an actor by their key.");
  return { kind: "agent", sessionKey: key };
}

/** A correlation id as the filter and the trace take it: 1 to 200 characters. */
function checkCorrelationId(correlationId: string): void {
  if (correlationId.trim() === "" || correlationId.length > 200) throw new MaestroError("INVALID_ARGUMENT", "Name a correlation id of 1 to 200 characters.");
}

/** Admins: one page of the log, narrowed by event type, actor (a key as `actorFilter` reads it), channel and correlation id. */
export const list = departmentQuery({
  role: "admin",
  args: {
    paginationOpts: paginationOptsValidator,
    type: v.optional(vEventType),
    actor: v.optional(v.string()),
    channelId: v.optional(v.id("channels")),
    correlationId: v.optional(v.string()),
  },
  returns: paginationResultValidator(vEvent),
  handler: async (ctx, { departmentId, paginationOpts, type, actor, channelId, correlationId }) => {
    checkPageSize(paginationOpts.numItems);
    if (correlationId !== undefined) checkCorrelationId(correlationId);
    const page = await eventPage(ctx, departmentId, paginationOpts, { type, channelId, correlationId, actor: actor === undefined ? undefined : actorFilter(ctx, actor) });
    // A page names few channels: each is read once.
    const places = new Map<Id<"channels">, string | undefined>();
    for (const { channelId: id } of page.page) {
      if (id === undefined || places.has(id)) continue;
      const channel = await ctx.db.get("channels", id);
      places.set(id, channel === null ? undefined : channel.kind === "dm" ? "a DM" : `#${channel.name}`);
    }
    return {
      ...page,
      page: page.page.map(({ departmentId: _d, ...event }) => ({ ...event, where: event.channelId === undefined ? undefined : places.get(event.channelId) })),
    };
  },
});

/**
 * Admins: everything one A2A correlation id spans (messaging spec, "Tracing:
 * correlation_id spans from A2A → messaging → task execution"): its events,
 * oldest first (the envelopes and the messaging lines), and the runs that
 * worked under it; each run's events carry the same id (runEvents.listForRun).
 */
export const trace = departmentQuery({
  role: "admin",
  args: { correlationId: v.string() },
  returns: v.object({
    events: v.array(vEvent.omit("where")),
    runs: v.array(v.object({ runId: v.id("runs"), taskId: v.id("tasks"), agentSessionKey: v.string(), status: v.string(), createdAt: v.number() })),
  }),
  handler: async (ctx, { departmentId, correlationId }) => {
    checkCorrelationId(correlationId);
    const { events, runs } = await traceOf(ctx, departmentId, correlationId);
    return {
      events: events.map(({ departmentId: _d, ...event }) => event),
      runs: runs.map((run) => ({ runId: run._id, taskId: run.taskId, agentSessionKey: run.agentSessionKey, status: run.status, createdAt: run._creationTime })),
    };
  },
});

/**
 * Admins: whether one correlation id has a trace in the department, for a
 * card's "Trace of this delegation" link (an A2A client's card, a card
 * handed to an A2A agent, a top-level card's status lines: not only
 * delegated ones). Another department's id reads as false.
 */
export const hasTrace = departmentQuery({
  role: "admin",
  args: { correlationId: v.string() },
  returns: v.boolean(),
  handler: async (ctx, { departmentId, correlationId }) => {
    checkCorrelationId(correlationId);
    return await hasTraceOf(ctx, departmentId, correlationId);
  },
});
