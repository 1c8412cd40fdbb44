import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { MAX_HEARTBEAT_MS } from "../../convex/presence";
import { demoSquad, expectError, signIn, userIdOf } from "./setup";

describe("presence on the board", () => {
  test("a member's heartbeat puts them in their department's room, by name, whatever user id the client sends", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const vera = await signIn(t, "Vera", "viewer");
    const { roomToken } = await admin.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "someone-else", sessionId: "s1", interval: 10_000 });
    await vera.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "ignored", sessionId: "s2", interval: 10_000 });
    const present = await vera.query(api.presence.list, { roomToken });
    expect(present.map((p) => [p.name, p.online, p.userId]).sort()).toEqual(
      [
        ["Ada", true, userIdOf(t, "Ada")],
        ["Vera", true, userIdOf(t, "Vera")],
      ].sort(),
    );
  });

  test("leaving with the session token marks the person offline; a wrong token does nothing", async () => {
    const { departmentId, admin } = await demoSquad();
    const { roomToken, sessionToken } = await admin.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s1", interval: 10_000 });
    expect(await admin.mutation(api.presence.disconnect, { sessionToken: "nope" })).toBeNull();
    expect((await admin.query(api.presence.list, { roomToken }))[0].online).toBe(true);
    await admin.mutation(api.presence.disconnect, { sessionToken });
    expect((await admin.query(api.presence.list, { roomToken }))[0].online).toBe(false);
  });

  test("someone from another department, a bad room, a bad interval or session id are refused", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    await expectError(other.member.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s", interval: 10_000 }), "FORBIDDEN");
    await expectError(admin.mutation(api.presence.heartbeat, { roomId: "not-an-id", userId: "", sessionId: "s", interval: 10_000 }), "NOT_FOUND");
    await expectError(admin.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s", interval: MAX_HEARTBEAT_MS + 1 }), "INVALID_ARGUMENT");
    await expectError(admin.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "", interval: 10_000 }), "INVALID_ARGUMENT");
    await expectError(t.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s", interval: 10_000 }), "UNAUTHENTICATED");
  });

  test("a removed member, or someone of another department holding the token, is refused the room's list", async () => {
    const { t, departmentId, admin, other } = await demoSquad({ other: true });
    const grace = await signIn(t, "Grace");
    const { roomToken } = await admin.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s1", interval: 10_000 });
    await grace.mutation(api.presence.heartbeat, { roomId: departmentId, userId: "", sessionId: "s2", interval: 10_000 });
    expect((await grace.query(api.presence.list, { roomToken })).map((p) => p.name).sort()).toEqual(["Ada", "Grace"]);
    // Mallory of the other department got hold of the token: refused.
    await expectError(other.member.query(api.presence.list, { roomToken }), "FORBIDDEN");
    const graceMember = await t.run(async (ctx) => (await ctx.db.query("members").collect()).find((m) => m.name === "Grace" && m.departmentId === departmentId)!._id);
    await admin.mutation(api.members.remove, { memberId: graceMember });
    // Her next read of the same query (a subscription re-runs on the membership change) is refused.
    await expectError(grace.query(api.presence.list, { roomToken }), "FORBIDDEN");
    await expectError(grace.query(api.presence.list, { roomToken: "not-a-room" }), "NOT_FOUND");
  });
});
