/** @mention autocomplete for the composer: pure text helpers, no React. */

/** Someone who can be @mentioned: an agent or a member of the department. */
export type MentionCandidate = {
  /** Agent session key or member key; unique across both. */
  key: string;
  name: string;
  kind: "agent" | "member";
  /** A second line in the list: the agent's role, or "Member". */
  detail: string;
};

/** An `@` being typed: where it starts and what follows it up to the caret. */
export type MentionQuery = { start: number; query: string };

/** Longest run after `@` that still counts as a name being typed ("@Dev Bot Jr"). */
const MAX_QUERY_CHARS = 40;
/** Most suggestions the list shows. */
export const MAX_SUGGESTIONS = 8;

const WORD_CHAR = /[\p{L}\p{N}_]/u;
// Names may hold letters, digits, spaces and a little punctuation ("Dev Bot", "Ana-Lu O'Neil").
const NAME_CHARS = /^[\p{L}\p{N}_ .'-]*$/u;

/**
 * The mention being typed at `caret`, or null. As on the server, an `@` counts
 * only at the start or after a non-word character (so e-mail addresses don't
 * trigger it), and the text after it must look like the start of a name.
 */
export function findMentionQuery(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf("@");
  if (start === -1) return null;
  if (start > 0 && WORD_CHAR.test(before[start - 1])) return null;
  const query = before.slice(start + 1);
  if (query.length > MAX_QUERY_CHARS || !NAME_CHARS.test(query)) return null;
  // "@ " or "@Dev  " (two spaces) is someone typing on, not a name.
  if (query.startsWith(" ") || query.includes("  ")) return null;
  return { start, query };
}

/**
 * Candidates whose name starts with the query, then those with a later word
 * that starts with it, case-insensitively; each group by name. At most
 * `MAX_SUGGESTIONS`.
 */
export function matchCandidates(candidates: readonly MentionCandidate[], query: string): MentionCandidate[] {
  const q = query.toLocaleLowerCase();
  const prefix: MentionCandidate[] = [];
  const word: MentionCandidate[] = [];
  for (const candidate of candidates) {
    const name = candidate.name.toLocaleLowerCase();
    if (name.startsWith(q)) prefix.push(candidate);
    else if (q !== "" && name.split(/\s+/).some((part, i) => i > 0 && part.startsWith(q))) word.push(candidate);
  }
  const byName = (a: MentionCandidate, b: MentionCandidate) => a.name.localeCompare(b.name);
  return [...prefix.sort(byName), ...word.sort(byName)].slice(0, MAX_SUGGESTIONS);
}

/** The text with the typed mention replaced by `@Full Name ` and the caret just after it. */
export function insertMention(text: string, caret: number, mention: MentionQuery, name: string): { text: string; caret: number } {
  const inserted = `@${name} `;
  // Don't double the space when one already follows the caret.
  const rest = text.slice(caret).replace(/^ /, "");
  return { text: text.slice(0, mention.start) + inserted + rest, caret: mention.start + inserted.length };
}
