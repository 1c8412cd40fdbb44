import type { LeadMode } from "../validators";

/**
 * The squad lead's mode where it works: a task's own mode (set by /mode in its
 * thread) wins, then the department's #maestro mode, then "act" (delegate
 * directly). In "plan" mode the lead proposes a plan for approval first.
 */
export function leadModeOf(
  task: { leadMode?: LeadMode } | null | undefined,
  settings: { leadMode?: LeadMode } | null | undefined,
): LeadMode {
  return task?.leadMode ?? settings?.leadMode ?? "act";
}
