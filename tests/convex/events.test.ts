/**
 * The department's event log as admins read it (events.list): newest first,
 * paged, narrowed by type, actor and channel (each alone and together), with
 * where each happened; and refused to members, viewers and other departments.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { emitEvent } from "../../convex/records/events";
import { AGENTS, demoSquad, expectError, memberKeyOf, type Actor } from "./setup";

type Filter = { type?: "channels.created" | "channels.updated" | "messaging.created" | "messaging.posted" | "a2a.delegate" | "a2a.status_update"; actor?: string; channelId?: Id<"channels">; correlationId?: string };

async function log(admin: Actor, departmentId: Id<"departments">, filter: Filter = {}, numItems = 50, cursor: string | null = null) {
  return await admin.query(api.events.list, { departmentId, ...filter, paginationOpts: { numItems, cursor } });
}

/** Ada and Grace create channels, post, change a topic; Writer (an agent) and Maestro post too. */
async function busyDepartment() {
  const squad = await demoSquad({ grace: true, vera: true, other: true });
  const { t, departmentId, admin, grace } = squad;
  const launch = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
  const secret = await grace.mutation(api.channels.create, { departmentId, name: "secret", visibility: "private" });
  await admin.mutation(api.channelMessages.post, { channelId: launch, body: "go" });
  await grace.mutation(api.channels.setTopic, { channelId: secret, topic: "quiet" });
  const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [memberKeyOf(t, "Ada")] });
  await t.run(async (ctx) => {
    await emitEvent(ctx, { departmentId, type: "channels.updated", actor: { kind: "agent", sessionKey: AGENTS.writer, name: "Writer" }, channelId: launch, data: { topic: "by writer" } });
    await emitEvent(ctx, { departmentId, type: "channels.updated", actor: { kind: "system" }, channelId: launch, data: { archived: false } });
  });
  return { ...squad, launch, secret, dm };
}

