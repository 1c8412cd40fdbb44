import { describe, expect, test } from "vitest";
import { leadModeOf } from "../../convex/lib/leadMode";

describe("leadModeOf", () => {
  test("a task's mode wins over the department's", () => {
    expect(leadModeOf({ leadMode: "act" }, { leadMode: "plan" })).toBe("act");
    expect(leadModeOf({ leadMode: "plan" }, { leadMode: "act" })).toBe("plan");
  });
  test("the department's #maestro mode applies when the task has none", () => {
    expect(leadModeOf({}, { leadMode: "plan" })).toBe("plan");
    expect(leadModeOf(null, { leadMode: "plan" })).toBe("plan");
  });
  test("act when nothing is set", () => {
    expect(leadModeOf(undefined, undefined)).toBe("act");
    expect(leadModeOf({}, {})).toBe("act");
  });
});
