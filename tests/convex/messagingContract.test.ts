/**
 * The messaging HTTP API against the spec (messaging-project-graph.md):
 * the JSON contracts of Message, Channel, Thread, DM and Project as one
 * snapshot of their shapes; the /projects and /threads routes; key scopes
 * on every route (a key without the route's scope refused 403, writing
 * nothing); channel membership and topic over HTTP and the agent tool with
 * their events and ACL; and a retried send with the same client message id
 * posting once.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { API_SCOPES, type ApiScope } from "../../convex/lib/apiKeys";
import { LIMITS } from "../../convex/lib/limits";
import { REDACTED, REDACTION_NOTE } from "../../convex/lib/secrets/scanner";
import { TOOL_REGISTRY } from "../../convex/tools/registry";
import { agent, AGENTS, columnTitles, createOtherDepartment, createTask, expectError, holdScheduledFunctions, insertRun, memberKeyOf, pausedOnExternalCall, type TestConvex, callMessagingApi, squadWithWriterKey } from "./setup";

/** Every document the API could write, as one string: a refusal must leave it as it was. */
async function written(t: TestConvex): Promise<string> {
  return await t.run(async (ctx) =>
    JSON.stringify(
      await Promise.all((["channels", "channelMembers", "channelMessages", "inbox", "events", "departments", "members", "chat", "toolEffects", "runs", "runEvents", "tasks", "activities"] as const).map((table) => ctx.db.query(table).collect())),
    ),
  );
}

