/**
 * Rules for channels and DMs that need no database: names, DM keys, who may
 * read a conversation and who a new message reaches. Keys are an agent's
 * sessionKey or `member:<userId>` everywhere (mentions, inbox, membership).
 */
import { MaestroError } from "./errors";

export const CHANNEL_LIMITS = {
  nameChars: 40,
  topicChars: 250,
  membersPerChannel: 200,
  dmParticipants: 9,
  artifactsPerMessage: 10,
  urlChars: 2_000,
  /** Most channels a department lists. */
  channelsPerDepartment: 500,
} as const;

/** The chat table's special channel; a channel may not take its name. */
export const RESERVED_CHANNEL_NAMES = new Set(["maestro"]);

/**
 * A channel name as Slack writes them: lower case, letters, digits, `-` and
 * `_`, spaces turned into `-`, a leading `#` dropped.
 */
export function normalizeChannelName(raw: string): string {
  const name = raw.trim().replace(/^#/, "").trim().toLowerCase().replace(/\s+/g, "-");
  if (name === "") throw new MaestroError("INVALID_ARGUMENT", "A channel needs a name.");
  if (name.length > CHANNEL_LIMITS.nameChars) {
    throw new MaestroError("INVALID_ARGUMENT", `A channel name is at most ${CHANNEL_LIMITS.nameChars} characters.`);
  }
  if (!/^[\p{Ll}\p{Lo}\p{N}][\p{Ll}\p{Lo}\p{N}_-]*$/u.test(name)) {
    throw new MaestroError("INVALID_ARGUMENT", "A channel name may hold letters, digits, '-' and '_', and starts with a letter or digit.");
  }
  if (RESERVED_CHANNEL_NAMES.has(name)) throw new MaestroError("CONFLICT", `#${name} is the squad chat; pick another name.`);
  return name;
}

export function isMemberKey(key: string): boolean {
  return key.startsWith("member:");
}

/**
 * The one key of a DM between these participants (order and repeats do not
 * matter). The delegation spec forbids private agent-to-agent talk, so a DM
 * needs a person in it.
 */
export function dmKey(participantKeys: readonly string[]): string {
  const keys = [...new Set(participantKeys)].sort();
  if (keys.length < 2) throw new MaestroError("INVALID_ARGUMENT", "A DM needs at least one other participant.");
  if (keys.length > CHANNEL_LIMITS.dmParticipants) {
    throw new MaestroError("INVALID_ARGUMENT", `A DM has at most ${CHANNEL_LIMITS.dmParticipants} participants.`);
  }
  if (!keys.some(isMemberKey)) {
    throw new MaestroError("INVALID_ARGUMENT", "Agents do not DM each other: their work stays in public tasks and channels.");
  }
  return keys.join(",");
}

export interface ConversationAccess {
  kind: "channel" | "dm";
  visibility: "project" | "private";
  archivedAt?: number;
}

/** May someone of the department read this conversation? Project channels: everyone; private ones and DMs: their members. */
export function canRead(channel: ConversationAccess, isMember: boolean): boolean {
  return channel.kind === "channel" && channel.visibility === "project" ? true : isMember;
}

/**
 * May the department-wide activity feed quote this conversation's words? Only
 * where everyone in the department may read them: a DM or a private channel
 * is named, never quoted.
 */
export function feedMayQuote(channel: ConversationAccess): boolean {
  return canRead(channel, false);
}

/** Why a post is refused, or null: only readers post, and an archived channel takes no new messages. */
export function postRefusal(channel: ConversationAccess & { name: string }, isMember: boolean): string | null {
  if (!canRead(channel, isMember)) return "Only this conversation's members can post in it.";
  if (channel.archivedAt !== undefined) return `#${channel.name} is archived; unarchive it to post.`;
  return null;
}

export interface Recipient {
  key: string;
  direct: boolean;
}

/**
 * Whose inbox a new message reaches, the sender excluded: a DM reaches every
 * participant directly; a channel message reaches subscribers, and whoever
 * it mentions directly (in a private channel only its members); a thread
 * reply reaches the thread's participants and whoever it mentions.
 */
export function recipientsOf(input: {
  sender: string;
  kind: "channel" | "dm";
  visibility: "project" | "private";
  members: ReadonlyArray<{ key: string; subscribed: boolean }>;
  mentioned: readonly string[];
  threadParticipants?: readonly string[];
}): Recipient[] {
  const memberKeys = new Set(input.members.map((m) => m.key));
  const out = new Map<string, boolean>();
  const add = (key: string, direct: boolean) => {
    if (key === input.sender) return;
    out.set(key, (out.get(key) ?? false) || direct);
  };
  if (input.kind === "dm") {
    for (const m of input.members) add(m.key, true);
    return [...out].map(([key, direct]) => ({ key, direct }));
  }
  if (input.threadParticipants !== undefined) {
    for (const key of input.threadParticipants) add(key, false);
  } else {
    for (const m of input.members) if (m.subscribed) add(m.key, false);
  }
  for (const key of input.mentioned) {
    if (input.visibility === "private" && !memberKeys.has(key)) continue;
    add(key, true);
  }
  return [...out].map(([key, direct]) => ({ key, direct }));
}

/** A link artifact's URL: http(s) only, bounded, so nothing like `javascript:` is ever rendered as a link. */
export function cleanUrl(raw: string): string {
  const url = raw.trim();
  if (url.length > CHANNEL_LIMITS.urlChars) throw new MaestroError("INVALID_ARGUMENT", `A link is at most ${CHANNEL_LIMITS.urlChars} characters.`);
  if (!/^https?:\/\/[^\s]+$/i.test(url)) throw new MaestroError("INVALID_ARGUMENT", "A link must start with http:// or https://.");
  return url;
}
