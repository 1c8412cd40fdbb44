/**
 * Resolving the agent names a model writes ("dev_bot", "@Dev-Bot", "DEV BOT",
 * "the copywriter") to agents of one department. Case, diacritics and
 * spaces/underscores/hyphens do not matter; a role resolves only when exactly
 * one agent has it. Anything else fails with the closest roster names, so a
 * delegation is never routed to the wrong agent.
 */

export interface RosterEntry {
  name: string;
  role: string;
  sessionKey: string;
}

export interface NameResolution {
  resolved: RosterEntry[];
  unknown: Array<{ requested: string; suggestions: string[] }>;
}

/** "  @Dev_Bot " → "dev bot" */
export function normalizeName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/^[\s@]+/, "")
    .replace(/[\s_\-.]+/g, " ")
    .trim()
    .replace(/^the /, "");
}

/** Resolves each requested name once; duplicates (after normalising) collapse. */
export function resolveAgentNames(requested: string[], roster: RosterEntry[]): NameResolution {
  const byName = new Map(roster.map((agent) => [normalizeName(agent.name), agent]));
  const byRole = new Map<string, RosterEntry[]>();
  for (const agent of roster) {
    const role = normalizeName(agent.role);
    byRole.set(role, [...(byRole.get(role) ?? []), agent]);
  }
  const resolved = new Map<string, RosterEntry>();
  const unknown: NameResolution["unknown"] = [];
  const seenUnknown = new Set<string>();
  for (const raw of requested) {
    const key = normalizeName(raw);
    const agent = byName.get(key) ?? (byRole.get(key)?.length === 1 ? byRole.get(key)![0] : undefined);
    if (agent !== undefined) {
      resolved.set(agent.sessionKey, agent);
    } else if (!seenUnknown.has(key)) {
      seenUnknown.add(key);
      unknown.push({ requested: raw, suggestions: suggestNames(key, roster) });
    }
  }
  return { resolved: [...resolved.values()], unknown };
}

/** Most words one agent's name is looked for in (names are short). */
const MAX_NAME_WORDS = 6;

/**
 * Reads agent names off the front of a command's argument words, each the
 * longest run of words that names an agent (or, alone, a role), so
 * `/assign Dev Bot` is one agent, not "Dev" and "Bot". A word that starts no
 * name stands alone (the caller reports it unknown). Takes at most `max`
 * names; `rest` is the words after them (a /delegate's title).
 */
export function agentNamesIn(words: readonly string[], roster: readonly RosterEntry[], max = Number.POSITIVE_INFINITY): { names: string[]; rest: string[] } {
  const known = new Set(roster.map((agent) => normalizeName(agent.name)));
  const roles = new Map<string, number>();
  for (const agent of roster) roles.set(normalizeName(agent.role), (roles.get(normalizeName(agent.role)) ?? 0) + 1);
  const names: string[] = [];
  let at = 0;
  while (at < words.length && names.length < max) {
    let end = at + 1;
    for (let j = Math.min(words.length, at + MAX_NAME_WORDS); j > at; j--) {
      const key = normalizeName(words.slice(at, j).join(" "));
      if (known.has(key) || roles.get(key) === 1) {
        end = j;
        break;
      }
    }
    names.push(words.slice(at, end).join(" "));
    at = end;
  }
  return { names, rest: words.slice(at) };
}

/** Up to three roster names closest to `key`: the agents whose role it names, else the nearest names or roles. */
export function suggestNames(key: string, roster: RosterEntry[]): string[] {
  const byRole = roster.filter((agent) => {
    const role = normalizeName(agent.role);
    return role === key || role.includes(key) || (key.length > 2 && key.includes(role));
  });
  if (byRole.length > 0) return byRole.map((a) => a.name).sort((a, b) => a.localeCompare(b)).slice(0, 3);
  const limit = Math.max(2, Math.floor(key.length / 3));
  return roster
    .map((agent) => ({
      agent,
      distance: Math.min(editDistance(key, normalizeName(agent.name)), editDistance(key, normalizeName(agent.role))),
    }))
    .filter((s) => s.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.agent.name.localeCompare(b.agent.name))
    .slice(0, 3)
    .map((s) => s.agent.name);
}

/** Levenshtein distance, O(a·b) on short names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
