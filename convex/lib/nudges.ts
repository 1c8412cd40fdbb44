/** What a run that ends says to its agent about messages that arrived while it worked. */

/** Senders a nudge names before "and others". */
const NUDGE_NAMES = 3;

/** The nudge's words: how many arrived, from whom and where. */
export function nudgeNote(arrivals: ReadonlyArray<{ from: string; where: string }>): string {
  const senders = [...new Set(arrivals.map((a) => `${a.from} in ${a.where}`))];
  const named = senders.slice(0, NUDGE_NAMES).join("; ");
  const more = senders.length > NUDGE_NAMES ? `; and ${senders.length - NUDGE_NAMES} more` : "";
  return `While you worked, ${arrivals.length} message${arrivals.length === 1 ? "" : "s"} arrived for you (${named}${more}).`;
}
