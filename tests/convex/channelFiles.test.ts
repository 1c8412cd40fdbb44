import { afterEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { SWEEP_BATCH } from "../../convex/records/channelFiles";
import crons from "../../convex/crons";
import { cleanFileName, FILE_LIMITS, fileRefusal, formatBytes } from "../../convex/lib/files";
import { AGENTS, blobExists, createTask, demoSquad, expectError, postUpload, stored, uploadThrough, type Actor, type TestConvex } from "./setup";

/** Grace, Vera (a viewer), another department, and a #general project channel. */
async function squad() {
  const base = await demoSquad({ grace: true, vera: true, other: true });
  return { ...base, general: await base.admin.mutation(api.channels.create, { departmentId: base.departmentId, name: "general", visibility: "project" }) };
}

/** A file uploaded as the app does: `who` asks for an upload URL for `channelId` and POSTs the file to it. */
async function uploaded(t: TestConvex, who: Actor, channelId: Id<"channels">, content: string | Uint8Array, contentType: string): Promise<Id<"_storage">> {
  return await uploadThrough(t, await who.mutation(api.channelMessages.generateUploadUrl, { channelId }), content, contentType);
}

async function files(t: TestConvex): Promise<Array<Doc<"channelFiles">>> {
  return await t.run(async (ctx) => await ctx.db.query("channelFiles").collect());
}

describe("file rules", () => {
  test("size limit, content-type allowlist and names", () => {
    expect(fileRefusal({ size: 10, contentType: "image/png" })).toBeNull();
    expect(fileRefusal({ size: 10, contentType: "Text/Markdown; charset=utf-8" })).toBeNull();
    expect(fileRefusal({ size: FILE_LIMITS.maxBytes + 1, contentType: "application/pdf" })).toBe("The file is 8 MB; the limit is 8 MB.");
    expect(fileRefusal({ size: 10, contentType: "text/html" })).toMatch(/type text\/html cannot be attached/);
    expect(fileRefusal({ size: 10, contentType: undefined })).toMatch(/\(none given\)/);
    expect(fileRefusal({ size: 0, contentType: "text/plain" })).toBe("The file is empty.");
    expect(cleanFileName("C:\\Users\\ada\\plan.pdf")).toBe("plan.pdf");
    expect(cleanFileName("../../etc/passwd")).toBe("passwd");
    expect(cleanFileName("a\u0000b.txt")).toBe("ab.txt");
    expect(() => cleanFileName("dir/")).toThrow(/needs a name/);
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(12)).toBe("12 B");
  });
});

