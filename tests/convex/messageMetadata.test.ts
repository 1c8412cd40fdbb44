/**
 * Metadata on a task message (sessions spec, `sendMessage{metadata?}`): a
 * small flat record kept with the message, listed with it, secret-scanned,
 * bounded, and gone when the message is deleted; from the attacker's side,
 * an oversized or malformed record, a viewer and another department change
 * nothing.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { METADATA_LIMITS } from "../../convex/lib/messageMetadata";
import { addToDepartment, createTask, demoSquad, expectError, holdScheduledFunctions, type Actor } from "./setup";
import type { Id } from "../../convex/_generated/dataModel";

holdScheduledFunctions();

async function thread() {
  const squad = await demoSquad({ grace: true, other: true });
  return { ...squad, taskId: await createTask(squad.admin, squad.departmentId, { title: "Launch plan" }) };
}

async function newest(actor: Actor, taskId: Id<"tasks">) {
  return (await actor.query(api.messages.list, { taskId, paginationOpts: { numItems: 1, cursor: null } })).page[0];
}

describe("metadata on a task message", () => {
  test("is kept with the message and listed with it, its values secret-scanned; a retried send keeps one; deleting the message drops it", async () => {
    const { admin, taskId } = await thread();
    const metadata = { source: "cli", "ticket.id": "OPS-12", token: "key AKIAIOSFODNN7EXAMPLF here" };
    const messageId = await admin.mutation(api.messages.create, { taskId, content: "Shipped", clientMessageId: "m-1", metadata });
    expect(await admin.mutation(api.messages.create, { taskId, content: "Shipped", clientMessageId: "m-1", metadata })).toBe(messageId);
    const listed = await newest(admin, taskId);
    expect(listed._id).toBe(messageId);
    expect(listed.metadata).toMatchObject({ source: "cli", "ticket.id": "OPS-12" });
    expect(listed.metadata?.token).not.toContain("AKIAIOSFODNN7EXAMPLF");
    const { page } = await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } });
    expect(page).toHaveLength(1);

    await admin.mutation(api.messages.create, { taskId, content: "No metadata" });
    expect((await newest(admin, taskId)).metadata).toBeUndefined();

    await admin.mutation(api.messages.remove, { taskId, messageId });
    const after = (await admin.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } })).page.find((m) => m._id === messageId);
    expect(after?.metadata).toBeUndefined();
  });

  test("an oversized or malformed record is refused with a clear error and posts nothing", async () => {
    const { t, admin, taskId } = await thread();
    const tooMany = Object.fromEntries(Array.from({ length: METADATA_LIMITS.keys + 1 }, (_, i) => [`k${i}`, "v"]));
    const cases: Array<[Record<string, string>, RegExp]> = [
      [tooMany, /at most 20 keys/],
      [{ note: "x".repeat(METADATA_LIMITS.valueChars + 1) }, /longer than 200 characters/],
      [{ ["k".repeat(METADATA_LIMITS.keyChars + 1)]: "v" }, /Metadata keys are/],
      [{ "": "v" }, /Metadata keys are/],
      [{ "a b": "v" }, /Metadata keys are/],
    ];
    for (const [metadata, error] of cases) await expectError(admin.mutation(api.messages.create, { taskId, content: "hi", metadata }), "INVALID_ARGUMENT", error);
    // Not a flat record of strings: the argument validator refuses it.
    await expect(admin.mutation(api.messages.create, { taskId, content: "hi", metadata: { nested: { a: "b" } } as unknown as Record<string, string> })).rejects.toThrow();
    await expect(admin.mutation(api.messages.create, { taskId, content: "hi", metadata: { n: 1 } as unknown as Record<string, string> })).rejects.toThrow();
    // Convex itself refuses a "$" field name before the handler runs.
    await expect(admin.mutation(api.messages.create, { taskId, content: "hi", metadata: { $where: "v" } })).rejects.toThrow(/\$/);
    expect(await t.run(async (ctx) => await ctx.db.query("messages").collect())).toEqual([]);
    // At the bounds it is fine.
    const full = Object.fromEntries(Array.from({ length: METADATA_LIMITS.keys }, (_, i) => [`k${i}`, "v".repeat(METADATA_LIMITS.valueChars)]));
    await admin.mutation(api.messages.create, { taskId, content: "hi", metadata: full });
    expect(Object.keys((await newest(admin, taskId)).metadata ?? {})).toHaveLength(METADATA_LIMITS.keys);
  });

  test("a viewer and another department's admin cannot post a message with metadata", async () => {
    const { t, departmentId, other, taskId } = await thread();
    const vera = await addToDepartment(t, departmentId, "Vera", "viewer");
    await expectError(vera.mutation(api.messages.create, { taskId, content: "hi", metadata: { a: "b" } }), "FORBIDDEN");
    await expectError(other.member.mutation(api.messages.create, { taskId, content: "hi", metadata: { a: "b" } }), "FORBIDDEN");
    expect(await t.run(async (ctx) => await ctx.db.query("messages").collect())).toEqual([]);
  });
});