describe("the event log", () => {
  test("newest first, in pages, each naming where it happened (a DM by no names)", async () => {
    const { departmentId, admin } = await busyDepartment();
    const all = (await log(admin, departmentId)).page;
    expect(all.map((e) => e.type)).toEqual([
      "channels.updated",
      "channels.updated",
      "channels.created",
      "channels.updated",
      "messaging.posted",
      "messaging.created",
      "channels.created",
      "channels.created",
    ]);
    expect(all.map((e) => e.where)).toEqual(["#launch", "#launch", "a DM", "#secret", "#launch", "#launch", "#secret", "#launch"]);
    const first = await log(admin, departmentId, {}, 3);
    const second = await log(admin, departmentId, {}, 3, first.continueCursor);
    expect([...first.page, ...second.page].map((e) => e._id)).toEqual(all.slice(0, 6).map((e) => e._id));
  });

  test("narrowed by type, by actor (a member, an agent, Maestro), by channel, and by all of them at once", async () => {
    const { t, departmentId, admin, launch, secret } = await busyDepartment();
    const types = async (filter: Filter) => (await log(admin, departmentId, filter)).page.map((e) => `${e.type} ${e.actor.kind === "system" ? "Maestro" : e.actor.name} ${e.where}`);
    expect(await types({ type: "channels.created" })).toEqual(["channels.created Grace a DM", "channels.created Grace #secret", "channels.created Ada #launch"]);
    expect(await types({ actor: memberKeyOf(t, "Grace") })).toEqual(["channels.created Grace a DM", "channels.updated Grace #secret", "channels.created Grace #secret"]);
    expect(await types({ actor: AGENTS.writer })).toEqual(["channels.updated Writer #launch"]);
    expect(await types({ actor: "system" })).toEqual(["channels.updated Maestro #launch"]);
    expect(await types({ channelId: secret })).toEqual(["channels.updated Grace #secret", "channels.created Grace #secret"]);
    expect(await types({ channelId: launch, type: "channels.updated", actor: AGENTS.writer })).toEqual(["channels.updated Writer #launch"]);
    expect(await types({ channelId: launch, actor: memberKeyOf(t, "Ada") })).toEqual(["messaging.posted Ada #launch", "messaging.created Ada #launch", "channels.created Ada #launch"]);
    expect(await types({ actor: memberKeyOf(t, "Ada"), type: "messaging.posted" })).toEqual(["messaging.posted Ada #launch"]);
    expect(await types({ actor: "agent:nobody:product" })).toEqual([]);
  });

  test("refused to members, viewers and another department's admin; a bad actor or page size is a clear error", async () => {
    const { departmentId, admin, grace, vera, other, launch } = await busyDepartment();
    await expectError(log(grace, departmentId), "FORBIDDEN");
    await expectError(log(vera, departmentId, { channelId: launch }), "FORBIDDEN");
    await expectError(log(other.member, departmentId), "FORBIDDEN");
    // Their own department's log does not reach this one's channel.
    expect((await log(other.member, other.departmentId, { channelId: launch })).page).toEqual([]);
    await expectError(log(admin, departmentId, { actor: "member:not-an-id" }), "INVALID_ARGUMENT", /names no member/);
    await expectError(log(admin, departmentId, {}, 10_000), "INVALID_ARGUMENT");
  });

  test("narrowed by a correlation id (one delegation's events), alone and with a type or channel; another department's id shows nothing, nor has a trace", async () => {
    const { t, departmentId, admin, grace, vera, launch, other } = await busyDepartment();
    const writer = { kind: "agent" as const, sessionKey: AGENTS.writer, name: "Writer" };
    await t.run(async (ctx) => {
      await emitEvent(ctx, { departmentId, type: "a2a.delegate", actor: writer, correlationId: "a2a:one", data: { title: "Draft" } });
      await emitEvent(ctx, { departmentId, type: "messaging.posted", actor: { kind: "system" }, channelId: launch, correlationId: "a2a:one", data: {} });
      await emitEvent(ctx, { departmentId, type: "a2a.status_update", actor: writer, correlationId: "a2a:one", data: { status: "review" } });
      await emitEvent(ctx, { departmentId, type: "a2a.delegate", actor: writer, correlationId: "a2a:two", data: {} });
      await emitEvent(ctx, { departmentId: other.departmentId, type: "a2a.delegate", actor: writer, correlationId: "a2a:theirs", data: {} });
    });
    const types = async (filter: Filter, who: Actor = admin, department = departmentId) => (await log(who, department, filter)).page.map((e) => `${e.type} ${e.correlationId}`);
    expect(await types({ correlationId: "a2a:one" })).toEqual(["a2a.status_update a2a:one", "messaging.posted a2a:one", "a2a.delegate a2a:one"]);
    expect(await types({ correlationId: "a2a:one", type: "a2a.delegate" })).toEqual(["a2a.delegate a2a:one"]);
    expect(await types({ correlationId: "a2a:one", channelId: launch })).toEqual(["messaging.posted a2a:one"]);
    expect(await types({ correlationId: "a2a:nothing" })).toEqual([]);
    // The attacker's view: another department's id, asked in one's own department or in theirs.
    expect(await types({ correlationId: "a2a:theirs" })).toEqual([]);
    expect(await types({ correlationId: "a2a:one" }, other.member, other.departmentId)).toEqual([]);
    expect(await other.member.query(api.events.trace, { departmentId: other.departmentId, correlationId: "a2a:one" })).toEqual({ events: [], runs: [] });
    await expectError(other.member.query(api.events.trace, { departmentId, correlationId: "a2a:one" }), "FORBIDDEN");
    // Whether a card has a trace (its drawer's link): here yes, another department's id or an unknown one no; members and viewers are refused.
    expect(await admin.query(api.events.hasTrace, { departmentId, correlationId: "a2a:one" })).toBe(true);
    expect(await admin.query(api.events.hasTrace, { departmentId, correlationId: "a2a:theirs" })).toBe(false);
    expect(await admin.query(api.events.hasTrace, { departmentId, correlationId: "a2a:nothing" })).toBe(false);
    expect(await other.member.query(api.events.hasTrace, { departmentId: other.departmentId, correlationId: "a2a:one" })).toBe(false);
    await expectError(other.member.query(api.events.hasTrace, { departmentId, correlationId: "a2a:one" }), "FORBIDDEN");
    await expectError(grace.query(api.events.hasTrace, { departmentId, correlationId: "a2a:one" }), "FORBIDDEN");
    await expectError(vera.query(api.events.hasTrace, { departmentId, correlationId: "a2a:one" }), "FORBIDDEN");
    await expectError(admin.query(api.events.hasTrace, { departmentId, correlationId: "x".repeat(201) }), "INVALID_ARGUMENT", /correlation id/);
    await expectError(log(admin, departmentId, { correlationId: " " }), "INVALID_ARGUMENT", /correlation id/);
    await expectError(log(admin, departmentId, { correlationId: "x".repeat(201) }), "INVALID_ARGUMENT", /correlation id/);
  });
});
