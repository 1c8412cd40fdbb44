import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** One entry of the activity feed, as `activities.list` returns it. */
export type ActivityEntry = FunctionReturnType<typeof api.activities.list>["page"][number];
export type ActivityType = ActivityEntry["type"];
