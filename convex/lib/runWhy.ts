/**
 * A run's "why you are here" when more than one request reached it before it
 * started: the trigger it was started for, then every request folded into it
 * while it was still queued, in the order they arrived, so each one gets an
 * answer (not only the first). The folded requests share a token budget; the
 * ones past it are counted, not quoted (the thread and the messages for the
 * agent still hold them). Each line is built by the brain (brain/context)
 * with its untrusted text already framed (lib/untrusted), so a request can
 * never start a line of its own here.
 */
import { countTokens } from "./tokens";

/** The line between the first request and the ones folded in after it; it stands alone on its line. */
export const FOLDED_WHY_HEAD = "More requests reached you before this run started, in the order they arrived. Answer each of them as well as the first, not only the first:";
/** Tokens the folded requests may take together in a run's "why". */
export const FOLDED_WHY_TOKENS = 1000;
/** Longest part of one folded request quoted in a run's "why" (characters); the rest is in the thread. */
export const FOLDED_QUOTE_CHARS = 1500;

/** `text` cut to `max` characters, with a mark where it was cut. */
export function cutQuote(text: string, max = FOLDED_QUOTE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The "why" of a run: `first`, then (when any) the folded requests' lines
 * under `FOLDED_WHY_HEAD`, oldest first, as many as fit `budget` tokens; a
 * last line counts those left out.
 */
export function whyWithFolded(first: string, folded: readonly string[], budget = FOLDED_WHY_TOKENS): string {
  if (folded.length === 0) return first;
  const kept: string[] = [];
  let used = 0;
  for (const line of folded) {
    const cost = countTokens(line) + 1;
    if (used + cost > budget) break;
    kept.push(line);
    used += cost;
  }
  const left = folded.length - kept.length;
  return [first, FOLDED_WHY_HEAD, ...kept, ...(left > 0 ? [`(${left} more arrived too and are not quoted here: read them in the thread or the messages for you.)`] : [])].join("\n");
}
