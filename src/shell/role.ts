import { createContext, useContext } from "react";
import type { MemberRole } from "../../convex/validators";

/**
 * The signed-in person's role in the department on screen. The server
 * enforces every role; the UI uses it to offer only what will be allowed.
 * Outside a department (tests of single components) it reads as a member.
 */
export const RoleContext = createContext<MemberRole>("member");

export function useRole(): MemberRole {
  return useContext(RoleContext);
}

export function isAdminRole(role: MemberRole): boolean {
  return role === "owner" || role === "admin";
}

/** Whether the role may change the board, threads and chat (viewers only read). */
export function canWrite(role: MemberRole): boolean {
  return role !== "viewer";
}

/** What a viewer sees where others have a composer. */
export const VIEWER_NOTE = "Viewers can read but not post.";