describe("files on messages", () => {
  test("upload, add, post: the message carries the file as storage recorded it, and readers get its URL", async () => {
    const { t, admin, grace, general } = await squad();
    expect(await grace.mutation(api.channelMessages.generateUploadUrl, { channelId: general })).toMatch(/^https?:\/\/.*\/api\/upload\?grant=[0-9a-f]{64}$/);
    const storageId = await uploaded(t, grace, general, "pixels", "image/png");
    const artifact = await grace.action(api.channelFiles.add, { channelId: general, storageId, name: "shots/mock.png" });
    expect(artifact).toEqual({ kind: "file", storageId, name: "mock.png", contentType: "image/png", size: 6 });
    // What the client claims about size and type is ignored: the record wins.
    const messageId = await grace.mutation(api.channelMessages.post, {
      channelId: general,
      body: "the mock",
      artifacts: [{ ...artifact, size: 1, contentType: "text/html", name: "evil.html" }],
    });
    const [message] = (await admin.query(api.channelMessages.history, { channelId: general, paginationOpts: { numItems: 10, cursor: null } })).page;
    expect(message.artifacts).toEqual([artifact]);
    expect((await files(t))[0].messageId).toBe(messageId);
    const urls = await admin.query(api.channelFiles.urls, { channelId: general, messageId });
    expect(urls).toEqual([{ storageId, url: expect.any(String) }]);
    // Posted once: the uploader may forward it (reference an existing file), nobody may post it as new elsewhere.
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "again", artifacts: [artifact] });
  });

  test("a refused file is deleted with a clear error: too big, a type not allowed, a secret in a text file", async () => {
    const { t, grace, general } = await squad();
    const big = await postUpload(t, await grace.mutation(api.channelMessages.generateUploadUrl, { channelId: general }), new Uint8Array(FILE_LIMITS.maxBytes + 1), "application/pdf");
    expect(big.status).toBe(413);
    expect(await t.run(async (ctx) => await ctx.db.system.query("_storage").collect())).toEqual([]);
    const html = await uploaded(t, grace, general, "<script>", "text/html");
    await expectError(grace.action(api.channelFiles.add, { channelId: general, storageId: html, name: "x.html" }), "INVALID_ARGUMENT", /text\/html cannot be attached/);
    expect(await blobExists(t, html)).toBe(false);
    const leaky = await uploaded(t, grace, general, "deploy with AKIAIOSFODNN7EXAMPLE and password=hunter2\n", "text/plain");
    await expectError(grace.action(api.channelFiles.add, { channelId: general, storageId: leaky, name: "notes.txt" }), "INVALID_ARGUMENT", /secret/);
    expect(await blobExists(t, leaky)).toBe(false);
    const clean = await uploaded(t, grace, general, "# plan\nship friday\n", "text/markdown");
    await grace.action(api.channelFiles.add, { channelId: general, storageId: clean, name: "plan.md" });
    expect((await files(t)).map((f) => f.name)).toEqual(["plan.md"]);
  });

  test("ACL: private channels and DMs, viewers, other departments, other people's uploads", async () => {
    const { t, departmentId, admin, grace, vera, other, general } = await squad();
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    const storageId = await uploaded(t, admin, secret, "%PDF-1.7", "application/pdf");
    await expectError(grace.mutation(api.channelMessages.generateUploadUrl, { channelId: secret }), "FORBIDDEN");
    await expectError(vera.mutation(api.channelMessages.generateUploadUrl, { channelId: general }), "FORBIDDEN");
    await expectError(other.member.mutation(api.channelMessages.generateUploadUrl, { channelId: general }), "FORBIDDEN");
    await expectError(grace.action(api.channelFiles.add, { channelId: secret, storageId, name: "plan.pdf" }), "FORBIDDEN");
    await expectError(vera.action(api.channelFiles.add, { channelId: general, storageId, name: "plan.pdf" }), "FORBIDDEN");
    // Refusals on who you are never touch the blob.
    expect(await blobExists(t, storageId)).toBe(true);

    const artifact = await admin.action(api.channelFiles.add, { channelId: secret, storageId, name: "plan.pdf" });
    await expectError(admin.action(api.channelFiles.add, { channelId: secret, storageId, name: "plan.pdf" }), "CONFLICT");
    // Someone else cannot post a file added but not yet posted by its uploader.
    await expectError(grace.mutation(api.channelMessages.post, { channelId: general, body: "mine now", artifacts: [artifact] }), "FORBIDDEN");
    const messageId = await admin.mutation(api.channelMessages.post, { channelId: secret, body: "plan", artifacts: [artifact] });
    // Posted in a private channel: a non-member can neither read its URL nor forward it where they can post.
    await expectError(grace.query(api.channelFiles.urls, { channelId: secret, messageId }), "FORBIDDEN");
    await expectError(grace.mutation(api.channelMessages.post, { channelId: general, body: "leak", artifacts: [artifact] }), "FORBIDDEN", /cannot read/);
    await expectError(other.member.query(api.channelFiles.urls, { channelId: secret, messageId }), "FORBIDDEN");
    // The message must be in the channel named (no reading a private message's files through a public channel).
    await expectError(grace.query(api.channelFiles.urls, { channelId: general, messageId }), "NOT_FOUND");
    // A member who can read it may forward it.
    await admin.mutation(api.channelMessages.post, { channelId: general, body: "fwd", artifacts: [artifact] });

    // A DM's files are for its participants only.
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [`member:${await t.run(async (ctx) => (await ctx.db.query("users").collect()).find((u) => u.name === "Grace")!._id)}`] });
    const shot = await uploaded(t, grace, dm, "gif", "image/gif");
    const dmArtifact = await grace.action(api.channelFiles.add, { channelId: dm, storageId: shot, name: "shot.gif" });
    const dmMessage = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "look", artifacts: [dmArtifact] });
    expect(await admin.query(api.channelFiles.urls, { channelId: dm, messageId: dmMessage })).toHaveLength(1);
    await expectError(vera.query(api.channelFiles.urls, { channelId: dm, messageId: dmMessage }), "FORBIDDEN");
  });
});

