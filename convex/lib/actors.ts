/** Who did something, as values: a member, an agent or Maestro, with the keys and names the rest of Maestro uses for them. */
import type { Doc, Id } from "../_generated/dataModel";
import type { Actor } from "../validators";

export function memberActor(member: Doc<"members">): Actor {
  return { kind: "member", userId: member.userId, name: member.name };
}

export function agentActor(agent: Doc<"agents">): Actor {
  return { kind: "agent", sessionKey: agent.sessionKey, name: agent.name };
}

/** The key notifications and mentions use for a member. */
export function memberKey(userId: Id<"users">): string {
  return `member:${userId}`;
}

/** A short display name for an actor, for feeds and logs. */
export function actorName(actor: Actor): string {
  return actor.kind === "system" ? "Maestro" : actor.name;
}

/** The inbox, membership and mention key of an actor (an agent's sessionKey, `member:<userId>`); null for Maestro itself. */
export function actorKey(actor: Actor): string | null {
  if (actor.kind === "member") return memberKey(actor.userId);
  if (actor.kind === "agent") return actor.sessionKey;
  return null;
}
