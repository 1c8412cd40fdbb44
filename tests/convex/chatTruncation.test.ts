/**
 * The chat spec: a `#maestro` post over `maxMessageChars` is cut and
 * `" … [truncated]"` appended ("Enforce via truncate"), never refused —
 * however long it is (today anything over four times the limit, 16,384
 * characters by default, is refused). For people (the app's mutation,
 * POST /api/chat) and agents (the brain's chat.post, POST /mcp/chat.post),
 * with the secret scanner still reading the cut text, and the scan bounded
 * by the cut however large the post.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { REDACTED, REDACTION_NOTE } from "../../convex/lib/secrets/scanner";
import { TRUNCATION_MARK } from "../../convex/lib/secrets/userText";
import { callMessagingApi, squadWithWriterKey, type TestConvex } from "./setup";

const LIMIT = 4096;
const AWS = "AKIAIOSFODNN7EXAMPLE";

async function rows(t: TestConvex) {
  return await t.run(async (ctx) => await ctx.db.query("chat").withIndex("by_chat_id").collect());
}

describe("a #maestro post over the limit", () => {
  test.each([16_385, 40_000, 2_000_000])("of %i characters is cut to the limit and marked, from a person in the app and over /api/chat", async (length) => {
    const { t, departmentId, admin } = await squadWithWriterKey();
    const text = `${AWS} ${"z".repeat(length - AWS.length - 1)}`;
    await admin.mutation(api.chat.postAsHuman, { departmentId, text });
    const response = await admin.fetch("/api/chat", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
    expect(response.status).toBe(200);
    const stored = await rows(t);
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      expect(row).toMatchObject({ truncated: true, redacted: true });
      expect(row.text.startsWith(`${REDACTED} zzz`)).toBe(true);
      expect(row.text.endsWith(`${TRUNCATION_MARK}${REDACTION_NOTE}`)).toBe(true);
      expect(row.text.length).toBe(LIMIT - AWS.length + REDACTED.length + REDACTION_NOTE.length);
    }
  });

  test("from an agent over MCP (POST /mcp/chat.post): cut and marked, as the spec's chat.post says", async () => {
    const { t, key } = await squadWithWriterKey();
    const posted = await callMessagingApi(t, key, "POST", "/mcp/chat.post", { text: "w".repeat(20_000) });
    expect(posted).toMatchObject({ status: 200, body: { success: true } });
    const [row] = await rows(t);
    expect(row.text).toBe(`${"w".repeat(LIMIT - TRUNCATION_MARK.length)}${TRUNCATION_MARK}`);
    expect(row).toMatchObject({ author: "@writer", truncated: true, redacted: false });
  });

  test("an empty post is still refused, and the limit's own size is kept whole", async () => {
    const { t, departmentId, admin } = await squadWithWriterKey();
    await expect(admin.mutation(api.chat.postAsHuman, { departmentId, text: "   " })).rejects.toThrow("A chat message must not be empty.");
    await admin.mutation(api.chat.postAsHuman, { departmentId, text: "q".repeat(LIMIT) });
    expect((await rows(t)).map((row) => [row.text.length, row.truncated])).toEqual([[LIMIT, false]]);
  });
});