describe("an upload belongs to who asked for it, where they asked", () => {
  test("another department, another member or another conversation cannot take an upload; its owner still can", async () => {
    const { t, departmentId, admin, grace, other, general } = await squad();
    const leads = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    // Bob's part, played by Ada: an upload for the private channel, not yet attached.
    const storageId = await uploaded(t, admin, leads, "%PDF-1.7 board minutes", "application/pdf");
    // Alice, in the other department, attaches it to her own channel: refused, and the blob is left alone.
    const theirs = await other.member.mutation(api.channels.create, { departmentId: other.departmentId, name: "loot", visibility: "project" });
    await expectError(other.member.action(api.channelFiles.add, { channelId: theirs, storageId, name: "minutes.pdf" }), "FORBIDDEN", /not made by you/);
    // A member of the same department, in a channel she may post in: refused too.
    await expectError(grace.action(api.channelFiles.add, { channelId: general, storageId, name: "minutes.pdf" }), "FORBIDDEN", /not made by you/);
    // The uploader, in another conversation than the one the URL was for: refused.
    await expectError(admin.action(api.channelFiles.add, { channelId: general, storageId, name: "minutes.pdf" }), "FORBIDDEN", /not made by you/);
    // A blob that came into storage any other way is nobody's to attach.
    const stray = await stored(t, "%PDF-1.7", "application/pdf");
    await expectError(admin.action(api.channelFiles.add, { channelId: leads, storageId: stray, name: "stray.pdf" }), "FORBIDDEN");
    // Nothing of that touched Bob's upload: his own attach works.
    expect(await admin.action(api.channelFiles.add, { channelId: leads, storageId, name: "minutes.pdf" })).toMatchObject({ storageId, name: "minutes.pdf" });
    expect((await files(t)).map((f) => f.channelId)).toEqual([leads]);
  });

  test("an upload URL takes one file, until it expires, from the app's origins only", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { t, grace, general } = await squad();
      const url = await grace.mutation(api.channelMessages.generateUploadUrl, { channelId: general });
      expect((await postUpload(t, url, "one", "text/plain", { Origin: "https://evil.example" })).status).toBe(403);
      expect((await postUpload(t, url, "one", "text/plain")).status).toBe(200);
      expect((await postUpload(t, url, "two", "text/plain")).status).toBe(403);
      const later = await grace.mutation(api.channelMessages.generateUploadUrl, { channelId: general });
      vi.setSystemTime(Date.now() + FILE_LIMITS.uploadUrlTtlMs + 1);
      expect((await postUpload(t, later, "late", "text/plain")).status).toBe(403);
      expect((await postUpload(t, url.replace(/grant=[0-9a-f]+/, `grant=${"0".repeat(64)}`), "forged", "text/plain")).status).toBe(403);
      expect(await t.run(async (ctx) => (await ctx.db.system.query("_storage").collect()).length)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("agents reference tasks and posted files", () => {
  test("post_message, reply_thread and dm_send carry task links and files the agent can read; nothing else", async () => {
    const { t, departmentId, admin, grace, general } = await squad();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const runId = await t.run(async (ctx) => {
      const agent = (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", AGENTS.writer)).unique())!;
      return await ctx.db.insert("runs", {
        departmentId, agentId: agent._id, agentSessionKey: agent.sessionKey, taskId, trigger: { kind: "mentioned" }, status: "running",
        iterations: 0, toolCalls: [], promptTokens: 0, completionTokens: 0, foldedTriggers: 0, rerunRequested: false, delegations: 0, guards: [], timings: [],
      });
    });
    const storageId = await uploaded(t, grace, general, "%PDF-1.7", "application/pdf");
    const artifact = await grace.action(api.channelFiles.add, { channelId: general, storageId, name: "brief.pdf" });
    // Not posted yet: only Grace may post it.
    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "general", body: "x", artifacts: [{ fileId: storageId }] }), "FORBIDDEN");
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "brief", artifacts: [artifact] });

    const id = await t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "#general", body: "See the brief and the task", artifacts: [{ fileId: storageId }, { taskId }] });
    const posted = await t.run(async (ctx) => (await ctx.db.get("channelMessages", id))!);
    expect(posted.artifacts).toEqual([artifact, { kind: "task", taskId }]);
    await t.mutation(internal.tools.messaging.replyThreadTool, { runId, messageId: id, body: "again", artifacts: [{ fileId: storageId }] });
    await t.mutation(internal.tools.messaging.dmSendTool, { runId, to: ["Grace"], body: "for you", artifacts: [{ fileId: storageId }] });

    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "general", body: "x", artifacts: [{ fileId: "made-up" }] }), "NOT_FOUND");
    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "general", body: "x", artifacts: [{ taskId: "made-up" }] }), "NOT_FOUND");
    // A file posted in a private channel the agent is not in stays there.
    const leads = await admin.mutation(api.channels.create, { departmentId, name: "leads", visibility: "private" });
    const secretId = await uploaded(t, admin, leads, "%PDF-1.7 secret", "application/pdf");
    const secret = await admin.action(api.channelFiles.add, { channelId: leads, storageId: secretId, name: "salaries.pdf" });
    await admin.mutation(api.channelMessages.post, { channelId: leads, body: "numbers", artifacts: [secret] });
    await expectError(t.mutation(internal.tools.messaging.postChannelTool, { runId, channel: "general", body: "leak", artifacts: [{ fileId: secretId }] }), "FORBIDDEN", /cannot read/);
  });
});

