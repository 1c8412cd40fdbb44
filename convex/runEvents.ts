/** A run's event stream for the screens: every run view is replayed from these events (src/runs/). */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { vRunEvent } from "./lib/runEvents";
import { requireMember } from "./records/members";
import { eventsOfRun, recentToolEvents, runEventsPage } from "./records/runEvents";

/** Most events one page of a run carries. */
export const MAX_RUN_EVENTS_PAGE = 1000;
/** Tool calls of a run the drawer's runs panel shows, newest; the run's page has them all. */
export const MAX_TOOL_CALLS_SHOWN = 20;

function envelope({ runId, seq, kind, timestamp, clientMessageId, correlationId, payload }: Doc<"runEvents">) {
  return { runId, seq, kind, timestamp, ...(clientMessageId === undefined ? {} : { clientMessageId }), ...(correlationId === undefined ? {} : { correlationId }), payload };
}

/** A run's events in order, from `afterSeq` on (for the run view and its replay). */
export const listForRun = userQuery({
  args: { runId: v.id("runs"), afterSeq: v.optional(v.number()) },
  returns: v.array(vRunEvent),
  handler: async (ctx, { runId, afterSeq }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    return (await eventsOfRun(ctx, runId, afterSeq ?? 0)).map(envelope);
  },
});

/** A run's events in order, one page at a time (up to MAX_RUN_EVENTS_PAGE each): every event of a run of any length. */
export const pageForRun = userQuery({
  args: { runId: v.id("runs"), paginationOpts: paginationOptsValidator },
  returns: paginationResultValidator(vRunEvent),
  handler: async (ctx, { runId, paginationOpts }) => {
    const { numItems } = paginationOpts;
    if (!Number.isInteger(numItems) || numItems < 1 || numItems > MAX_RUN_EVENTS_PAGE) throw new MaestroError("INVALID_ARGUMENT", `Page size must be between 1 and ${MAX_RUN_EVENTS_PAGE}.`);
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    const page = await runEventsPage(ctx, runId, paginationOpts);
    return { ...page, page: page.page.map(envelope) };
  },
});

/**
 * A run's newest tool calls and their results, as events (`tool_call` and
 * `tool_result`, in order), for the drawer's runs panel: live as the run
 * calls tools, and not re-read for each batch of streamed text. `more` when
 * the run made more calls than MAX_TOOL_CALLS_SHOWN.
 */
export const toolCallsForRun = userQuery({
  args: { runId: v.id("runs") },
  returns: v.object({ events: v.array(vRunEvent), more: v.boolean() }),
  handler: async (ctx, { runId }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    const { events, more } = await recentToolEvents(ctx, runId, MAX_TOOL_CALLS_SHOWN);
    return { events: events.map(envelope), more };
  },
});
