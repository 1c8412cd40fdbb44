/**
 * Who is looking at a department's board now, on the `@convex-dev/presence`
 * component. A room is a department (its id); the person is always the
 * caller, whatever user id the client sends. The functions keep the shapes
 * of the package's client API (heartbeat, list, disconnect); the app's hook
 * is src/shell/useBoardPresence.ts. The room token `heartbeat` hands out is
 * the department's id, and `list` checks the caller's membership on every
 * read, so a removed member (or anyone else holding the token) sees nothing.
 */
import { Presence } from "@convex-dev/presence";
import { v } from "convex/values";
import { components } from "./_generated/api";
import { userMutation, userQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { requireMember } from "./records/members";

const presence = new Presence(components.presence);

/** Heartbeat intervals the client may ask for (ms): a session lapses after 2.5 intervals without one. */
export const MIN_HEARTBEAT_MS = 1_000;
export const MAX_HEARTBEAT_MS = 60_000;
/** A client's session id is a short random string; anything longer is refused. */
export const MAX_SESSION_ID_CHARS = 200;
/** Most people listed per room. */
export const MAX_PRESENT = 50;

/** Joins, or keeps alive, the caller in a department's room; viewers count too. */
export const heartbeat = userMutation({
  args: { roomId: v.string(), userId: v.string(), sessionId: v.string(), interval: v.number() },
  returns: v.object({ roomToken: v.string(), sessionToken: v.string() }),
  handler: async (ctx, { roomId, sessionId, interval }) => {
    const departmentId = ctx.db.normalizeId("departments", roomId);
    if (departmentId === null) throw new MaestroError("NOT_FOUND", "No such department.");
    await requireMember(ctx, departmentId, "viewer", ctx.viewer);
    if (!Number.isFinite(interval) || interval < MIN_HEARTBEAT_MS || interval > MAX_HEARTBEAT_MS) {
      throw new MaestroError("INVALID_ARGUMENT", `The heartbeat interval must be between ${MIN_HEARTBEAT_MS} and ${MAX_HEARTBEAT_MS} ms.`);
    }
    if (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_CHARS) {
      throw new MaestroError("INVALID_ARGUMENT", `A presence session id has 1 to ${MAX_SESSION_ID_CHARS} characters.`);
    }
    const userId = ctx.viewer.user._id;
    // Scoped to the caller, so no one can bump or steal another person's session.
    const { sessionToken } = await presence.heartbeat(ctx, roomId, userId, `${userId}:${sessionId}`, interval);
    // The component's room token would open the room to whoever holds it; ours is the department, checked at every read.
    return { roomToken: departmentId, sessionToken };
  },
});

/**
 * Who is in the department's room (the token `heartbeat` answered), with
 * each person's name, online first; for the department's members only,
 * checked at every read, so a removed member is refused at once.
 */
export const list = userQuery({
  args: { roomToken: v.string() },
  returns: v.array(v.object({ userId: v.string(), online: v.boolean(), lastDisconnected: v.number(), name: v.string() })),
  handler: async (ctx, { roomToken }) => {
    const departmentId = ctx.db.normalizeId("departments", roomToken);
    if (departmentId === null) throw new MaestroError("NOT_FOUND", "No such presence room.");
    await requireMember(ctx, departmentId, "viewer", ctx.viewer);
    const entries = await presence.listRoom(ctx, departmentId, false, MAX_PRESENT);
    const people = [];
    for (const entry of entries) {
      const userId = ctx.db.normalizeId("users", entry.userId);
      const user = userId === null ? null : await ctx.db.get("users", userId);
      if (user === null) continue;
      people.push({ userId: entry.userId, online: entry.online, lastDisconnected: entry.lastDisconnected, name: user.name ?? user.email ?? "Someone" });
    }
    return people;
  },
});

/** Leaves the room (the tab went away); the session token says which session, and only its holder has it. */
export const disconnect = userMutation({
  args: { sessionToken: v.string() },
  returns: v.null(),
  handler: async (ctx, { sessionToken }) => {
    await presence.disconnect(ctx, sessionToken);
    return null;
  },
});
