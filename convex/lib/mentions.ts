/**
 * `@Name` mentions in thread messages. Names may have several words
 * ("@Dev Bot"); matching is case-insensitive and prefers the longest name, a
 * mention must start the text or follow a non-word character (so e-mail
 * addresses are not mentions) and end at a word boundary, and nothing inside
 * inline code or fenced code blocks counts. Unknown names stay plain text.
 */

export interface MentionCandidate {
  /** Stable key of the mentionable: an agent's sessionKey or `member:<userId>`. */
  key: string;
  name: string;
}

export interface ResolvedMention extends MentionCandidate {
  /** Offset of the `@` in the message. */
  index: number;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Ranges [start, end) covered by fenced code blocks and inline code spans. */
export function codeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const fence = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g;
  for (const match of text.matchAll(fence)) ranges.push([match.index, match.index + match[0].length]);
  const inside = (i: number) => ranges.some(([s, e]) => i >= s && i < e);
  // Inline code: a run of backticks closed by the same run (CommonMark's rule).
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "`" || inside(i)) {
      i++;
      continue;
    }
    let run = 0;
    while (text[i + run] === "`") run++;
    const ticks = "`".repeat(run);
    let close = text.indexOf(ticks, i + run);
    while (close !== -1 && text[close + run] === "`") close = text.indexOf(ticks, close + run + 1);
    if (close === -1) {
      i += run;
      continue;
    }
    ranges.push([i, close + run]);
    i = close + run;
  }
  return ranges;
}

/** Every distinct mentionable mentioned in `text`, in order of first mention. */
export function parseMentions(text: string, candidates: MentionCandidate[]): ResolvedMention[] {
  // Longest names first, so "@Dev Bot" wins over an agent called "Dev". A
  // blank name would turn any lone "@" into a mention.
  const sorted = candidates.filter((c) => c.name.trim() !== "").sort((a, b) => b.name.length - a.name.length);
  const code = codeRanges(text);
  const found = new Map<string, ResolvedMention>();
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
    if (at > 0 && WORD_CHAR.test(text[at - 1])) continue;
    if (code.some(([s, e]) => at >= s && at < e)) continue;
    for (const candidate of sorted) {
      // Compare slice by slice: lower-casing the whole text can change its
      // length ("İ" becomes two code units) and shift every later offset.
      const end = at + 1 + candidate.name.length;
      if (text.slice(at + 1, end).toLowerCase() !== candidate.name.toLowerCase()) continue;
      const after = text[end];
      if (after !== undefined && WORD_CHAR.test(after)) continue;
      if (!found.has(candidate.key)) found.set(candidate.key, { ...candidate, index: at });
      break;
    }
  }
  return [...found.values()];
}