describe("uploads never posted", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test("a day after upload, a file added but never posted loses its row and blob, an upload never added its blob; posted and fresh files stay", async () => {
    vi.useFakeTimers();
    const { t, grace, general } = await squad();
    const sweep = () => t.mutation(internal.sweeps.unpostedFiles, {});
    const abandoned = await uploaded(t, grace, general, "draft pixels", "image/png");
    const abandonedArtifact = await grace.action(api.channelFiles.add, { channelId: general, storageId: abandoned, name: "draft.png" });
    const neverAdded = await uploaded(t, grace, general, "half an upload", "image/png");
    const posted = await uploaded(t, grace, general, "posted pixels", "image/png");
    const postedArtifact = await grace.action(api.channelFiles.add, { channelId: general, storageId: posted, name: "posted.png" });
    await grace.mutation(api.channelMessages.post, { channelId: general, body: "the mock", artifacts: [postedArtifact] });

    // Within the window nothing goes.
    vi.advanceTimersByTime(FILE_LIMITS.unpostedTtlMs - 60 * 60_000);
    expect(await sweep()).toEqual({ files: 0, uploads: 0 });
    const fresh = await uploaded(t, grace, general, "fresh pixels", "image/png");
    await grace.action(api.channelFiles.add, { channelId: general, storageId: fresh, name: "fresh.png" });

    vi.advanceTimersByTime(2 * 60 * 60_000);
    expect(await sweep()).toEqual({ files: 1, uploads: 1 });
    expect(await blobExists(t, abandoned)).toBe(false);
    expect(await blobExists(t, neverAdded)).toBe(false);
    expect(await blobExists(t, posted)).toBe(true);
    expect(await blobExists(t, fresh)).toBe(true);
    expect((await files(t)).map((f) => [f.name, f.messageId === undefined])).toEqual([
      ["posted.png", false],
      ["fresh.png", true],
    ]);
    // A composer that still holds the swept file gets a clear refusal, and nothing is posted.
    await expectError(grace.mutation(api.channelMessages.post, { channelId: general, body: "late", artifacts: [abandonedArtifact] }), "NOT_FOUND");
    // The next pass starts where this one stopped: nothing left to do.
    expect(await sweep()).toEqual({ files: 0, uploads: 0 });
  });

  test("a backlog bigger than a pass is finished by passes scheduled at once", async () => {
    vi.useFakeTimers();
    const { t } = await squad();
    const blobs = [];
    for (let i = 0; i < SWEEP_BATCH + 5; i++) blobs.push(await stored(t, `upload ${i}`, "image/png"));
    vi.advanceTimersByTime(FILE_LIMITS.unpostedTtlMs + 1);
    expect(await t.mutation(internal.sweeps.unpostedFiles, {})).toEqual({ files: 0, uploads: SWEEP_BATCH });
    await t.finishAllScheduledFunctions(vi.runAllTimers);
    for (const id of blobs) expect(await blobExists(t, id)).toBe(false);
  });

  test("the sweep is a cron", () => {
    expect(crons.crons["sweep never-posted files"]).toMatchObject({ name: "sweeps:unpostedFiles", schedule: { type: "interval", hours: 1 } });
  });
});
