/** searchFiles (channelFiles.search): a department's files by name and by text, only where the caller may read. */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { createOtherDepartment, demoSquad, expectError, type TestConvex } from "./setup";

async function file(t: TestConvex, departmentId: Id<"departments">, channelId: Id<"channels">, name: string, text?: string) {
  await t.run(async (ctx) => {
    const storageId = await ctx.storage.store(new Blob([text ?? "binary"], { type: "text/plain" }));
    await ctx.db.insert("channelFiles", { departmentId, channelId, storageId, uploaderKey: "member:x", name, contentType: "text/plain", size: 6, text: text ?? "" });
  });
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
    // A match by text alone comes after the matches by name.
    expect(mine.at(-1)?.name).toBe("notes.txt");
    const graces = await grace.query(api.channelFiles.search, { departmentId, query: "pricing" });
    expect(graces.map((f) => f.name).toSorted()).toEqual(["notes.txt", "pricing-plan.md"]);
    expect((await grace.query(api.channelFiles.search, { departmentId, query: "enterprise" })).map((f) => f.name)).toEqual(["pricing-plan.md"]);
    expect(await grace.query(api.channelFiles.search, { departmentId, query: "   " })).toEqual([]);

    const other = await createOtherDepartment(t);
    await expectError(other.member.query(api.channelFiles.search, { departmentId, query: "pricing" }), "FORBIDDEN");
  });
});
