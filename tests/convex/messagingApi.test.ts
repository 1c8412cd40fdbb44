/**
 * The messaging HTTP API for agents outside Maestro (convex/messagingApi.ts):
 * each endpoint as a key's agent, and the ACL matrix — no key, a revoked key,
 * an architect, a private channel, someone else's DM, another department,
 * another agent's inbox, bad bodies — each refused with nothing written.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { agent, AGENTS, createOtherDepartment, memberKeyOf, type TestConvex, callMessagingApi, squadWithWriterKey } from "./setup";

/** Every document the API could write, as one string: a refusal must leave it as it was. */
async function written(t: TestConvex): Promise<string> {
  return await t.run(async (ctx) =>
    JSON.stringify(await Promise.all((["channels", "channelMembers", "channelMessages", "inbox", "events"] as const).map((table) => ctx.db.query(table).collect()))),
  );
}

describe("the messaging HTTP API", () => {
  test("an agent creates a channel, posts, reads a thread, DMs a person and works through its inbox", async () => {
    const { t, departmentId, grace, writer, key } = await squadWithWriterKey();

    const made = await callMessagingApi(t, key, "POST", "/channels", { name: "Launch Copy", topic: "words" });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: "launch-copy", project_id: departmentId, created_by: "Writer", topic: "words", visibility: "project" });
    const channelId = made.body.id as Id<"channels">;
    const card = await callMessagingApi(t, key, "GET", `/channels/${channelId}`);
    expect(card.body).toMatchObject({ id: channelId, project_id: departmentId, name: "launch-copy", topic: "words", visibility: "project", archived: false, members: ["Writer"] });
    // By name too, as people write it.
    expect((await callMessagingApi(t, key, "GET", `/channels/${encodeURIComponent("#launch-copy")}`)).body.id).toBe(channelId);

    const posted = await callMessagingApi(t, key, "POST", "/messages", { channel: "#launch-copy", body: "Draft 1 is up", importance: "high", correlation_id: "c-1" });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ body: "Draft 1 is up", from: "Writer", type: "channel", correlation_id: "c-1", context: { project_id: departmentId }, channel_id: channelId });
    const rootId = posted.body.id as Id<"channelMessages">;
    await grace.mutation(api.channelMessages.reply, { channelId, messageId: rootId, body: "Shorter please" });
    const replied = await callMessagingApi(t, key, "POST", "/messages", { reply_to: rootId, body: "Done: 40 words" });
    expect(replied.body).toMatchObject({ type: "thread", thread_id: rootId });

    const history = await callMessagingApi(t, key, "GET", `/channels/${channelId}/messages?limit=10`);
    expect(history.body.messages.map((m) => [m.body, m.importance, m.correlation_id, m.reply_count, m.from])).toEqual([["Draft 1 is up", "high", "c-1", 2, "Writer"]]);
    const thread = await callMessagingApi(t, key, "GET", `/threads/${rootId}/messages`);
    expect(thread.body.messages.map((m) => m.body)).toEqual(["Draft 1 is up", "Shorter please", "Done: 40 words"]);
    expect(thread.body.thread).toMatchObject({ id: rootId, root_message_id: rootId, channel_id: channelId, reply_count: 2 });

    const dm = await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "Which tone do you want?", blocking: true });
    expect(dm.status).toBe(200);
    expect(dm.body).toMatchObject({ participants: ["Writer", "Grace"], message: { body: "Which tone do you want?", type: "dm", blocking: true } });
    const dms = await callMessagingApi(t, key, "GET", `/dms/${dm.body.id}/messages`);
    expect(dms.body.messages.map((m) => [m.body, m.blocking, m.type])).toEqual([["Which tone do you want?", true, "dm"]]);
    expect((await grace.query(api.channels.list, { departmentId })).find((c) => c._id === dm.body.id)).toMatchObject({ kind: "dm", unread: 1 });

    // Grace answers in the DM: with her thread reply, it waits in Writer's inbox until read.
    await grace.mutation(api.channelMessages.post, { channelId: dm.body.id as Id<"channels">, body: "Playful, @Writer" });
    const inbox = await callMessagingApi(t, key, "GET", `/agents/${writer._id}/inbox`);
    expect(inbox.body.messages.map((m) => [m.from, m.body, m.where, m.direct])).toEqual([
      ["Grace", "Playful, @Writer", "a DM", true],
      ["Grace", "Shorter please", "thread in #launch-copy", false],
    ]);
    expect(inbox.body.messages[0]).toMatchObject({ type: "dm", mentions: ["Writer"], context: { project_id: departmentId } });
    expect((await callMessagingApi(t, key, "GET", "/agents/writer/inbox")).body.messages).toHaveLength(2);
    const read = await callMessagingApi(t, key, "POST", `/messages/${inbox.body.messages[0].id}/read`);
    expect(read).toEqual({ status: 200, body: { marked: 1 } });
    expect((await callMessagingApi(t, key, "GET", `/agents/${writer._id}/inbox`)).body.messages.map((m) => m.body)).toEqual(["Shorter please"]);
  });

  test("secrets are redacted before they are stored, and over-long bodies are refused", async () => {
    const { t, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "ops" });
    const posted = await callMessagingApi(t, key, "POST", "/messages", { channel: "ops", body: "deploy with AKIAIOSFODNN7EXAMPLE please" });
    expect(posted.status).toBe(200);
    const [message] = (await callMessagingApi(t, key, "GET", "/channels/ops/messages")).body.messages;
    expect(message.body).not.toContain("AKIAIOSFODNN7EXAMPLE");
    const before = await written(t);
    const tooLong = await callMessagingApi(t, key, "POST", "/messages", { channel: "ops", body: "x".repeat(10_001) });
    expect(tooLong.status).toBe(413);
    expect(tooLong.body.error).toMatch(/10,?000/);
    expect(await written(t)).toBe(before);
  });

  test("the ACL matrix: each refusal names its reason and writes nothing", async () => {
    const { t, departmentId, admin, grace, writer, key } = await squadWithWriterKey();
    const leads = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    const graceDm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Ada")] });
    const other = await createOtherDepartment(t);
    const foreign = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "secret-plans", visibility: "project" });
    const devBot = await agent(t, AGENTS.devBot);
    const { key: devKey, keyId: devKeyId } = await admin.mutation(api.agentApiKeys.create, { agentId: devBot._id });
    await admin.mutation(api.agentApiKeys.revoke, { keyId: devKeyId });

    const cases: Array<[string, string | null, "GET" | "POST", string, unknown, number, RegExp]> = [
      ["no key", null, "POST", "/messages", { channel: "general", body: "hi" }, 401, /Missing API key/],
      ["a malformed key", "mk_nope", "GET", `/channels/${leads}`, undefined, 401, /Unknown API key/],
      ["a revoked key", devKey, "POST", "/channels", { name: "x" }, 401, /revoked/],
      // Given by id, a conversation it may not read is not found: the refusal names nothing it did not know.
      ["a private channel it is not in (read)", key, "GET", `/channels/${leads}/messages`, undefined, 404, /^No conversation [^#]*$/],
      ["a private channel it is not in (post)", key, "POST", "/messages", { channel: leads, body: "hi" }, 404, /^No conversation [^#]*$/],
      ["someone else's DM", key, "GET", `/dms/${graceDm}/messages`, undefined, 404, /^No conversation [^#]*$/],
      ["another department's channel", key, "GET", `/channels/${foreign}`, undefined, 404, /No conversation/],
      ["another department's channel (post)", key, "POST", "/messages", { channel: foreign, body: "hi" }, 404, /No conversation/],
      ["another agent's inbox", key, "GET", `/agents/${devBot._id}/inbox`, undefined, 403, /own inbox/],
      ["a channel read as a DM", key, "GET", `/dms/${foreign}/messages`, undefined, 404, /No conversation/],
      ["an unknown endpoint", key, "GET", `/channels/${leads}/members`, undefined, 404, /No such endpoint/],
      ["a body that is not JSON", key, "POST", "/messages", "{nope", 400, /JSON object/],
      ["neither channel nor reply_to", key, "POST", "/messages", { body: "hi" }, 400, /either "channel"/],
      ["both channel and reply_to", key, "POST", "/messages", { channel: "general", reply_to: "x", body: "hi" }, 400, /either "channel"/],
      ["an unknown importance", key, "POST", "/messages", { channel: "general", body: "hi", importance: "urgent" }, 400, /"importance" must be one of/],
      ["an empty body", key, "POST", "/messages", { channel: "general", body: "  " }, 400, /"body" is required/],
      ["a DM to nobody", key, "POST", "/dms", { to: [], body: "hi" }, 400, /"to" must be a list/],
      ["a DM to a stranger", key, "POST", "/dms", { to: ["Mallory"], body: "hi" }, 404, /Nobody called/],
      ["agents only in a DM", key, "POST", "/dms", { to: ["Jarvis"], body: "psst" }, 400, /Agents do not DM each other/],
      ["a bad limit", key, "GET", `/agents/${writer._id}/inbox?limit=-3`, undefined, 400, /"limit" must be/],
      ["a malformed percent-encoding in the path", key, "GET", "/channels/%E0%A4%A/messages", undefined, 400, /percent-encoding/],
      ["a malformed path with a revoked key: the key is named first", devKey, "GET", "/channels/%zz", undefined, 401, /revoked/],
      ["a bad body with a revoked key: the key is named first", devKey, "POST", "/messages", { body: 5 }, 401, /revoked/],
    ];
    const failures: string[] = [];
    for (const [name, k, method, path, body, status, message] of cases) {
      const before = await written(t);
      const answer = await callMessagingApi(t, k, method, path, body);
      if (answer.status !== status || !message.test(String(answer.body.error))) failures.push(`${name}: ${answer.status} ${answer.body.error}`);
      if ((await written(t)) !== before) failures.push(`${name}: wrote while refusing`);
    }
    expect(failures).toEqual([]);

    // An agent turned architect loses the API at once.
    await t.run(async (ctx) => ctx.db.patch("agents", writer._id, { kind: "architect" }));
    const architect = await callMessagingApi(t, key, "GET", `/agents/${writer._id}/inbox`);
    expect(architect.status).toBe(403);
  });

  test("the post rate limit: a burst past the bucket gets 429 with the wait, and nothing is stored", async () => {
    const { t, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "flood" });
    const statuses: number[] = [];
    let refusal = "";
    for (let i = 0; i < 61; i++) {
      const answer = await callMessagingApi(t, key, "POST", "/messages", { channel: "flood", body: `message ${i}` });
      statuses.push(answer.status);
      if (answer.status !== 200) refusal = answer.body.error;
    }
    const accepted = statuses.filter((s) => s === 200).length;
    // The bucket holds 20 and refills at 60 a minute: well under 61 within the burst.
    expect(accepted).toBeGreaterThanOrEqual(20);
    expect(accepted).toBeLessThan(61);
    expect(statuses.at(-1)).toBe(429);
    expect(refusal).toMatch(/Too many messages: try again in \d+ s/);
    const stored = (await callMessagingApi(t, key, "GET", "/channels/flood/messages?limit=50")).body.messages.length;
    expect(stored).toBe(Math.min(accepted, 50));
  });
});
