import { describe, expect, test } from "vitest";
import { canonicalJson, idempotencyKey, type RunCause } from "../../convex/lib/idempotency";

const mention: RunCause = { taskId: "t1", agentSessionKey: "agent:jarvis:product", trigger: { kind: "mentioned", messageId: "m1" } };
const args = { title: "Hero copy", assignees: ["Writer"], instruction: "Write it." };

describe("idempotency keys come from the cause, the tool and the arguments, never the run", () => {
  test("canonical JSON ignores key order and undefined fields", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  test("the same cause, tool and arguments give the same key, whatever the run or key order", () => {
    const reordered = { instruction: "Write it.", assignees: ["Writer"], title: "Hero copy" };
    expect(idempotencyKey(mention, "delegate_task", args)).toBe(idempotencyKey({ ...mention }, "delegate_task", reordered));
    expect(idempotencyKey(mention, "delegate_task", args)).toMatch(/^delegate_task:[0-9a-f]{64}$/);
  });

  test.each([
    ["another trigger message", { ...mention, trigger: { kind: "mentioned", messageId: "m2" } }, "delegate_task", args],
    ["another task", { ...mention, taskId: "t2" }, "delegate_task", args],
    ["another agent", { ...mention, agentSessionKey: "agent:writer:product" }, "delegate_task", args],
    ["another tool", mention, "post_message", args],
    ["other arguments", mention, "delegate_task", { ...args, title: "Footer" }],
  ])("%s gives another key", (_label, cause, tool, otherArgs) => {
    expect(idempotencyKey(cause, tool, otherArgs)).not.toBe(idempotencyKey(mention, "delegate_task", args));
  });

  test("a trigger without a message is told apart by its note", () => {
    const result = (note: string): RunCause => ({ ...mention, trigger: { kind: "delegation_result", note } });
    expect(idempotencyKey(result("A is done"), "delegate_task", args)).not.toBe(idempotencyKey(result("B is done"), "delegate_task", args));
  });
});
