/**
 * The limits on a tool call's arguments (lib/argumentLimits), read from the
 * raw text before anything parses or walks it, and the parser that asks
 * them first (lib/toolCalls). tests/backend/agentBoundary.test.ts has the
 * hijacked model sending such a call next to others.
 */
import { describe, expect, test } from "vitest";
import { argumentLimitProblem, MAX_TOOL_ARG_CHARS, MAX_TOOL_ARG_DEPTH } from "../../convex/lib/argumentLimits";
import { parseToolCalls } from "../../convex/lib/toolCalls";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("argumentLimitProblem", () => {
  test("ordinary arguments pass, up to the depth limit", () => {
    expect(argumentLimitProblem('{"title": "A", "assignees": ["Writer"], "meta": {"a": [1, {"b": 2}]}}')).toBeNull();
    expect(argumentLimitProblem(`{"a": ${nested(MAX_TOOL_ARG_DEPTH - 1)}}`)).toBeNull();
  });

  test("one level more is refused, and so is a 9,000-deep array, without recursing", () => {
    expect(argumentLimitProblem(`{"a": ${nested(MAX_TOOL_ARG_DEPTH)}}`)).toMatch(/nest deeper than 32 levels/);
    expect(argumentLimitProblem(`{"a": ${nested(9000)}}`)).toMatch(/nest deeper/);
    // Far past any stack: a recursive check would throw here.
    expect(argumentLimitProblem(nested(MAX_TOOL_ARG_CHARS / 2))).toMatch(/nest deeper/);
  });

  test("brackets inside strings do not count, whichever quotes and escapes", () => {
    const deepText = "[".repeat(500);
    expect(argumentLimitProblem(JSON.stringify({ content: deepText }))).toBeNull();
    expect(argumentLimitProblem(`{'content': '${deepText}'}`)).toBeNull();
    expect(argumentLimitProblem(`{"content": "a \\" ${deepText}"}`)).toBeNull();
  });

  test("too long is refused by size", () => {
    expect(argumentLimitProblem(`"${"x".repeat(MAX_TOOL_ARG_CHARS)}"`)).toMatch(/limit is 20000/);
  });
});

describe("parseToolCalls with deep arguments", () => {
  test("a 9,000-deep array inside an argument (under the size limit) is an error for that call only; the next call parses", () => {
    const reply = `[TOOL: post_message ARG: {"content": "hi", "artifacts": ${nested(9000)}}]\n[TOOL: post_message ARG: {"content": "still here"}]`;
    expect(reply.length).toBeLessThan(MAX_TOOL_ARG_CHARS);
    const calls = parseToolCalls(reply);
    expect(calls).toHaveLength(2);
    expect(calls[0].args).toBeUndefined();
    expect(calls[0].error).toMatch(/nest deeper than 32 levels/);
    expect(calls[1].args).toEqual({ content: "still here" });
  });

  test("double-encoded deep arguments are refused by the same check", () => {
    const [call] = parseToolCalls(`[TOOL: post_message ARG: ${JSON.stringify(`{"content": "x", "a": ${nested(5000)}}`)}]`);
    expect(call.error).toMatch(/nest deeper/);
  });
});
