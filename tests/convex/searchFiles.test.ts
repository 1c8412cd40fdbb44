/** searchFiles (channelFiles.search): a department's files by name and by text, only where the caller may read. */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { createOtherDepartment, createTask, demoSquad, expectError, uploadThrough, type Actor, type TestConvex } from "./setup";

async function file(t: TestConvex, departmentId: Id<"departments">, channelId: Id<"channels">, name: string, text?: string) {
  await t.run(async (ctx) => {
    const storageId = await ctx.storage.store(new Blob([text ?? "binary"], { type: "text/plain" }));
    await ctx.db.insert("channelFiles", { departmentId, channelId, storageId, uploaderKey: "member:x", name, contentType: "text/plain", size: 6, text: text ?? "" });
  });
}

/** A text file `who` uploads and adds to a task's thread as the app does; attached to a message when `attach`. */
async function taskFile(t: TestConvex, who: Actor, taskId: Id<"tasks">, name: string, text: string, attach: boolean) {
  const storageId = await uploadThrough(t, await who.mutation(api.taskFiles.generateUploadUrl, { taskId }), text, "text/markdown");
  await who.action(api.taskFiles.add, { taskId, storageId, name });
  if (attach) await who.mutation(api.messages.create, { taskId, content: `here is ${name}`, files: [storageId] });
  return storageId;
}

describe("channelFiles.search", () => {
  test("finds files by name and by their text, name matches first, each once; private conversations only for their members", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const general = await admin.mutation(api.channels.create, { departmentId, name: "files", visibility: "project" });
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "board-only", visibility: "private" });
    await file(t, departmentId, general, "pricing-plan.md", "Tiers: starter, team, enterprise");
    await file(t, departmentId, general, "notes.txt", "the pricing discussion moved to Friday");
    await file(t, departmentId, general, "logo.png");
    await file(t, departmentId, secret, "pricing-secret.md", "pricing for the board");

    const mine = await admin.query(api.channelFiles.search, { departmentId, query: "pricing" });
    expect(new Set(mine.map((f) => f.name))).toEqual(new Set(["pricing-plan.md", "pricing-secret.md", "notes.txt"]));
    expect(new Set(mine.map((f) => `${f.name} in ${f.place}`))).toEqual(new Set(["pricing-plan.md in #files", "pricing-secret.md in #board-only", "notes.txt in #files"]));
    // A match by text alone comes after the matches by name.
    expect(mine.at(-1)?.name).toBe("notes.txt");
    const graces = await grace.query(api.channelFiles.search, { departmentId, query: "pricing" });
    expect(graces.map((f) => f.name).toSorted()).toEqual(["notes.txt", "pricing-plan.md"]);
    expect((await grace.query(api.channelFiles.search, { departmentId, query: "enterprise" })).map((f) => f.name)).toEqual(["pricing-plan.md"]);
    expect(await grace.query(api.channelFiles.search, { departmentId, query: "   " })).toEqual([]);

    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.channelFiles.search, { departmentId, query: "pricing" }), "FORBIDDEN");
  });

  test("finds files attached in task threads too, by name and by text, for every reader; never a file not attached yet, nor another department's", async () => {
    const { t, departmentId, admin, grace, vera } = await demoSquad({ grace: true, vera: true });
    const taskId = await createTask(admin, departmentId, { title: "Ship the launch" });
    const brief = await taskFile(t, grace, taskId, "launch-brief.md", "The rollout budget is approved", true);
    await taskFile(t, grace, taskId, "launch-draft.md", "budget draft, not posted", false);
    const other = await createOtherDepartment(t);
    const theirTask = await createTask(other.member, other.departmentId, { title: "Theirs" });
    await taskFile(t, other.member, theirTask, "launch-theirs.md", "their budget", true);

    for (const reader of [admin, grace, vera]) {
      expect(await reader.query(api.channelFiles.search, { departmentId, query: "launch" })).toEqual([
        { fileId: brief, taskId, place: "Ship the launch", name: "launch-brief.md", contentType: "text/markdown", size: 30, createdAt: expect.any(Number) },
      ]);
      expect((await reader.query(api.channelFiles.search, { departmentId, query: "rollout" })).map((f) => f.name)).toEqual(["launch-brief.md"]);
    }
    expect((await other.member.query(api.channelFiles.search, { departmentId: other.departmentId, query: "budget" })).map((f) => f.name)).toEqual(["launch-theirs.md"]);

    // Once its task is deleted, its files are not found.
    await admin.mutation(api.tasks.remove, { taskId });
    expect(await grace.query(api.channelFiles.search, { departmentId, query: "launch" })).toEqual([]);
  });
});
