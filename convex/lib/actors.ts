import type { Doc } from "../_generated/dataModel";
import type { Actor } from "../validators";

export function memberActor(member: Doc<"members">): Actor {
  return { kind: "member", tokenIdentifier: member.tokenIdentifier, name: member.name };
}

export function agentActor(agent: Doc<"agents">): Actor {
  return { kind: "agent", sessionKey: agent.sessionKey, name: agent.name };
}

/** The key notifications use for a member. */
export function memberKey(tokenIdentifier: string): string {
  return `member:${tokenIdentifier}`;
}

/** A short display name for an actor, for feeds and logs. */
export function actorName(actor: Actor): string {
  return actor.kind === "system" ? "Maestro" : actor.name;
}
