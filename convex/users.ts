/** The signed-in person: who they are, their password, their first visit through an external provider. */
import { invalidateSessions, modifyAccountCredentials, retrieveAccount } from "@convex-dev/auth/server";
import { v } from "convex/values";
import { internalQuery } from "./_generated/server";
import { identityMutation, publicQuery, userAction, userQuery } from "./functions";
import { cleanPersonName, passwordProblem } from "./lib/accounts";
import { MaestroError } from "./lib/errors";
import { checkSetupPassword, claimOwnership, needsOwner } from "./records/accounts";
import { getViewer, insertExternalUser, userByToken } from "./records/viewer";

const vViewer = v.object({ _id: v.id("users"), name: v.string(), email: v.union(v.string(), v.null()) });

export const me = userQuery({
  args: {},
  returns: vViewer,
  handler: async (ctx) => ({ _id: ctx.viewer.user._id, name: ctx.viewer.name, email: ctx.viewer.user.email ?? null }),
});

/**
 * Whether the caller's session still exists: false once it was ended on the
 * server (a password reset or change elsewhere, sign-out everywhere), while
 * the token itself has not expired yet. The app signs out on false instead
 * of showing every panel's refusal.
 */
export const sessionLive = publicQuery({
  args: {},
  returns: v.boolean(),
  handler: async (ctx) => (await getViewer(ctx)) !== null,
});

/** For userAction: the caller as `me` sees them, with their session, or null. */
export const viewerForAction = internalQuery({
  args: {},
  returns: v.union(
    v.object({ _id: v.id("users"), name: v.string(), email: v.union(v.string(), v.null()), sessionId: v.union(v.id("authSessions"), v.null()) }),
    v.null(),
  ),
  handler: async (ctx) => {
    const viewer = await getViewer(ctx);
    if (viewer === null) return null;
    return { _id: viewer.user._id, name: viewer.name, email: viewer.user.email ?? null, sessionId: viewer.sessionId };
  },
});

/**
 * An external provider's person (Clerk) on their first visit: a user row
 * keyed by their tokenIdentifier. The first person of a deployment with no
 * owner becomes its owner (with the setup password when one is configured),
 * as the email owner setup does; anyone after belongs to no department until
 * they accept an invite. Returns their user id.
 */
export const ensureExternal = identityMutation({
  args: {
    /** The setup (WebUI) password, for the first person of a deployment with no owner when one is configured. */
    setupPassword: v.optional(v.string()),
  },
  returns: v.id("users"),
  handler: async (ctx, { setupPassword }) => {
    const { identity } = ctx;
    // A Convex Auth account already has its row.
    const viewer = await getViewer(ctx);
    if (viewer !== null) return viewer.user._id;
    const existing = await userByToken(ctx, identity.tokenIdentifier);
    if (existing !== null) return existing._id;
    if (identity.subject.includes("|")) throw new MaestroError("UNAUTHENTICATED", "This session has ended; sign in again.");
    const name = cleanPersonName(identity.name ?? identity.nickname ?? identity.email ?? "Human");
    // The first person of a deployment with no owner goes through the same owner setup as an email account.
    const owner = await needsOwner(ctx);
    if (owner) checkSetupPassword(setupPassword);
    const userId = await insertExternalUser(ctx, identity.tokenIdentifier, name, identity.email);
    if (owner) await claimOwnership(ctx, userId, name);
    return userId;
  },
});

/**
 * Changes the caller's password after checking the current one, and ends
 * every other session (other browsers are signed out at once).
 */
export const changePassword = userAction({
  args: { currentPassword: v.string(), newPassword: v.string() },
  returns: v.null(),
  handler: async (ctx, { currentPassword, newPassword }) => {
    const { viewer } = ctx;
    if (viewer.email === null || viewer.sessionId === null) {
      throw new MaestroError("INVALID_ARGUMENT", "Your account's password is managed by your sign-in provider.");
    }
    const problem = passwordProblem(newPassword);
    if (problem !== null) throw new MaestroError("INVALID_ARGUMENT", problem);
    const account = { id: viewer.email, secret: currentPassword };
    const found = await retrieveAccount(ctx, { provider: "password", account }).catch(() => null);
    if (found === null || found.user._id !== viewer._id) throw new MaestroError("FORBIDDEN", "Your current password is not right.");
    await modifyAccountCredentials(ctx, { provider: "password", account: { id: viewer.email, secret: newPassword } });
    await invalidateSessions(ctx, { userId: viewer._id, except: [viewer.sessionId] });
    return null;
  },
});
