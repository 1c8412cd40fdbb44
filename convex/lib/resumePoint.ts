/**
 * Where a run that paused for a person goes on: the paused call and what the
 * person decided. Validators apart from pauses.ts, so runs.ts (which pauses.ts
 * imports) can name them without an import cycle at load time.
 */
import { v, type Infer } from "convex/values";
import { vPlanStep, vRunPause } from "../validators";

export const vResolution = v.union(
  /** Approved, and the stored call is intact: run exactly it. */
  v.object({ kind: v.literal("execute"), tool: v.string(), args: v.string() }),
  /** What the paused call's result is, without running anything. */
  v.object({ kind: v.literal("result"), outcome: v.union(v.literal("ok"), v.literal("denied"), v.literal("refused")), text: v.string() }),
  /** An approved plan: its steps are delegated as proposed. */
  v.object({ kind: v.literal("delegate_plan"), decidedBy: v.string(), steps: v.array(vPlanStep) }),
);
export type Resolution = Infer<typeof vResolution>;

export const vResumePoint = v.object({ pause: vRunPause, resolution: vResolution });
export type ResumePoint = Infer<typeof vResumePoint>;
