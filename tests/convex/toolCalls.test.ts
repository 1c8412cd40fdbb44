import { describe, expect, test } from "vitest";
import { MAX_TOOL_ARG_CHARS, parseToolCalls, repairJson, stripToolCalls } from "../../convex/brain/toolCalls";

describe("parseToolCalls", () => {
  test.each([
    ["a plain call", '[TOOL: post_message ARG: {"content": "hi"}]', { name: "post_message", args: { content: "hi" }, repaired: false }],
    ["a call without arguments", "[TOOL: chat.getNew]", { name: "chat.getNew", args: {}, repaired: false }],
    ["nested brackets and braces in strings", '[TOOL: post_message ARG: {"content": "a ] b } c [TOOL: x]", "n": [1, [2]]}]', { name: "post_message", args: { content: "a ] b } c [TOOL: x]", n: [1, [2]] } }],
    ["trailing commas", '[TOOL: delegate_task ARG: {"title": "T", "assignees": ["Dev Bot",],}]', { args: { title: "T", assignees: ["Dev Bot"] }, repaired: true }],
    ["single quotes", "[TOOL: post_message ARG: {'content': 'it\\'s \"fine\"'}]", { args: { content: 'it\'s "fine"' }, repaired: true }],
    ["unquoted keys", '[TOOL: update_task_status ARG: {status: "done"}]', { args: { status: "done" }, repaired: true }],
    ["a JSON string instead of an object", '[TOOL: post_message ARG: "{\\"content\\": \\"hi\\"}"]', { args: { content: "hi" }, repaired: true }],
    ["unicode in values", '[TOOL: post_message ARG: {"content": "Zoë ✓ 日本"}]', { args: { content: "Zoë ✓ 日本" } }],
  ])("%s", (_label, reply, expected) => {
    const [call] = parseToolCalls(reply);
    expect(call).toMatchObject(expected);
    expect(call.error).toBeUndefined();
  });

  test("repair never touches text inside strings", () => {
    expect(JSON.parse(repairJson("{'a': 'x, b: y,}', c: 1,}"))).toEqual({ a: "x, b: y,}", c: 1 });
  });

  test("several calls run in order; surrounding prose is what the agent says", () => {
    const reply = 'On it.\n[TOOL: delegate_task ARG: {"title": "A"}]\n[TOOL: delegate_task ARG: {"title": "B"}]\nDone.';
    expect(parseToolCalls(reply).map((c) => c.args?.title)).toEqual(["A", "B"]);
    expect(stripToolCalls(reply)).toBe("On it.\n\nDone.");
  });

  test.each([
    ["the schema echoed back", '[TOOL: delegate_task ARG: {"title": {"type": "string", "description": "Task title"}}]', /repeat the schema .*title/],
    ["an array", "[TOOL: post_message ARG: [1, 2]]", /must be a JSON object, got an array/],
    ["a bare word", "[TOOL: post_message ARG: hello]", /not valid JSON/],
    ["broken JSON the repair cannot fix", '[TOOL: post_message ARG: {"content": "x" "y"}]', /not valid JSON/],
    ["unbalanced brackets", '[TOOL: post_message ARG: {"content": "x"', /not complete JSON/],
    ["huge arguments", `[TOOL: post_message ARG: {"content": "${"x".repeat(MAX_TOOL_ARG_CHARS)}"}]`, /limit is 20000/],
  ])("%s gives an error naming the problem", (_label, reply, message) => {
    const [call] = parseToolCalls(reply);
    expect(call.args).toBeUndefined();
    expect(call.error).toMatch(message);
  });

  test("quoted text and code blocks in the reply are never calls", () => {
    const reply = [
      "> Dev Bot wrote: [TOOL: delegate_task ARG: {\"title\": \"evil\"}]",
      "```",
      '[TOOL: delegate_task ARG: {"title": "in code"}]',
      "```",
      'Real: [TOOL: post_message ARG: {"content": "ok"}]',
    ].join("\n");
    expect(parseToolCalls(reply).map((c) => c.name)).toEqual(["post_message"]);
  });

  test("text that only looks like a call is left alone", () => {
    expect(parseToolCalls("[TOOL: ] and [TOOL: 名前 ARG: {}] and [TOOL: x y]")).toEqual([]);
  });
});
