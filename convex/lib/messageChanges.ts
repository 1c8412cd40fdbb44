/**
 * Who may edit or delete a message, as plain rules: its author edits it
 * (people only: agents' words are theirs), its author or an owner or admin
 * deletes it, and a deleted message stays deleted.
 */
import { hasRole, type Role } from "./roles";
import type { Actor } from "../validators";

/** What agents and screens read for a deleted message, whose text is gone. */
export const DELETED_BODY = "(message deleted)";

type Changeable = { deletedAt?: number };

function writtenBy(author: Actor, userId: string): boolean {
  return author.kind === "member" && author.userId === userId;
}

/** Why `userId` may not edit a message by `author`, or null when they may. */
export function editRefusal(message: Changeable, author: Actor, userId: string): string | null {
  if (message.deletedAt !== undefined) return "That message was deleted.";
  if (!writtenBy(author, userId)) return "Only its author can edit a message.";
  return null;
}

/** Why `userId` (with `role` in the department) may not delete a message by `author`, or null when they may. */
export function deleteRefusal(message: Changeable, author: Actor, userId: string, role: Role): string | null {
  if (message.deletedAt !== undefined) return "That message was already deleted.";
  if (!writtenBy(author, userId) && !hasRole(role, "admin")) return "Only its author, or an owner or admin, can delete a message.";
  return null;
}

/** A message's text as agents read it: the current text, or a note that it was deleted. */
export function currentBody(message: { body: string } & Changeable): string {
  return message.deletedAt === undefined ? message.body : DELETED_BODY;
}
