import { serverError } from "../lib/errors";

/** What the pane shows when chat is off; the same words the server uses (CHAT_DISABLED in convex/chat.ts). */
export const CHAT_DISABLED_TEXT = "Chat disabled by configuration";

/** The one author name people post under from the WebUI. */
export const HUMAN_AUTHOR = "@human";

/** Whether a message came from a person (`@human`) or an agent (anything else). */
export function authorKind(author: string): "human" | "agent" {
  return author === HUMAN_AUTHOR ? "human" : "agent";
}

/** Whether `error` is the server saying chat is off (settings changed under a live pane). */
export function isChatDisabledError(error: unknown): boolean {
  return serverError(error)?.message === CHAT_DISABLED_TEXT;
}

const timeOnly = new Intl.DateTimeFormat("en", { hour: "numeric", minute: "2-digit" });
const dateAndTime = new Intl.DateTimeFormat("en", { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
const full = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });

/**
 * A message's time for the timeline: the clock time today, with the date
 * before that. A malformed timestamp is shown as it came.
 */
export function formatChatTime(ts: string, now: number): { short: string; full: string } {
  const time = Date.parse(ts);
  if (Number.isNaN(time)) return { short: ts, full: ts };
  const sameDay = new Date(time).toDateString() === new Date(now).toDateString();
  return { short: (sameDay ? timeOnly : dateAndTime).format(time), full: full.format(time) };
}

/** A piece of a chat message's text: plain, or an @mention of one of `names` (highlighted as threads highlight theirs). */
export type TextPart = { text: string; mention: boolean };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Splits `text` into plain parts and `@Name` mentions of `names` (any case;
 * the longest name wins, so "@Dev Bot" is one mention; a name must end at a
 * word's end, so "@Devon" is no "@Dev").
 */
export function mentionParts(text: string, names: readonly string[]): TextPart[] {
  const usable = [...new Set(names.filter((n) => n.trim() !== ""))].sort((a, b) => b.length - a.length);
  if (usable.length === 0 || !text.includes("@")) return [{ text, mention: false }];
  const pattern = new RegExp(`@(?:${usable.map(escapeRegExp).join("|")})(?![\\p{L}\\p{N}_])`, "giu");
  const parts: TextPart[] = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index), mention: false });
    parts.push({ text: match[0], mention: true });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), mention: false });
  return parts;
}
