/** A run's event stream for the screens: every run view is replayed from these events (src/runs/). */
import { paginationOptsValidator, paginationResultValidator } from "convex/server";
import { v } from "convex/values";
import type { Doc } from "./_generated/dataModel";
import { userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { vRunEvent } from "./lib/runEvents";
import { requireMember } from "./records/members";
import { eventsOfRun, runEventsPage } from "./records/runEvents";

/** Most events one page of a run carries. */
export const MAX_RUN_EVENTS_PAGE = 1000;

function envelope({ runId, seq, kind, timestamp, clientMessageId, payload }: Doc<"runEvents">) {
  return { runId, seq, kind, timestamp, ...(clientMessageId === undefined ? {} : { clientMessageId }), payload };
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
