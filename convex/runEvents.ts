/** A run's event stream for the screens: every run view is replayed from these events (src/runs/). */
import { v } from "convex/values";
import { userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { vRunEvent } from "./lib/runEvents";
import { requireMember } from "./records/members";
import { eventsOfRun } from "./records/runEvents";

/** A run's events in order, from `afterSeq` on (for the run view and its replay). */
export const listForRun = userQuery({
  args: { runId: v.id("runs"), afterSeq: v.optional(v.number()) },
  returns: v.array(vRunEvent),
  handler: async (ctx, { runId, afterSeq }) => {
    const run = await ctx.db.get("runs", runId);
    if (run === null) throw new MaestroError("NOT_FOUND", "Run not found.");
    await requireMember(ctx, run.departmentId, "viewer", ctx.viewer);
    const rows = await eventsOfRun(ctx, runId, afterSeq ?? 0);
    return rows.map(({ runId, seq, kind, timestamp, clientMessageId, payload }) => ({
      runId,
      seq,
      kind,
      timestamp,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
      payload,
    }));
  },
});
