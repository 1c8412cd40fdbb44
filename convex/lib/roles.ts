/** Roles per department, as plain rules: which is stronger, and how a refusal names who may. */
import { MEMBER_ROLES, type MemberRole } from "../validators";

export type Role = MemberRole;

/** True when `role` is at least as strong as `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  return MEMBER_ROLES.indexOf(role) <= MEMBER_ROLES.indexOf(needed);
}

/** Who may do something that needs `role`, in a refusal's words. */
export const ROLE_WORDS: Record<Role, string> = {
  owner: "the department's owners",
  admin: "owners and admins",
  member: "members (viewers can only read)",
  viewer: "members",
};
