/**
 * How fast the demo model streams, so a person can watch the squad work:
 * `npm start` paces every reply (MAESTRO_DEMO_PACE_MS between pieces of
 * about 12 characters, 80 ms by default: a reply takes a second or two, and
 * a delegation a few seconds end to end); tests start it unpaced (0, instant).
 * A request to take it slowly is slower still, whatever the setting.
 */

/** Between streamed pieces of an ordinary reply under `npm start`, unless MAESTRO_DEMO_PACE_MS says otherwise. */
export const DEFAULT_PACE_MS = 80;
/** The most MAESTRO_DEMO_PACE_MS may ask for: slower than this is no demo. */
export const MAX_PACE_MS = 2_000;

/** MAESTRO_DEMO_PACE_MS read: a whole number of milliseconds from 0 to MAX_PACE_MS; unset is the default; anything else throws with what is wrong. */
export function paceFromEnv(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_PACE_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_PACE_MS) throw new Error(`MAESTRO_DEMO_PACE_MS must be a whole number of milliseconds from 0 to ${MAX_PACE_MS}, not ${JSON.stringify(value)}.`);
  return ms;
}

/** The wait between pieces of one reply: the slow pace when asked for it, else the configured pace. */
export function replyPaceMs(slowPaceMs: number, paceMs: number): number {
  return slowPaceMs > 0 ? Math.max(slowPaceMs, paceMs) : paceMs;
}