/** A JSON value's shape: each leaf replaced by its type, keys sorted; a list by its first item's shape. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value === null) return "null";
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  }
  return typeof value;
}

describe("the messaging API's contracts", () => {
  test("Message, Channel, Thread, DM and Project answer in the spec's snake_case shapes, with context.project_id", async () => {
    const { t, departmentId, admin, key } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId, { title: "Launch copy" });
    const channel = await callMessagingApi(t, key, "POST", "/channels", { name: "contract", topic: "shapes" });
    const message = await callMessagingApi(t, key, "POST", "/messages", { channel: "contract", body: "See @Grace", mentions: ["Dev Bot"], artifacts: [{ task_id: taskId }], correlation_id: "corr-1", client_message_id: "m-1" });
    // A message from inside Maestro carries its task: the same shape with task_id and an artifact.
    const runId = await insertRun(t, AGENTS.writer, taskId);
    await t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "contract", body: "Linked", artifacts: [{ taskId }] });
    const thread = await callMessagingApi(t, key, "POST", "/threads", { root_message_id: message.body.id });
    const dm = await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "hello" });
    const project = await callMessagingApi(t, key, "GET", "/projects/me");
    const history = await callMessagingApi(t, key, "GET", "/channels/contract/messages");
    const agentBody = await callMessagingApi(t, key, "GET", "/agents/me");

    const messageShape = {
      blocking: "boolean",
      body: "string",
      channel_id: "string",
      context: { project_id: "string" },
      correlation_id: "string",
      created_at: "number",
      artifacts: [{ kind: "string", task_id: "string" }],
      from: "string",
      id: "string",
      importance: "string",
      mentions: ["string"],
      reply_count: "number",
      type: "string",
    };
    const { correlation_id: _correlation, ...uncorrelated } = messageShape;
    expect({
      message: shapeOf(message.body),
      linked: shapeOf(history.body.messages[1]),
      channel: shapeOf(channel.body),
      thread: shapeOf(thread.body),
      dm: shapeOf(dm.body),
      project: shapeOf(project.body),
      agent: shapeOf(agentBody.body),
    }).toEqual({
      message: messageShape,
      linked: { ...uncorrelated, mentions: [], context: { project_id: "string", task_id: "string" }, artifacts: [{ kind: "string", task_id: "string" }] },
      channel: { archived: "boolean", created_at: "number", created_by: "string", id: "string", members: ["string"], name: "string", project_id: "string", topic: "string", visibility: "string" },
      thread: { channel_id: "string", created_at: "number", created_by: "string", id: "string", reply_count: "number", root_message_id: "string" },
      dm: { created_at: "number", id: "string", last_message_at: "number", message: { ...uncorrelated, mentions: [], artifacts: [], to: ["string"] }, participants: ["string"] },
      // The seeded department has admins but no owner: `owner` is null then (a string for a created project, below).
      project: { created_at: "number", id: "string", name: "string", owner: "null", schema_version: "number", slug: "string" },
      // The spec's Agent {name, endpoint_url, capabilities, owner, project_id}; a seeded agent in a department with no owner has none.
      agent: { capabilities: ["string"], endpoint_url: "string", id: "string", name: "string", owner: "null", project_id: "string", role: "string" },
    });
    // No Convex field names leak anywhere.
    const everything = JSON.stringify([message.body, history.body, channel.body, thread.body, dm.body, project.body, agentBody.body]);
    expect(everything).not.toMatch(/"_id"|"_creationTime"|"correlationId"|"taskId"|"replyCount"|"departmentId"|"storageId"/);
    expect(message.body.context.project_id).toBe(departmentId);
    expect([message.body.mentions, message.body.artifacts]).toEqual([["Grace", "Dev Bot"], [{ kind: "task", task_id: taskId }]]);
    expect(history.body.messages[1].context).toEqual({ project_id: departmentId, task_id: taskId });
    expect(project.body).toMatchObject({ id: departmentId, schema_version: 1 });
  });

  test("POST /messages takes the spec's mentions[] (the department's agents and people) and artifacts[] (tasks, posted files) like post_message; a bad one is refused, writing nothing", async () => {
    const { t, departmentId, admin, key } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId, { title: "Launch copy" });
    await callMessagingApi(t, key, "POST", "/channels", { name: "handoff" });
    const posted = await callMessagingApi(t, key, "POST", "/messages", {
      channel: "handoff",
      body: "Draft ready, see @Grace",
      mentions: ["grace", "@Dev Bot", AGENTS.jarvis],
      artifacts: [{ task_id: taskId }],
    });
    expect(posted.status).toBe(200);
    // The body's @mentions first, then those named only in the list, each once, by their names.
    expect(posted.body.mentions).toEqual(["Grace", "Dev Bot", "Jarvis"]);
    expect(posted.body.artifacts).toEqual([{ kind: "task", task_id: taskId }]);
    // A named mention is a direct one, as an @mention is: it reaches the person's and the agents' inboxes as addressed to them.
    const inbox = await t.run(async (ctx) => (await ctx.db.query("inbox").collect()).filter((row) => row.messageId === posted.body.id));
    expect(Object.fromEntries(inbox.map((row) => [row.recipientKey, row.direct]))).toMatchObject({ [memberKeyOf(t, "Grace")]: true, [AGENTS.devBot]: true, [AGENTS.jarvis]: true });
    // A reply and a new thread take them too; an artifact as a Message answers it is taken back as it is.
    const reply = await callMessagingApi(t, key, "POST", "/messages", { reply_to: posted.body.id, body: "Also this", mentions: ["Ada"], artifacts: posted.body.artifacts });
    expect(reply.body).toMatchObject({ type: "thread", mentions: ["Ada"], artifacts: [{ kind: "task", task_id: taskId }] });

    const other = await createOtherDepartment(t);
    const foreignTask = await createTask(other.member, other.departmentId, { title: "Theirs" });
    const before = await written(t);
    const cases: Array<[string, unknown, number, RegExp]> = [
      ["a name nobody answers to", { mentions: ["Nobody"] }, 400, /Cannot mention "Nobody"/],
      ["another department's person", { mentions: ["Mallory"] }, 400, /Cannot mention "Mallory"/],
      ["one unknown among known ones", { mentions: ["Grace", "Ghost"] }, 400, /Cannot mention "Ghost"/],
      ["mentions that are not a list", { mentions: "Grace" }, 400, /"mentions" must be a list/],
      ["too many mentions", { mentions: Array.from({ length: 21 }, () => "Grace") }, 400, /"mentions" must be a list of at most 20/],
      ["another department's task", { artifacts: [{ task_id: foreignTask }] }, 404, /not in this department/],
      ["a made-up task id", { artifacts: [{ task_id: "nope" }] }, 404, /No task nope/],
      ["a made-up file id", { artifacts: [{ file_id: "nope" }] }, 404, /No file nope/],
      ["a link, which post_message does not attach", { artifacts: [{ kind: "link", url: "https://example.com" }] }, 400, /"artifacts" must be a list/],
      ["a task and a file in one", { artifacts: [{ task_id: taskId, file_id: "x" }] }, 400, /\{"task_id": "…"\} or \{"file_id": "…"\}/],
      ["a kind that does not match", { artifacts: [{ kind: "file", task_id: taskId }] }, 400, /"artifacts"/],
      ["artifacts that are not a list", { artifacts: { task_id: taskId } }, 400, /"artifacts"/],
      ["too many artifacts", { artifacts: Array.from({ length: 11 }, () => ({ task_id: taskId })) }, 400, /at most 10/],
    ];
    const failures: string[] = [];
    for (const [name, extra, status, message] of cases) {
      const answer = await callMessagingApi(t, key, "POST", "/messages", { channel: "handoff", body: "Refused", ...(extra as object) });
      if (answer.status !== status || !message.test(String(answer.body.error))) failures.push(`${name}: ${answer.status} ${answer.body.error}`);
    }
    expect(failures).toEqual([]);
    expect(await written(t)).toBe(before);
  });

  test("projects: the key's own (by id, slug or me), its channels, and a new one owned by the key's maker", async () => {
    const { t, departmentId, admin, grace, key } = await squadWithWriterKey();
    const slug = (await callMessagingApi(t, key, "GET", "/projects/me")).body.slug;
    expect((await callMessagingApi(t, key, "GET", `/projects/${departmentId}`)).body.id).toBe(departmentId);
    expect((await callMessagingApi(t, key, "GET", `/projects/${slug}`)).body.id).toBe(departmentId);
    const other = await createOtherDepartment(t);
    const before = await written(t);
    expect(await callMessagingApi(t, key, "GET", `/projects/${other.departmentId}`)).toMatchObject({ status: 403, body: { error: expect.stringMatching(/own department/) } });
    expect((await callMessagingApi(t, key, "GET", `/projects/${other.departmentId}/channels`)).status).toBe(403);

    // Channels: a project channel, the key's own private one, and not a private one it is not in.
    const hidden = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    await callMessagingApi(t, key, "POST", "/channels", { name: "writers", visibility: "private" });
    const listed = await callMessagingApi(t, key, "GET", "/projects/me/channels");
    const names = listed.body.channels.map((c) => c.name);
    expect(names).toContain("writers");
    expect(names).not.toContain("leads");
    expect(listed.body.channels.every((c) => c.project_id === departmentId && c.id !== hidden)).toBe(true);

    const made = await callMessagingApi(t, key, "POST", "/projects", { name: "Outreach" });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: "Outreach", slug: "outreach", owner: "Ada" });
    expect((await admin.query(api.departments.listMine, {})).find((d) => d._id === made.body.id)).toMatchObject({ role: "owner" });
    expect((await grace.query(api.departments.listMine, {})).map((d) => d._id)).not.toContain(made.body.id);
    expect(before).not.toBe(await written(t));

    // The key's maker is no longer an admin: the key creates nothing.
    await t.run(async (ctx) => {
      const row = (await ctx.db.query("members").collect()).find((m) => m.departmentId === departmentId && m.name === "Ada")!;
      await ctx.db.patch("members", row._id, { role: "member" });
    });
    const unchanged = await written(t);
    expect(await callMessagingApi(t, key, "POST", "/projects", { name: "Second" })).toMatchObject({ status: 403, body: { error: expect.stringMatching(/no longer an admin/) } });
    expect(await written(t)).toBe(unchanged);
  });

  test("agents: each an Agent with its endpoint_url (its inbox on the API's origin) and owner (who added it, else the project's owner)", async () => {
    const { t, departmentId, admin, grace, writer, key } = await squadWithWriterKey();
    const pixelId = await admin.mutation(api.agents.create, { departmentId, name: "Pixel", role: "Designer", kind: "specialist", systemPrompt: "Design.", isSquadLead: false, allowedTools: ["post_message"] });
    const listed = await callMessagingApi(t, key, "GET", "/projects/me/agents");
    expect(listed.status).toBe(200);
    const byName = new Map(listed.body.agents.map((a) => [a.name, a]));
    const pixel = byName.get("Pixel")!;
    expect(pixel).toMatchObject({ id: pixelId, role: "Designer", capabilities: ["post_message"], owner: "Ada", project_id: departmentId });
    // Seeded agents have no creator, and this department no owner yet.
    expect(byName.get("Writer")).toMatchObject({ id: writer._id, owner: null, capabilities: writer.allowedTools });
    // The endpoint is the agent's inbox on the origin the request came to: its own key reads it there.
    const endpoint = new URL(byName.get("Writer")!.endpoint_url);
    expect(endpoint.pathname).toBe(`/agents/${writer._id}/inbox`);
    expect((await callMessagingApi(t, key, "GET", endpoint.pathname)).status).toBe(200);
    expect(new URL(pixel.endpoint_url).origin).toBe(endpoint.origin);

    // One agent by id, name or me; the department's owner stands in for an unknown creator, and a creator who left.
    await t.run(async (ctx) => {
      const row = (await ctx.db.query("members").collect()).find((m) => m.departmentId === departmentId && m.name === "Grace")!;
      await ctx.db.patch("members", row._id, { role: "owner" });
    });
    expect((await callMessagingApi(t, key, "GET", "/agents/me")).body).toMatchObject({ id: writer._id, owner: "Grace" });
    expect((await callMessagingApi(t, key, "GET", "/agents/pixel")).body).toMatchObject({ id: pixelId, owner: "Ada" });
    await t.run(async (ctx) => {
      const row = (await ctx.db.query("members").collect()).find((m) => m.departmentId === departmentId && m.name === "Ada")!;
      await ctx.db.delete("members", row._id);
    });
    expect((await callMessagingApi(t, key, "GET", `/agents/${pixelId}`)).body).toMatchObject({ name: "Pixel", owner: "Grace" });
    expect(grace).toBeDefined();

    const other = await createOtherDepartment(t);
    const theirs = await t.run(async (ctx) => {
      const { _id, _creationTime, ...fields } = (await ctx.db.get("agents", writer._id))!;
      return await ctx.db.insert("agents", { ...fields, departmentId: other.departmentId, sessionKey: "agent:theirs:other", name: "Theirs", nameKey: "theirs" });
    });
    expect(await callMessagingApi(t, key, "GET", `/agents/${theirs}`)).toMatchObject({ status: 404, body: { error: expect.stringMatching(/No agent/) } });
    expect((await callMessagingApi(t, key, "GET", "/agents/nobody")).status).toBe(404);
    expect((await callMessagingApi(t, key, "GET", `/projects/${other.departmentId}/agents`)).status).toBe(403);
    expect((await callMessagingApi(t, key, "GET", "/projects/me/agents")).body.agents.map((a) => a.name)).not.toContain("Theirs");
  });

  test("a project's description: POST /projects takes it (bounded, secrets redacted), admins set and clear it in the app, everyone reads it, the Project carries it", async () => {
    const { t, departmentId, admin, grace, key } = await squadWithWriterKey();
    const aws = "AKIAIOSFODNN7EXAMPLE";
    const made = await callMessagingApi(t, key, "POST", "/projects", { name: "Outreach", description: `  Cold email, key ${aws}  ` });
    expect(made.status).toBe(200);
    expect(made.body.description).toBe(`Cold email, key ${REDACTED}${REDACTION_NOTE}`);
    expect(shapeOf(made.body)).toEqual({ created_at: "number", description: "string", id: "string", name: "string", owner: "string", schema_version: "number", slug: "string" });

    let before = await written(t);
    const tooLong = "x".repeat(LIMITS.departmentDescriptionChars + 1);
    expect(await callMessagingApi(t, key, "POST", "/projects", { name: "Too long", description: tooLong })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/description is 501 characters; the limit is 500/) } });
    expect(await callMessagingApi(t, key, "POST", "/projects", { name: "Not text", description: 7 })).toMatchObject({ status: 400, body: { error: '"description" must be a string.' } });
    expect(await written(t)).toBe(before);

    // In the app: admins set it (the API's Project answers it), everyone in the department reads it, an empty text clears it.
    await admin.mutation(api.departments.updateDescription, { departmentId, description: "  The launch squad.  " });
    expect((await callMessagingApi(t, key, "GET", "/projects/me")).body.description).toBe("The launch squad.");
    expect(await grace.query(api.departments.about, { departmentId })).toEqual({ name: expect.any(String), slug: expect.any(String), description: "The launch squad." });
    const other = await createOtherDepartment(t);
    before = await written(t);
    await expectError(grace.mutation(api.departments.updateDescription, { departmentId, description: "mine" }), "FORBIDDEN");
    await expectError(admin.mutation(api.departments.updateDescription, { departmentId, description: tooLong }), "INVALID_ARGUMENT", /limit is 500/);
    await expectError(other.member.mutation(api.departments.updateDescription, { departmentId, description: "theirs" }), "FORBIDDEN");
    await expectError(other.member.query(api.departments.about, { departmentId }), "FORBIDDEN");
    expect(await written(t)).toBe(before);
    await admin.mutation(api.departments.updateDescription, { departmentId, description: `see ${aws}` });
    expect((await admin.query(api.departments.about, { departmentId })).description).toBe(`see ${REDACTED}${REDACTION_NOTE}`);
    await admin.mutation(api.departments.updateDescription, { departmentId, description: "   " });
    expect(await admin.query(api.departments.about, { departmentId })).not.toHaveProperty("description");
    expect((await callMessagingApi(t, key, "GET", "/projects/me")).body).not.toHaveProperty("description");
    // A person creating a department in the app may give one too.
    const appMade = await admin.mutation(api.departments.create, { name: "Design", description: "Pixels." });
    expect((await admin.query(api.departments.about, { departmentId: appMade })).description).toBe("Pixels.");
  });

  test("threads: made on a channel message or with a new first message, read by id; replies and DMs start none", async () => {
    const { t, grace, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "threads" });
    const made = await callMessagingApi(t, key, "POST", "/threads", { channel: "threads", body: "Kick-off" });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ created_by: "Writer", reply_count: 0 });
    expect(made.body.root_message_id).toBe(made.body.id);
    await grace.mutation(api.channelMessages.reply, { channelId: made.body.channel_id as Id<"channels">, messageId: made.body.id as Id<"channelMessages">, body: "On it" });
    const read = await callMessagingApi(t, key, "GET", `/threads/${made.body.id}`);
    expect(read.body).toMatchObject({ id: made.body.id, reply_count: 1 });
    const reply = (await callMessagingApi(t, key, "GET", `/threads/${made.body.id}/messages`)).body.messages[1];
    expect(reply).toMatchObject({ body: "On it", type: "thread", thread_id: made.body.id });

    const before = await written(t);
    expect(await callMessagingApi(t, key, "POST", "/threads", { root_message_id: reply.id })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/is a reply/) } });
    expect((await callMessagingApi(t, key, "GET", `/threads/${reply.id}`)).status).toBe(404);
    const dm = await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "psst" });
    const afterDm = await written(t);
    expect((await callMessagingApi(t, key, "POST", "/threads", { root_message_id: dm.body.message.id })).status).toBe(400);
    expect(await callMessagingApi(t, key, "POST", "/threads", { body: "x" })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/root_message_id/) } });
    expect(await written(t)).toBe(afterDm);
    expect(before).not.toBe(afterDm);
  });
});

describe("tasks over HTTP", () => {
  // The assigned agent's run is scheduled, not run: this is about the card.
  holdScheduledFunctions();

  test("tasks: POST /tasks puts a card on the board as a person's would be (cleaned, secret-scanned, assigned by name); a bad one is refused, writing nothing", async () => {
    const { t, departmentId, admin, writer, key } = await squadWithWriterKey();
    const made = await callMessagingApi(t, key, "POST", "/tasks", { title: "  Draft the FAQ ", description: "For the launch", priority: "high", tags: ["launch"], assignees: ["@writer"] });
    expect(made).toEqual({
      status: 200,
      body: { id: expect.any(String), title: "Draft the FAQ", description: "For the launch", status: "assigned", priority: "high", tags: ["launch"], assignees: ["Writer"], created_by: "Writer", created_at: expect.any(Number), project_id: departmentId },
    });
    expect(await columnTitles(admin, departmentId, "assigned")).toContain("Draft the FAQ");
    expect((await callMessagingApi(t, key, "POST", "/tasks", { title: "Plain" })).body).toMatchObject({ status: "inbox", priority: "medium", tags: [], assignees: [] });
    const aws = "AKIAIOSFODNN7EXAMPLE";
    expect((await callMessagingApi(t, key, "POST", "/tasks", { title: "Rotate keys", description: `old key ${aws}` })).body.description).toBe(`old key ${REDACTED}${REDACTION_NOTE}`);

    const other = await createOtherDepartment(t);
    await t.run(async (ctx) => {
      const { _id, _creationTime, ...fields } = writer;
      await ctx.db.insert("agents", { ...fields, departmentId: other.departmentId, sessionKey: "agent:theirs:other", name: "Theirs", nameKey: "theirs" });
    });
    const before = await written(t);
    for (const [body, status, error] of [
      [{}, 400, '"title" is required'],
      [{ title: "   " }, 400, '"title" is required'],
      [{ title: "x".repeat(LIMITS.taskTitleChars + 1) }, 400, `the limit is ${LIMITS.taskTitleChars}`],
      [{ title: "Nope", assignees: ["Nobody"] }, 400, 'Unknown assignee "Nobody"'],
      [{ title: "Nope", assignees: ["Theirs"] }, 400, 'Unknown assignee "Theirs"'],
      [{ title: "Nope", assignees: "Writer" }, 400, '"assignees" must be a list'],
      [{ title: "Nope", priority: "urgent" }, 400, '"priority" must be one of'],
      [{ title: "Nope", tags: [1] }, 400, '"tags" must be a list of at most 20 tags'],
      [{ title: 7 }, 400, '"title" must be a string'],
    ] as const) {
      expect(await callMessagingApi(t, key, "POST", "/tasks", body), JSON.stringify(body)).toMatchObject({ status, body: { error: expect.stringContaining(error) } });
    }
    expect((await callMessagingApi(t, null, "POST", "/tasks", { title: "Nope" })).status).toBe(401);
    expect((await callMessagingApi(t, "mk_nope", "POST", "/tasks", { title: "Nope" })).status).toBe(401);
    expect(await written(t)).toBe(before);
  });
});

describe("API key scopes", () => {
  test("a key is made with the scopes chosen (all when none are named), lists them, and refuses an empty choice", async () => {
    const { t, admin, writer } = await squadWithWriterKey();
    const made = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["messages:write", "messages:read", "messages:read"] });
    expect(made.scopes).toEqual(["messages:read", "messages:write"]);
    const listed = await admin.query(api.agentApiKeys.list, { agentId: writer._id });
    expect(listed.find((k) => k._id === made.keyId)?.scopes).toEqual(["messages:read", "messages:write"]);
    expect(listed.find((k) => k._id !== made.keyId)?.scopes).toEqual([...API_SCOPES]);
    await expectError(admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: [] }), "INVALID_ARGUMENT", /at least one scope/);
    // A key from before scopes (no field) holds them all.
    const legacy = await t.run(async (ctx) => (await ctx.db.get("agentApiKeys", made.keyId))!);
    expect(legacy.scopes).toEqual(["messages:read", "messages:write"]);
  });

  test("a read-only key chosen in the app is refused every write; a bad scope name, a member or another department makes no key", async () => {
    const { t, admin, grace, writer, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "ro" });
    const reader = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["messages:read"] });
    const before = await written(t);
    for (const [path, body] of [
      ["/messages", { channel: "ro", body: "nope" }],
      ["/threads", { channel: "ro", body: "nope" }],
      ["/dms", { to: ["Grace"], body: "nope" }],
      ["/channels", { name: "nope" }],
      ["/mcp/chat.post", { text: "nope" }],
    ] as const) {
      expect((await callMessagingApi(t, reader.key, "POST", path, body)).status, path).toBe(403);
    }
    expect(await written(t)).toBe(before);
    expect((await callMessagingApi(t, reader.key, "GET", "/channels/ro/messages")).status).toBe(200);

    const keysBefore = await t.run(async (ctx) => (await ctx.db.query("agentApiKeys").collect()).length);
    // A scope name the server does not know is refused by the argument validator.
    await expect(admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["tasks:delete" as ApiScope] })).rejects.toThrow(/tasks:delete|Validator/);
    await expect(admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["messages:read", "*" as ApiScope] })).rejects.toThrow();
    await expectError(grace.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["messages:read"] }), "FORBIDDEN");
    const { member: mallory } = await createOtherDepartment(t);
    await expectError(mallory.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: ["messages:read"] }), "FORBIDDEN");
    expect(await t.run(async (ctx) => (await ctx.db.query("agentApiKeys").collect()).length)).toBe(keysBefore);
  });

  test("every route refuses a key without its scope with a 403 naming it, and writes nothing", async () => {
    const { t, departmentId, admin, grace, writer, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "scoped" });
    const root = (await callMessagingApi(t, key, "POST", "/messages", { channel: "scoped", body: "root" })).body.id;
    const dm = (await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "hi" })).body.id;
    await grace.mutation(api.channelMessages.post, { channelId: dm as Id<"channels">, body: "yes @Writer" });
    const waiting = await pausedOnExternalCall(t, await createTask(admin, departmentId, { title: "Pricing page" }));
    const routes: Array<[ApiScope, "GET" | "POST", string, unknown]> = [
      ["projects:write", "POST", "/projects", { name: "Nope" }],
      ["projects:read", "GET", "/projects/me", undefined],
      ["channels:read", "GET", "/projects/me/channels", undefined],
      ["projects:read", "GET", "/projects/me/agents", undefined],
      ["projects:read", "GET", "/agents/me", undefined],
      ["channels:manage", "POST", "/channels", { name: "nope" }],
      ["channels:read", "GET", "/channels/scoped", undefined],
      ["channels:manage", "POST", "/channels/scoped/members", { add: ["Grace"] }],
      ["channels:manage", "POST", "/channels/scoped/topic", { topic: "nope" }],
      ["messages:read", "GET", "/channels/scoped/messages", undefined],
      ["messages:write", "POST", "/messages", { channel: "scoped", body: "nope" }],
      ["messages:read", "POST", `/messages/${root}/read`, {}],
      ["messages:write", "POST", "/threads", { channel: "scoped", body: "nope" }],
      ["messages:read", "GET", `/threads/${root}`, undefined],
      ["messages:read", "GET", `/threads/${root}/messages`, undefined],
      ["messages:write", "POST", "/dms", { to: ["Grace"], body: "nope" }],
      ["messages:read", "GET", `/dms/${dm}/messages`, undefined],
      ["messages:read", "GET", "/agents/me/inbox", undefined],
      ["chat:write", "POST", "/mcp/chat.post", { text: "nope" }],
      ["chat:read", "POST", "/mcp/chat.getNew", {}],
      ["tasks:write", "POST", "/tasks", { title: "Scoped task" }],
      ["tools:run", "GET", "/tool-calls/waiting", undefined],
      ["tools:run", "POST", `/runs/${waiting.runId}/tool-output`, { tool: "web_fetch", tool_call_id: waiting.callId, output: "Pricing: $10 a seat." }],
    ];
    const failures: string[] = [];
    for (const [scope, method, path, body] of routes) {
      const without = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: API_SCOPES.filter((s) => s !== scope) });
      const only = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id, scopes: [scope] });
      const before = await written(t);
      const refused = await callMessagingApi(t, without.key, method, path, body);
      if (refused.status !== 403 || !refused.body.error.includes(`"${scope}" scope`)) failures.push(`${method} ${path} without ${scope}: ${refused.status} ${refused.body.error}`);
      if ((await written(t)) !== before) failures.push(`${method} ${path}: wrote while refusing`);
      // The scope alone is enough for the route (the project creation aside, it changes nothing lasting here).
      if (path !== "/projects") {
        const allowed = await callMessagingApi(t, only.key, method, path, body);
        if (allowed.status !== 200) failures.push(`${method} ${path} with only ${scope}: ${allowed.status} ${allowed.body.error}`);
      }
      await admin.mutation(api.agentApiKeys.revoke, { keyId: without.keyId });
      await admin.mutation(api.agentApiKeys.revoke, { keyId: only.keyId });
    }
    expect(failures).toEqual([]);
    // A bad key is still named before a missing scope.
    expect((await callMessagingApi(t, "mk_nope", "POST", "/messages", { channel: "scoped", body: "x" })).status).toBe(401);
    expect(departmentId).toBeDefined();
  });
});

describe("channel membership and topic for agents", () => {
  test("over HTTP: the channel's creator adds, sets the topic and removes, each a channels.updated event; the added person reads it", async () => {
    const { t, departmentId, grace, key } = await squadWithWriterKey();
    const made = await callMessagingApi(t, key, "POST", "/channels", { name: "inner", visibility: "private" });
    const channelId = made.body.id as Id<"channels">;
    await expectError(grace.query(api.channels.get, { channelId }), "FORBIDDEN");

    const added = await callMessagingApi(t, key, "POST", "/channels/inner/members", { add: ["Grace", "Dev Bot"] });
    expect(added.status).toBe(200);
    expect(added.body.members.toSorted()).toEqual(["Dev Bot", "Grace", "Writer"]);
    expect((await grace.query(api.channels.get, { channelId })).name).toBe("inner");
    const topic = await callMessagingApi(t, key, "POST", `/channels/${channelId}/topic`, { topic: "the inner circle" });
    expect(topic.body.topic).toBe("the inner circle");
    const removed = await callMessagingApi(t, key, "POST", "/channels/inner/members", { remove: ["Dev Bot"] });
    expect(removed.body.members.toSorted()).toEqual(["Grace", "Writer"]);
    // Grace is the channel's last person: an agent never leaves a channel to agents alone.
    const last = await callMessagingApi(t, key, "POST", "/channels/inner/members", { remove: ["Grace"] });
    expect(last).toMatchObject({ status: 403, body: { error: "Grace is the last person in #inner: an agent cannot remove them." } });
    expect((await grace.query(api.channels.get, { channelId })).name).toBe("inner");

    const events = await t.run(async (ctx) => (await ctx.db.query("events").withIndex("by_department", (q) => q.eq("departmentId", departmentId)).collect()).filter((e) => e.channelId === channelId && e.type === "channels.updated"));
    expect(events.map((e) => [e.actor.kind === "agent" ? e.actor.name : e.actor.kind, e.data])).toEqual([
      ["Writer", { added: "Grace" }],
      ["Writer", { added: "Dev Bot" }],
      ["Writer", { topic: "the inner circle" }],
      ["Writer", { removed: "Dev Bot" }],
    ]);
  });

  test("the ACL: another agent, a people's channel, a DM, a stranger and an empty change are refused, writing nothing; the squad lead may not either", async () => {
    const { t, departmentId, admin, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "writers-room" });
    await admin.mutation(api.channels.create, { departmentId, name: "people", visibility: "project" });
    const dm = (await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "hi" })).body.id;
    const devBot = await agent(t, AGENTS.devBot);
    const devKey = (await admin.mutation(api.agentApiKeys.create, { agentId: devBot._id })).key;
    const jarvis = await agent(t, AGENTS.jarvis);
    await t.run(async (ctx) => ctx.db.patch("agents", jarvis._id, { isSquadLead: true }));
    const leadKey = (await admin.mutation(api.agentApiKeys.create, { agentId: jarvis._id })).key;
    const other = await createOtherDepartment(t);
    const foreign = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "theirs", visibility: "project" });

    const cases: Array<[string, string, string, unknown, number, RegExp]> = [
      ["an agent that did not create it", devKey, "/channels/writers-room/members", { add: ["Grace"] }, 403, /creator and admins/],
      ["a channel people made", key, "/channels/people/topic", { topic: "mine now" }, 403, /creator/],
      ["a DM", key, `/channels/${dm}/members`, { add: ["Dev Bot"] }, 400, /A DM has no settings/],
      ["a stranger", key, "/channels/writers-room/members", { add: ["Mallory"] }, 404, /Nobody called/],
      ["someone not in it", key, "/channels/writers-room/members", { remove: ["Grace"] }, 404, /Not a member/],
      ["nothing to change", key, "/channels/writers-room/members", {}, 400, /add or remove/],
      ["another department's channel", key, `/channels/${foreign}/members`, { add: ["Grace"] }, 404, /No conversation/],
      ["names that are not a list", key, "/channels/writers-room/members", { add: "Grace" }, 400, /list of at most 20/],
      ["an unknown action", key, "/channels/writers-room/archive", {}, 404, /No such endpoint/],
    ];
    const failures: string[] = [];
    for (const [name, k, path, body, status, message] of cases) {
      const before = await written(t);
      const answer = await callMessagingApi(t, k, "POST", path, body);
      if (answer.status !== status || !message.test(String(answer.body.error))) failures.push(`${name}: ${answer.status} ${answer.body.error}`);
      if ((await written(t)) !== before) failures.push(`${name}: wrote while refusing`);
    }
    expect(failures).toEqual([]);
    // An agent's reach follows its work: the squad lead manages only channels it created.
    expect(await callMessagingApi(t, leadKey, "POST", "/channels/people/topic", { topic: "set by the lead" })).toMatchObject({ status: 403, body: { error: "Only #people's creator and admins can change it." } });
  });

  test("the channel_manage tool: a running agent adds a person to its private channel and sets the topic", async () => {
    const { t, departmentId, admin, grace } = await squadWithWriterKey();
    expect(TOOL_REGISTRY.map((entry) => entry.name)).toContain("channel_manage");
    const taskId = await createTask(admin, departmentId);
    const runId = await insertRun(t, AGENTS.writer, taskId);
    const { channelId } = await t.mutation(internal.tools.messaging.createChannelTool, { runId, name: "war-room", visibility: "private" });
    const result = await t.mutation(internal.tools.messaging.manageChannelTool, { runId, key: "k-1", channel: "#war-room", add: ["Grace"], topic: "launch day" });
    expect({ ...result, members: result.members.toSorted() }).toEqual({ members: ["Grace", "Writer"], topic: "launch day" });
    // The same call again (a retried run) changes nothing more.
    expect(await t.mutation(internal.tools.messaging.manageChannelTool, { runId, key: "k-1", channel: "#war-room", add: ["Grace"], topic: "launch day" })).toEqual(result);
    expect((await grace.query(api.channels.get, { channelId })).topic).toBe("launch day");
    expect(memberKeyOf(t, "Grace")).toMatch(/^member:/);
  });
});

describe("client message ids", () => {
  test("a retried send with the same client_message_id posts one message; another agent's same id is its own", async () => {
    const { t, admin, key } = await squadWithWriterKey();
    await callMessagingApi(t, key, "POST", "/channels", { name: "retries" });
    const first = await callMessagingApi(t, key, "POST", "/messages", { channel: "retries", body: "once", client_message_id: "c-42" });
    const again = await callMessagingApi(t, key, "POST", "/messages", { channel: "retries", body: "once", client_message_id: "c-42" });
    expect(again.body.id).toBe(first.body.id);
    const dm1 = await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "dm once", client_message_id: "d-1" });
    const dm2 = await callMessagingApi(t, key, "POST", "/dms", { to: ["Grace"], body: "dm once", client_message_id: "d-1" });
    expect(dm2.body.message.id).toBe(dm1.body.message.id);
    const devBot = await agent(t, AGENTS.devBot);
    const devKey = (await admin.mutation(api.agentApiKeys.create, { agentId: devBot._id })).key;
    const theirs = await callMessagingApi(t, devKey, "POST", "/messages", { channel: "retries", body: "once", client_message_id: "c-42" });
    expect(theirs.body.id).not.toBe(first.body.id);
    expect((await callMessagingApi(t, key, "GET", "/channels/retries/messages")).body.messages.map((m) => m.from)).toEqual(["Writer", "Dev Bot"]);
    expect((await callMessagingApi(t, key, "POST", "/messages", { channel: "retries", body: "x", client_message_id: "x".repeat(129) })).status).toBe(400);
  });

  test("the app's sends (task thread, channel, thread reply, #maestro) with the same clientMessageId post once; a new id posts again", async () => {
    const { t, departmentId, admin, grace } = await squadWithWriterKey();
    const taskId = await createTask(admin, departmentId);
    const first = await admin.mutation(api.messages.create, { taskId, content: "On it", clientMessageId: "a-1" });
    expect(await admin.mutation(api.messages.create, { taskId, content: "On it", clientMessageId: "a-1" })).toBe(first);
    const channelId = await admin.mutation(api.channels.create, { departmentId, name: "app-retries", visibility: "project" });
    const posted = await admin.mutation(api.channelMessages.post, { channelId, body: "root", clientMessageId: "a-2" });
    expect(await admin.mutation(api.channelMessages.post, { channelId, body: "root", clientMessageId: "a-2" })).toBe(posted);
    const reply = await admin.mutation(api.channelMessages.reply, { channelId, messageId: posted, body: "reply", clientMessageId: "a-3" });
    expect(await admin.mutation(api.channelMessages.reply, { channelId, messageId: posted, body: "reply", clientMessageId: "a-3" })).toBe(reply);
    const chat = await admin.mutation(api.chat.postAsHuman, { departmentId, text: "status?", clientMessageId: "a-4" });
    expect(await admin.mutation(api.chat.postAsHuman, { departmentId, text: "status?", clientMessageId: "a-4" })).toEqual(chat);
    // Another person's equal id is their own message; no id at all is a new message each time.
    expect(await grace.mutation(api.channelMessages.post, { channelId, body: "root", clientMessageId: "a-2" })).not.toBe(posted);
    await admin.mutation(api.channelMessages.post, { channelId, body: "no id" });
    await admin.mutation(api.channelMessages.post, { channelId, body: "no id" });
    const stored = await t.run(async (ctx) => ({
      thread: (await ctx.db.query("messages").collect()).filter((m) => m.taskId === taskId && m.content === "On it").length,
      channel: (await ctx.db.query("channelMessages").collect()).filter((m) => m.channelId === channelId).map((m) => m.body),
      chat: (await ctx.db.query("chat").collect()).filter((m) => m.text === "status?").length,
    }));
    expect(stored).toEqual({ thread: 1, channel: ["root", "reply", "root", "no id", "no id"], chat: 1 });
    await expectError(admin.mutation(api.channelMessages.post, { channelId, body: "x", clientMessageId: "" }), "INVALID_ARGUMENT", /client message id/);
  });
});
