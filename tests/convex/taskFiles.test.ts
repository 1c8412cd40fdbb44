/**
 * Files on a task's thread messages: the grant for one person and one task,
 * the upload through it, the record, `messages.create` carrying them, who
 * may download them, and what removes them. Each refusal writes nothing.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import { FILE_LIMITS, withAttachedFiles } from "../../convex/lib/files";
import { AGENTS, blobExists, createOtherTask, createTask, demoSquad, expectError, insertRun, postUpload, roundInputs, stored, uploadThrough, type Actor, type TestConvex } from "./setup";

/** Ada, Grace (a member), Vera (a viewer), another department, and a task of ours. */
async function squad() {
  const base = await demoSquad({ grace: true, vera: true, other: true });
  return { ...base, taskId: await createTask(base.admin, base.departmentId, { title: "Ship the launch" }) };
}

/** A file uploaded for `taskId` as the app does: `who` asks for an upload URL for the task and POSTs the file to it. */
async function uploaded(t: TestConvex, who: Actor, taskId: Id<"tasks">, content: string | Uint8Array, contentType: string): Promise<Id<"_storage">> {
  return await uploadThrough(t, await who.mutation(api.taskFiles.generateUploadUrl, { taskId }), content, contentType);
}

/** Uploaded and added: ready to attach. */
async function added(t: TestConvex, who: Actor, taskId: Id<"tasks">, name: string, content = "# notes\nship friday\n", contentType = "text/markdown") {
  const storageId = await uploaded(t, who, taskId, content, contentType);
  return await who.action(api.taskFiles.add, { taskId, storageId, name });
}

async function taskFiles(t: TestConvex): Promise<Array<Doc<"taskFiles">>> {
  return await t.run(async (ctx) => await ctx.db.query("taskFiles").collect());
}

async function threadOf(t: TestConvex, taskId: Id<"tasks">): Promise<Array<Doc<"messages">>> {
  return await t.run(async (ctx) => await ctx.db.query("messages").withIndex("by_task", (q) => q.eq("taskId", taskId)).collect());
}

