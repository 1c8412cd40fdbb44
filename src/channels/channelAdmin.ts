// What the channel's details offer: who can still be added, and how a change reads once done.

/** Someone of the department who could take part in a channel: a person (`member:<userId>`) or an agent (its sessionKey). */
export type Candidate = { key: string; name: string; kind: "person" | "agent" };

/**
 * The people and agents not yet in the channel, people first, each group by
 * name, so the picker offers only what `channels.addMember` will accept.
 */
export function addableCandidates(
  people: ReadonlyArray<{ key: string; name: string }>,
  agents: ReadonlyArray<{ sessionKey: string; name: string }>,
  memberKeys: ReadonlyArray<string>,
): Candidate[] {
  const taken = new Set(memberKeys);
  const byName = (a: Candidate, b: Candidate) => a.name.localeCompare(b.name);
  return [
    ...people.filter((p) => !taken.has(p.key)).map((p): Candidate => ({ key: p.key, name: p.name, kind: "person" })).sort(byName),
    ...agents.filter((a) => !taken.has(a.sessionKey)).map((a): Candidate => ({ key: a.sessionKey, name: a.name, kind: "agent" })).sort(byName),
  ];
}

/** A change to a channel, as the details dialog announces it once the server took it. */
export type ChannelChange = { kind: "added" | "removed"; name: string } | { kind: "topic"; topic: string };

export function changeAnnouncement(channel: string, change: ChannelChange): string {
  if (change.kind === "topic") return change.topic.trim() === "" ? `The topic of ${channel} was cleared.` : `The topic of ${channel} was changed.`;
  return change.kind === "added" ? `${change.name} was added to ${channel}.` : `${change.name} was removed from ${channel}.`;
}
