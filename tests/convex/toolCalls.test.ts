import { describe, expect, test } from "vitest";
import { cutForThread, cutJsonList, cutObservation, cutLines, inlineCodeSpans, MAX_TOOL_ARG_CHARS, parseToolCalls, repairJson, stripToolCalls } from "../../convex/lib/toolCalls";
import { MAX_OBSERVATION_CHARS, TOOL_REGISTRY } from "../../convex/tools/registry";
import { LIMITS } from "../../convex/lib/limits";
import { TRUNCATION_MARK } from "../../convex/lib/secrets/userText";

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

describe("inline code", () => {
  test("a call inside inline code (any backtick run) is text; one outside still runs", () => {
    const reply = [
      'Write `[TOOL: delegate_task ARG: {"title": "in code"}]` to delegate,',
      'or ``[TOOL: post_message ARG: {"content": "a ` inside"}]``.',
      'Real: [TOOL: post_message ARG: {"content": "use `npm test` first"}]',
    ].join("\n");
    expect(parseToolCalls(reply).map((c) => c.args)).toEqual([{ content: "use `npm test` first" }]);
    expect(stripToolCalls(reply)).toContain('`[TOOL: delegate_task ARG: {"title": "in code"}]`');
  });

  test("an unmatched backtick is a literal, so the call after it runs", () => {
    expect(parseToolCalls('it`s done [TOOL: post_message ARG: {"content": "x"}]').map((c) => c.name)).toEqual(["post_message"]);
  });

  test("spans pair runs of equal length, outside fences", () => {
    const text = "a `b` c ``d ` e`` ```\n`x\n``` `f`";
    const fence = text.indexOf("```");
    const spans = inlineCodeSpans(text, [[fence, text.lastIndexOf("```") + 3]]);
    expect(spans.map(([s, e]) => text.slice(s, e))).toEqual(["`b`", "``d ` e``", "`f`"]);
  });
});

describe("cutForThread", () => {
  test("a reply within the limit is only trimmed", () => {
    expect(cutForThread("  hello \n")).toBe("hello");
    expect(cutForThread("x".repeat(LIMITS.messageChars))).toHaveLength(LIMITS.messageChars);
  });

  test("a longer reply is cut to the limit with the mark", () => {
    const cut = cutForThread("y".repeat(50_000));
    expect(cut).toHaveLength(LIMITS.messageChars);
    expect(cut.endsWith(TRUNCATION_MARK)).toBe(true);
  });

  test("never inside a surrogate pair", () => {
    const max = 20;
    const keep = max - TRUNCATION_MARK.length;
    const cut = cutForThread(`${"a".repeat(keep - 1)}😀${"b".repeat(30)}`, max);
    expect(cut).toBe(`${"a".repeat(keep - 1)}${TRUNCATION_MARK}`);
  });
});