describe("files on a task's thread messages", () => {
  test("grant, upload, add, attach: the message carries the file as storage recorded it; readers of the task get its URL, agents its name", async () => {
    const { t, departmentId, admin, grace, vera, other, taskId } = await squad();
    expect(await grace.mutation(api.taskFiles.generateUploadUrl, { taskId })).toMatch(/^https?:\/\/.*\/api\/upload\?grant=[0-9a-f]{64}$/);
    const storageId = await uploaded(t, grace, taskId, "%PDF-1.7 brief", "application/pdf");
    const artifact = await grace.action(api.taskFiles.add, { taskId, storageId, name: "docs/brief.pdf" });
    expect(artifact).toEqual({ kind: "file", storageId, name: "brief.pdf", contentType: "application/pdf", size: 14 });

    const messageId = await grace.mutation(api.messages.create, { taskId, content: "the brief @Writer", files: [storageId] });
    const [message] = (await vera.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } })).page.filter((m) => m._id === messageId);
    expect(message.files).toEqual([artifact]);
    expect((await taskFiles(t)).map((f) => [f.name, f.messageId])).toEqual([["brief.pdf", messageId]]);

    // Who can read the task gets the download URL, a viewer too; another department does not.
    for (const reader of [admin, grace, vera]) expect(await reader.query(api.taskFiles.urls, { taskId, messageId })).toEqual([{ storageId, url: expect.any(String) }]);
    await expectError(other.member.query(api.taskFiles.urls, { taskId, messageId }), "FORBIDDEN");
    // A message of another task is not this task's to serve.
    const otherTask = await createTask(admin, departmentId, { title: "Elsewhere" });
    await expectError(admin.query(api.taskFiles.urls, { taskId: otherTask, messageId }), "NOT_FOUND");

    // The mentioned agent reads the file's name with the message.
    const runId = await insertRun(t, AGENTS.writer, taskId);
    const { context } = await roundInputs(t, runId);
    expect(context.thread.find((m) => m.author === "Grace")?.content).toBe(withAttachedFiles("the brief @Writer", [artifact]));
    expect(context.thread.find((m) => m.author === "Grace")?.content).toContain("[attached file: “brief.pdf” (application/pdf, 14 B)]");
  });

  test("viewers and other departments get no grant and cannot add; another department's task is refused", async () => {
    const { t, grace, vera, other, taskId } = await squad();
    await expectError(vera.mutation(api.taskFiles.generateUploadUrl, { taskId }), "FORBIDDEN");
    await expectError(other.member.mutation(api.taskFiles.generateUploadUrl, { taskId }), "FORBIDDEN");
    const theirTask = await createOtherTask(t, other.departmentId);
    await expectError(grace.mutation(api.taskFiles.generateUploadUrl, { taskId: theirTask }), "FORBIDDEN");
    expect(await t.run(async (ctx) => await ctx.db.query("uploadGrants").collect())).toEqual([]);

    const storageId = await uploaded(t, grace, taskId, "pixels", "image/png");
    await expectError(vera.action(api.taskFiles.add, { taskId, storageId, name: "a.png" }), "FORBIDDEN");
    await expectError(other.member.action(api.taskFiles.add, { taskId, storageId, name: "a.png" }), "FORBIDDEN");
    // Refusals on who you are never touch the blob.
    expect(await blobExists(t, storageId)).toBe(true);
    expect(await taskFiles(t)).toEqual([]);
  });

  test("an upload is added only by its uploader, to the task it was granted for: not someone else's, not another task's, not a channel's, not a stray blob", async () => {
    const { t, departmentId, admin, grace, taskId } = await squad();
    const otherTask = await createTask(admin, departmentId, { title: "Another" });
    const graces = await uploaded(t, grace, taskId, "pixels", "image/png");
    await expectError(admin.action(api.taskFiles.add, { taskId, storageId: graces, name: "a.png" }), "FORBIDDEN", /not made by you for this task/);
    await expectError(grace.action(api.taskFiles.add, { taskId: otherTask, storageId: graces, name: "a.png" }), "FORBIDDEN");
    const general = await admin.mutation(api.channels.create, { departmentId, name: "general", visibility: "project" });
    await expectError(grace.action(api.channelFiles.add, { channelId: general, storageId: graces, name: "a.png" }), "FORBIDDEN", /this conversation/);
    const forChannel = await uploadThrough(t, await grace.mutation(api.channelMessages.generateUploadUrl, { channelId: general }), "pixels", "image/png");
    await expectError(grace.action(api.taskFiles.add, { taskId, storageId: forChannel, name: "a.png" }), "FORBIDDEN");
    const stray = await stored(t, "pixels", "image/png");
    await expectError(grace.action(api.taskFiles.add, { taskId, storageId: stray, name: "a.png" }), "FORBIDDEN");
    expect(await taskFiles(t)).toEqual([]);
    // Its uploader, where it was granted: added, once.
    await grace.action(api.taskFiles.add, { taskId, storageId: graces, name: "a.png" });
    await expectError(grace.action(api.taskFiles.add, { taskId, storageId: graces, name: "a.png" }), "CONFLICT");
  });

  test("messages.create refuses someone else's file, another task's, one used already, too many, and writes nothing", async () => {
    const { t, departmentId, admin, grace, taskId } = await squad();
    const otherTask = await createTask(admin, departmentId, { title: "Another" });
    const graces = await added(t, grace, taskId, "mine.md");
    const elsewhere = await added(t, grace, otherTask, "elsewhere.md");
    const before = await threadOf(t, taskId);
    const send = (who: Actor, files: Array<Id<"_storage">>) => who.mutation(api.messages.create, { taskId, content: "see attached", files });

    await expectError(send(admin, [graces.storageId]), "FORBIDDEN", /Only its uploader/);
    await expectError(send(grace, [elsewhere.storageId]), "FORBIDDEN", /another task/);
    await expectError(send(grace, [await stored(t, "x", "text/plain")]), "NOT_FOUND", /not uploaded for this task/);
    // One good file and one bad: nothing of it is posted or attached.
    await expectError(send(grace, [graces.storageId, elsewhere.storageId]), "FORBIDDEN");
    const eleven = [];
    for (let i = 0; i < 11; i++) eleven.push(await stored(t, `file ${i}`, "text/plain"));
    await expectError(send(grace, eleven), "INVALID_ARGUMENT", /at most 10 files/);
    expect(await threadOf(t, taskId)).toEqual(before);
    expect((await taskFiles(t)).every((f) => f.messageId === undefined)).toBe(true);

    // Attached once; a second message cannot carry it again (a retry with the same client id gets the first back).
    const first = await grace.mutation(api.messages.create, { taskId, content: "here", files: [graces.storageId], clientMessageId: "c-1" });
    expect(await grace.mutation(api.messages.create, { taskId, content: "here", files: [graces.storageId], clientMessageId: "c-1" })).toBe(first);
    await expectError(send(grace, [graces.storageId]), "CONFLICT", /attached to a message already/);
    expect((await threadOf(t, taskId)).filter((m) => m.files !== undefined).map((m) => m._id)).toEqual([first]);
  });

  test("the upload's limits: too big refused at the route, a type not allowed and a secret in a text file refused and deleted", async () => {
    const { t, grace, taskId } = await squad();
    const big = await postUpload(t, await grace.mutation(api.taskFiles.generateUploadUrl, { taskId }), new Uint8Array(FILE_LIMITS.maxBytes + 1), "application/pdf");
    expect(big.status).toBe(413);
    expect(await t.run(async (ctx) => await ctx.db.system.query("_storage").collect())).toEqual([]);
    const html = await uploaded(t, grace, taskId, "<script>", "text/html");
    await expectError(grace.action(api.taskFiles.add, { taskId, storageId: html, name: "x.html" }), "INVALID_ARGUMENT", /text\/html cannot be attached/);
    expect(await blobExists(t, html)).toBe(false);
    const leaky = await uploaded(t, grace, taskId, "deploy with AKIAIOSFODNN7EXAMPLE and password=hunter2\n", "text/plain");
    await expectError(grace.action(api.taskFiles.add, { taskId, storageId: leaky, name: "notes.txt" }), "INVALID_ARGUMENT", /secret/);
    expect(await blobExists(t, leaky)).toBe(false);
    expect(await taskFiles(t)).toEqual([]);
  });
});

