/**
 * The HTTP API's contract, exact (issue 40, point 5): history pages
 * oldest-first from `since` with a cursor (nothing skipped, nothing twice),
 * whole-millisecond times, `Retry-After` on every 429, JSON for unknown
 * paths, and agent names resolved by the project's one name rule on every
 * route that takes them.
 */
import { describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { type Actor, callMessagingApi, type TestConvex, squadWithWriterKey } from "./setup";

/** Posts `count` top-level messages in #`channel`: Writer (by key) and Grace take turns, so neither meets the post bucket. */
async function postMany(t: TestConvex, key: string, grace: Actor, channelId: Id<"channels">, count: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = `message ${i}`;
    if (i % 2 === 0) expect((await callMessagingApi(t, key, "POST", "/messages", { channel: channelId, body })).status).toBe(200);
    else await grace.mutation(api.channelMessages.post, { channelId, body });
    bodies.push(body);
  }
  return bodies;
}

async function squadWithChannel() {
  const squad = await squadWithWriterKey();
  const made = await callMessagingApi(squad.t, squad.key, "POST", "/channels", { name: "paging" });
  return { ...squad, channelId: made.body.id as Id<"channels"> };
}

describe("the HTTP API's contract", () => {
  test("since + limit pages oldest-first with a cursor: 30 messages read 10 at a time are all 30, each once, in order", async () => {
    const { t, key, grace, channelId } = await squadWithChannel();
    const bodies = await postMany(t, key, grace, channelId, 30);
    const seen: string[] = [];
    let page = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?since=0&limit=10`);
    for (let i = 0; i < 5 && page.status === 200; i++) {
      seen.push(...page.body.messages.map((m: { body: string }) => m.body));
      if (!page.body.more) break;
      expect(typeof page.body.next_cursor).toBe("string");
      page = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?cursor=${encodeURIComponent(page.body.next_cursor!)}&limit=10`);
    }
    expect(seen).toEqual(bodies);
    // Polling on from the last page's cursor finds nothing new, then exactly what arrives.
    const idle = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?cursor=${encodeURIComponent(page.body.next_cursor!)}`);
    expect(idle.body).toMatchObject({ messages: [], more: false, next_cursor: page.body.next_cursor });
    await callMessagingApi(t, key, "POST", "/messages", { channel: channelId, body: "late" });
    const late = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?cursor=${encodeURIComponent(idle.body.next_cursor!)}`);
    expect(late.body.messages.map((m: { body: string }) => m.body)).toEqual(["late"]);
  });

  test("`since` is a whole millisecond: a message's own created_at as `since` does not return it again", async () => {
    const { t, key, grace, channelId } = await squadWithChannel();
    await postMany(t, key, grace, channelId, 4);
    const all = (await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?since=0&limit=50`)).body.messages as Array<{ body: string; created_at: number }>;
    expect(all).toHaveLength(4);
    const after = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?since=${all[3].created_at}`);
    expect(after.body.messages).toEqual([]);
  });

  test("a cursor the API did not hand out is a 400", async () => {
    const { t, key, channelId } = await squadWithChannel();
    const answer = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?cursor=not-a-cursor`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/cursor/);
  });

  test("every time is whole milliseconds, also for messages stored in the same millisecond", async () => {
    const { t, key, grace, channelId } = await squadWithChannel();
    // The clock stands still while they are posted, as when a burst lands within one millisecond.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      await postMany(t, key, grace, channelId, 6);
    } finally {
      vi.useRealTimers();
    }
    const stored = await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).map((m) => m._creationTime));
    // The rows do carry fractions (made in one millisecond), which the contract must not show.
    expect(stored.some((time) => !Number.isInteger(time))).toBe(true);
    const history = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?limit=50`);
    const thread = await callMessagingApi(t, key, "GET", `/threads/${history.body.messages[5].id}`);
    const channel = await callMessagingApi(t, key, "GET", `/channels/${channelId}`);
    const project = await callMessagingApi(t, key, "GET", "/projects/me");
    const times = [
      ...history.body.messages.map((m: { created_at: number }) => m.created_at),
      thread.body.created_at,
      channel.body.created_at,
      channel.body.last_message_at,
      project.body.created_at,
    ];
    for (const time of times) expect(Number.isInteger(time)).toBe(true);
  });

  test("every 429 carries Retry-After, in whole seconds, as its body says", async () => {
    const { t, key, channelId } = await squadWithChannel();
    let limited: Response | null = null;
    for (let i = 0; i < 40 && limited === null; i++) {
      const response = await t.fetch("/messages", { method: "POST", headers: { Authorization: `Bearer ${key}` }, body: JSON.stringify({ channel: channelId, body: `flood ${i}` }) });
      if (response.status === 429) limited = response;
    }
    expect(limited).not.toBeNull();
    const seconds = Number(limited!.headers.get("Retry-After"));
    expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
    expect(await limited!.json()).toMatchObject({ retryAfterSeconds: seconds });
  });

  test("an unknown path answers 404 with {error} JSON, whatever the method", async () => {
    const { t, key } = await squadWithWriterKey();
    for (const [method, path] of [["GET", "/nowhere"], ["POST", "/tasks/x/y/z"], ["PUT", "/messages"], ["DELETE", "/channels/general"], ["GET", "/"]] as const) {
      const response = await t.fetch(path, { method, headers: { Authorization: `Bearer ${key}` } });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get("Content-Type")).toMatch(/application\/json/);
      expect(((await response.json()) as { error: string }).error).toMatch(/No such endpoint/);
    }
  });

  test("POST /tasks, mentions, DMs and GET /agents resolve agent names by the one name rule (case, @, _ and - alike)", async () => {
    const { t, key } = await squadWithWriterKey();
    const task = await callMessagingApi(t, key, "POST", "/tasks", { title: "Fix the build", assignees: ["dev_bot"] });
    expect(task.status).toBe(200);
    expect(task.body.assignees).toEqual(["Dev Bot"]);
    expect((await callMessagingApi(t, key, "POST", "/tasks", { title: "Again", assignees: ["@DEV-BOT"] })).body.assignees).toEqual(["Dev Bot"]);
    await callMessagingApi(t, key, "POST", "/channels", { name: "names" });
    const posted = await callMessagingApi(t, key, "POST", "/messages", { channel: "names", body: "see this", mentions: ["dev-bot"] });
    expect(posted.body.mentions).toEqual(["Dev Bot"]);
    expect((await callMessagingApi(t, key, "GET", "/agents/dev_bot")).body.name).toBe("Dev Bot");
    // An unknown name is still refused, with the nearest names.
    const unknown = await callMessagingApi(t, key, "POST", "/tasks", { title: "Nobody", assignees: ["Dev Bott"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Dev Bot/);
  });
});