describe("cut observations", () => {
  const messages = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, author: "@writer", text: `message ${i + 1} ${"x".repeat(100)}`, ts: "2026-01-01T00:00:00Z" }));

  test("a JSON list cut to fit stays valid JSON, keeps whole items from the start and says how many were left out", () => {
    const text = cutJsonList({ messages, newPointer: 60 }, "messages", 4000);
    expect(text.length).toBeLessThanOrEqual(4000);
    const parsed = JSON.parse(text) as { messages: typeof messages; newPointer: number; omitted: number; note: string };
    expect(parsed.messages).toEqual(messages.slice(0, parsed.messages.length));
    expect(parsed.messages.length).toBeGreaterThan(20);
    expect(parsed.omitted).toBe(60 - parsed.messages.length);
    expect(parsed.note).toBe(`${parsed.omitted} of 60 messages left out to keep this result short`);
    expect(parsed.newPointer).toBe(60);
    // One item more would not have fitted.
    expect(JSON.stringify({ messages: messages.slice(0, parsed.messages.length + 1), newPointer: 60, omitted: parsed.omitted - 1, note: parsed.note }).length).toBeGreaterThan(4000);
  });

  test("a JSON list that fits is left as it is", () => {
    expect(cutJsonList({ messages: messages.slice(0, 2), newPointer: 2 }, "messages", 4000)).toBe(JSON.stringify({ messages: messages.slice(0, 2), newPointer: 2 }));
  });

  test("lines cut to fit are whole lines, with a last line counting the rest", () => {
    const lines = messages.map((m) => `[${m.id}] ${m.author}: ${m.text}`);
    const text = cutLines(lines.join("\n"), 1000, "message");
    expect(text.length).toBeLessThanOrEqual(1000);
    const out = text.split("\n");
    const kept = out.slice(0, -1);
    expect(kept).toEqual(lines.slice(0, kept.length));
    expect(out.at(-1)).toBe(`(${60 - kept.length} more messages left out to keep this result short)`);
  });

  test("chat.getNew's observation is cut into valid JSON, never mid-text", async () => {
    const chatGetNew = TOOL_REGISTRY.find((t) => t.name === "chat.getNew")!;
    const ctx = { runQuery: async () => ({ messages, newPointer: 60 }) } as unknown as Parameters<typeof chatGetNew.execute>[0];
    const result = await chatGetNew.execute(ctx, {} as Parameters<typeof chatGetNew.execute>[1], {});
    expect(result.ok).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(MAX_OBSERVATION_CHARS);
    expect(JSON.parse(result.text)).toMatchObject({ newPointer: 60, omitted: expect.any(Number) });
  });
});

describe("cutObservation: a long tool result stays readable", () => {
  test("JSON keeps being JSON: its longest list loses items from the end and says how many", () => {
    const value = { url: "https://example.com", rows: Array.from({ length: 500 }, (_, i) => ({ i, text: "x".repeat(50) })) };
    const cut = cutObservation(JSON.stringify(value), 4000);
    expect(cut.length).toBeLessThanOrEqual(4000);
    const read = JSON.parse(cut) as { url: string; rows: unknown[]; omitted: number; note: string };
    expect(read.url).toBe("https://example.com");
    expect(read.rows.length + read.omitted).toBe(500);
    expect(read.note).toBe(`${read.omitted} of 500 rows left out to keep this result short`);
  });

  test("a JSON list is kept as items; one long string is shortened, naming the characters left out", () => {
    const list = cutObservation(JSON.stringify(Array.from({ length: 300 }, (_, i) => `item ${i} ${"y".repeat(40)}`)), 2000);
    expect((JSON.parse(list) as { omitted: number }).omitted).toBeGreaterThan(0);
    const page = cutObservation(JSON.stringify({ title: "Pricing", text: "z".repeat(88_000) }), 4000);
    const read = JSON.parse(page) as { title: string; text: string; omittedChars: number; note: string };
    expect(read.title).toBe("Pricing");
    expect(read.text.length + read.omittedChars).toBe(88_000);
    expect(read.note).toContain("characters of text left out");
  });

  test("text keeps whole lines and ends saying how many were left out; one endless line is cut at a counted character", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}: ${"w".repeat(30)}`).join("\n");
    const cut = cutObservation(lines, 4000);
    expect(cut.length).toBeLessThanOrEqual(4000);
    const kept = cut.split("\n");
    expect(kept.slice(0, -1).every((line) => /^line \d+: w{30}$/.test(line))).toBe(true);
    expect(kept.at(-1)).toBe(`(${2000 - (kept.length - 1)} more lines left out to keep this result short)`);
    const one = cutObservation("q".repeat(88_000), 4000);
    expect(one.length).toBeLessThanOrEqual(4000);
    expect(one).toMatch(/… \(\d{2},\d{3} more characters left out to keep this result short\)$/);
    expect(cutObservation("short", 4000)).toBe("short");
  });
});