describe("what removes a task's files", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test("a day after upload, a task file never attached loses row and blob; an attached one stays (its blob is no stray)", async () => {
    vi.useFakeTimers();
    const { t, grace, taskId } = await squad();
    const abandoned = await added(t, grace, taskId, "draft.md");
    const neverAdded = await uploaded(t, grace, taskId, "half", "text/plain");
    const kept = await added(t, grace, taskId, "kept.md");
    await grace.mutation(api.messages.create, { taskId, content: "kept", files: [kept.storageId] });
    vi.advanceTimersByTime(FILE_LIMITS.unpostedTtlMs + 60_000);
    expect(await t.mutation(internal.sweeps.unpostedFiles, {})).toEqual({ files: 1, uploads: 1 });
    expect(await blobExists(t, abandoned.storageId)).toBe(false);
    expect(await blobExists(t, neverAdded)).toBe(false);
    expect(await blobExists(t, kept.storageId)).toBe(true);
    expect((await taskFiles(t)).map((f) => f.name)).toEqual(["kept.md"]);
    // The grants behind them go once past their URL's life and the window too.
    vi.advanceTimersByTime(FILE_LIMITS.uploadUrlTtlMs);
    await t.mutation(internal.sweeps.unpostedFiles, {});
    expect(await t.run(async (ctx) => await ctx.db.query("uploadGrants").collect())).toEqual([]);
  });

  test("deleting the message deletes its files; deleting the task deletes the rest", async () => {
    const { t, admin, grace, taskId } = await squad();
    const one = await added(t, grace, taskId, "one.md");
    const two = await added(t, grace, taskId, "two.md");
    const messageId = await grace.mutation(api.messages.create, { taskId, content: "one", files: [one.storageId] });
    await grace.mutation(api.messages.create, { taskId, content: "two", files: [two.storageId] });
    await grace.mutation(api.messages.remove, { taskId, messageId });
    expect(await blobExists(t, one.storageId)).toBe(false);
    expect(await admin.query(api.taskFiles.urls, { taskId, messageId })).toEqual([]);
    expect((await taskFiles(t)).map((f) => f.name)).toEqual(["two.md"]);
    await admin.mutation(api.tasks.remove, { taskId });
    await t.finishAllScheduledFunctions(() => {});
    expect(await blobExists(t, two.storageId)).toBe(false);
    expect(await taskFiles(t)).toEqual([]);
  });

  test("retention's artifact TTL deletes task files past it, and keeps those inside it", async () => {
    vi.useFakeTimers();
    const { t, departmentId, admin, grace, taskId } = await squad();
    const old = await added(t, grace, taskId, "old.md");
    await grace.mutation(api.messages.create, { taskId, content: "old", files: [old.storageId] });
    vi.advanceTimersByTime(3 * 24 * 60 * 60_000);
    const fresh = await added(t, grace, taskId, "fresh.md");
    await grace.mutation(api.messages.create, { taskId, content: "fresh", files: [fresh.storageId] });
    await admin.mutation(api.retention.update, { departmentId, policy: { artifactTtlDays: 2 } });
    expect(await t.mutation(internal.retention.sweepDepartment, { departmentId, cursor: null, files: true })).toMatchObject({ files: 1 });
    expect(await blobExists(t, old.storageId)).toBe(false);
    expect(await blobExists(t, fresh.storageId)).toBe(true);
  });
});
