/**
 * Retention per department (convex/retention.ts, lib/retention): nothing is
 * deleted without a policy; with one, only what is past its window or
 * beyond the cap goes (threads whole, with their inbox rows), files by
 * their own TTL; admins alone set it, within bounds.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { channelMessageRow, demoSquad, expectError, memberKeyOf, signIn, type TestConvex } from "./setup";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1);

afterEach(() => {
  vi.useRealTimers();
});

/** Posts as Ada `daysAgo` days before NOW. */
async function at<T>(daysAgo: number, work: () => Promise<T>): Promise<T> {
  vi.setSystemTime(NOW - daysAgo * DAY);
  return await work();
}

async function setup() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW - 400 * DAY);
  const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
  const channelId = await admin.mutation(api.channels.create, { departmentId, name: "history", visibility: "project" });
  await grace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
  return { t, departmentId, admin, grace, channelId };
}

async function bodies(t: TestConvex, channelId: Id<"channels">): Promise<string[]> {
  return await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).filter((m) => m.channelId === channelId).map((m) => m.body));
}

async function sweepNow(t: TestConvex, departmentId: Id<"departments">) {
  vi.setSystemTime(NOW);
  return await t.mutation(internal.retention.sweepDepartment, { departmentId, cursor: null, files: true });
}

describe("retention", () => {
  test("without a policy nothing is deleted, however old", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    await at(300, () => admin.mutation(api.channelMessages.post, { channelId, body: "ancient" }));
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({});
    expect(await t.mutation(internal.retention.sweep, {})).toBe(0);
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 0 });
    expect(await bodies(t, channelId)).toEqual(["ancient"]);
  });

  test("a message TTL deletes threads past the window with their inbox rows, keeps a thread answered inside it whole, and everything newer", async () => {
    const { t, departmentId, admin, grace, channelId } = await setup();
    // In time order (the post rate limit's clock only goes forward).
    const live = await at(45, () => admin.mutation(api.channelMessages.post, { channelId, body: "old but answered" }));
    const old = await at(40, () => admin.mutation(api.channelMessages.post, { channelId, body: "old" }));
    await at(39, () => grace.mutation(api.channelMessages.reply, { channelId, messageId: old, body: "old reply" }));
    await at(35, () => admin.mutation(api.channelMessages.reply, { channelId, messageId: live, body: "reply before the window" }));
    await at(10, () => grace.mutation(api.channelMessages.reply, { channelId, messageId: live, body: "recent reply" }));
    await at(29, () => admin.mutation(api.channelMessages.post, { channelId, body: "inside the window" }));
    await admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 30 } });

    expect(await t.mutation(internal.retention.sweep, {})).toBe(1);
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 1, files: 0 });
    expect((await bodies(t, channelId)).toSorted()).toEqual(["inside the window", "old but answered", "recent reply", "reply before the window"]);
    const inbox = await t.run(async (ctx) => await ctx.db.query("inbox").collect());
    const messages = new Set(await t.run(async (ctx) => (await ctx.db.query("channelMessages").collect()).map((m) => m._id as string)));
    expect(inbox.length).toBeGreaterThan(0);
    expect(inbox.every((row) => messages.has(row.messageId))).toBe(true);
    expect(inbox.some((row) => row.recipientKey === memberKeyOf(t, "Grace"))).toBe(true);
    // A second pass finds nothing more.
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 0 });
  });

  test("a per-conversation cap keeps the newest top-level messages and deletes the oldest beyond it", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    vi.setSystemTime(NOW - DAY);
    await t.run(async (ctx) => {
      for (let i = 0; i < 103; i++) {
        await ctx.db.insert("channelMessages", channelMessageRow(departmentId, channelId, { body: `m${i}` }));
      }
    });
    await admin.mutation(api.retention.update, { departmentId, policy: { maxMessagesPerConversation: 100 } });
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 3, files: 0 });
    const left = await bodies(t, channelId);
    expect(left).toHaveLength(100);
    expect(left).not.toContain("m0");
    expect(left).not.toContain("m2");
    expect(left).toContain("m3");
    expect(left).toContain("m102");
  });

  test("files have their own TTL: blob and row past it are deleted, newer files and the messages stay", async () => {
    const { t, departmentId, admin, channelId } = await setup();
    const upload = async (daysAgo: number, name: string) => {
      vi.setSystemTime(NOW - daysAgo * DAY);
      return await t.run(async (ctx) => {
        const storageId = await ctx.storage.store(new Blob(["hello"], { type: "text/plain" }));
        await ctx.db.insert("channelFiles", { departmentId, channelId, storageId, uploaderKey: "member:x", name, contentType: "text/plain", size: 5 });
        return storageId;
      });
    };
    const oldFile = await upload(100, "old.txt");
    const newFile = await upload(5, "new.txt");
    await at(100, () => admin.mutation(api.channelMessages.post, { channelId, body: "kept message" }));
    await admin.mutation(api.retention.update, { departmentId, policy: { artifactTtlDays: 90 } });
    expect(await sweepNow(t, departmentId)).toEqual({ threads: 0, files: 1 });
    const state = await t.run(async (ctx) => ({
      files: (await ctx.db.query("channelFiles").collect()).map((f) => f.name),
      oldBlob: await ctx.storage.get(oldFile),
      newBlob: (await ctx.storage.get(newFile)) !== null,
    }));
    expect(state).toEqual({ files: ["new.txt"], oldBlob: null, newBlob: true });
    expect(await bodies(t, channelId)).toEqual(["kept message"]);
  });

  test("admins alone set the policy, within bounds; a refused change saves nothing", async () => {
    const { t, departmentId, admin } = await setup();
    const member = await signIn(t, "Mel");
    await expectError(member.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 1 } }), "FORBIDDEN");
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 0 } }), "INVALID_ARGUMENT", /from 1 to 3650/);
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { maxMessagesPerConversation: 10 } }), "INVALID_ARGUMENT", /from 100 to 5000/);
    await expectError(admin.mutation(api.retention.update, { departmentId, policy: { artifactTtlDays: 1.5 } }), "INVALID_ARGUMENT", /whole number/);
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({});
    await admin.mutation(api.retention.update, { departmentId, policy: { messageTtlDays: 365, artifactTtlDays: 30 } });
    expect(await admin.query(api.retention.get, { departmentId })).toEqual({ messageTtlDays: 365, artifactTtlDays: 30 });
  });
});
