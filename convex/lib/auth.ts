import type { UserIdentity } from "convex/server";
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "./errors";

type ReadCtx = QueryCtx | MutationCtx;

/** The signed-in caller, or null. Identity only ever comes from `ctx.auth`. */
export async function getViewer(ctx: ReadCtx): Promise<UserIdentity | null> {
  return await ctx.auth.getUserIdentity();
}

/** The signed-in caller; throws UNAUTHENTICATED otherwise. */
export async function getViewerX(ctx: ReadCtx): Promise<UserIdentity> {
  const identity = await getViewer(ctx);
  if (identity === null) {
    throw new MaestroError("UNAUTHENTICATED", "Sign in to continue.");
  }
  return identity;
}

/** The caller's membership of a department, or null when they are not in it. */
export async function getMembership(
  ctx: ReadCtx,
  departmentId: Id<"departments">,
): Promise<Doc<"members"> | null> {
  const identity = await getViewer(ctx);
  if (identity === null) return null;
  return await ctx.db
    .query("members")
    .withIndex("by_department_and_tokenIdentifier", (q) =>
      q.eq("departmentId", departmentId).eq("tokenIdentifier", identity.tokenIdentifier),
    )
    .unique();
}

/**
 * The caller's membership of a department; throws UNAUTHENTICATED without a
 * sign-in and FORBIDDEN for a department they do not belong to (which also
 * covers ids that do not exist, so ids of other departments reveal nothing).
 */
export async function getMembershipX(
  ctx: ReadCtx,
  departmentId: Id<"departments">,
): Promise<Doc<"members">> {
  await getViewerX(ctx);
  const membership = await getMembership(ctx, departmentId);
  if (membership === null) {
    throw new MaestroError("FORBIDDEN", "You are not a member of this department.");
  }
  return membership;
}
