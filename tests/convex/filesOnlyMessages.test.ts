/**
 * A message may be just files: a task thread's message and a channel's post
 * with an attached file and no text are posted; with neither text nor a
 * file they are still refused. The file's name is secret-scanned as the
 * text would be, and a viewer still cannot post one.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { generateResetToken } from "../../convex/lib/accounts";
import { createTask, demoSquad, expectError, uploadThrough, type Actor, type TestConvex } from "./setup";

async function squad() {
  const base = await demoSquad({ grace: true, vera: true, other: true });
  const taskId = await createTask(base.admin, base.departmentId, { title: "Ship the launch" });
  const general = await base.admin.mutation(api.channels.create, { departmentId: base.departmentId, name: "general", visibility: "project" });
  return { ...base, taskId, general };
}

async function taskFile(t: TestConvex, who: Actor, taskId: Id<"tasks">, name: string) {
  const storageId = await uploadThrough(t, await who.mutation(api.taskFiles.generateUploadUrl, { taskId }), "# notes\nship friday\n", "text/markdown");
  return await who.action(api.taskFiles.add, { taskId, storageId, name });
}

async function channelFile(t: TestConvex, who: Actor, channelId: Id<"channels">, name: string) {
  const storageId = await uploadThrough(t, await who.mutation(api.channelMessages.generateUploadUrl, { channelId }), "pixels", "image/png");
  return await who.action(api.channelFiles.add, { channelId, storageId, name });
}

describe("a message of files only", () => {
  test("a task thread takes a message with a file and no text; without a file an empty one is still refused", async () => {
    const { t, grace, taskId } = await squad();
    await expectError(grace.mutation(api.messages.create, { taskId, content: "   " }), "INVALID_ARGUMENT", "A message must not be empty.");
    const file = await taskFile(t, grace, taskId, "brief.md");
    const messageId = await grace.mutation(api.messages.create, { taskId, content: "", files: [file.storageId] });
    const [message] = (await grace.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } })).page.filter((m) => m._id === messageId);
    expect(message).toMatchObject({ content: "", files: [file] });
  });

  test("a channel takes a post with a file and no text, a thread reply too; without one an empty post is still refused", async () => {
    const { t, grace, admin, general } = await squad();
    await expectError(grace.mutation(api.channelMessages.post, { channelId: general, body: "" }), "INVALID_ARGUMENT", "A message must not be empty.");
    const file = await channelFile(t, grace, general, "mock.png");
    const messageId = await grace.mutation(api.channelMessages.post, { channelId: general, body: "", artifacts: [file] });
    const [message] = (await admin.query(api.channelMessages.history, { channelId: general, paginationOpts: { numItems: 10, cursor: null } })).page;
    expect(message).toMatchObject({ _id: messageId, body: "", artifacts: [file] });
    const second = await channelFile(t, admin, general, "reply.png");
    await admin.mutation(api.channelMessages.reply, { channelId: general, messageId, body: "", artifacts: [second] });
  });

  test("a file's name is secret-scanned as text is; a viewer and another department still cannot post one", async () => {
    const { t, grace, vera, other, taskId, general } = await squad();
    const secret = generateResetToken();
    const named = await taskFile(t, grace, taskId, `notes ${secret}.md`);
    expect(named.name).not.toContain(secret.slice(3));
    const messageId = await grace.mutation(api.messages.create, { taskId, content: "", files: [named.storageId] });
    const stored = await t.run(async (ctx) => await ctx.db.get("messages", messageId));
    expect(JSON.stringify(stored)).not.toContain(secret.slice(3));
    const inChannel = await channelFile(t, grace, general, `shot ${secret}.png`);
    expect(inChannel.name).not.toContain(secret.slice(3));

    await expectError(vera.mutation(api.messages.create, { taskId, content: "", files: [named.storageId] }), "FORBIDDEN");
    await expectError(other.member.mutation(api.channelMessages.post, { channelId: general, body: "", artifacts: [inChannel] }), "FORBIDDEN");
  });
});
