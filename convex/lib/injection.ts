/**
 * The prompt-injection budget (messaging spec, "Prompt Injection Policy"):
 * what arrived for an agent — inbox, channels, threads — is packed into at
 * most `budget` tokens, counted with the real tokenizer. Order: critical >
 * high > direct mentions and DMs > messages about the current task or batch
 * > the most recent. Threads that do not fit whole are summarised
 * (extractively, deterministic, when no summariser model is configured).
 * Critical messages and direct mentions are never silently dropped: when
 * even their shortest form does not fit, the footer says how many were left
 * out and names the handles (`inbox.read`, `messages.fetch`) to fetch them.
 */
import { countTokens, truncateToTokens } from "./tokens";
import { redactPii, type PiiRules } from "./pii";
import { untrustedInline, untrustedName } from "./untrusted";

export const DEFAULT_INJECTION_BUDGET = 768;
/** Longest one message may be in the injection, before the budget decides. */
export const MAX_TOKENS_PER_MESSAGE = 120;
/** Links kept per message; the rest become "[link]". */
export const MAX_LINKS_PER_MESSAGE = 2;
/** Most messages considered at all; the least important beyond it are only counted. */
export const MAX_CANDIDATES = 150;
/** Threads with more messages than this are summarised instead of quoted. */
export const THREAD_SUMMARY_FROM = 4;

export interface InjectionMessage {
  id: string;
  from: string;
  /** "#channel", "DM", "thread in #channel". */
  where: string;
  body: string;
  importance: "normal" | "high" | "critical";
  /** The agent was @mentioned, or it is a DM to it. */
  direct: boolean;
  /** About the task (or batch) the agent is working on. */
  aboutTask: boolean;
  createdAt: number;
  /** Replies of one thread share its root's id. */
  threadId?: string;
  /** A #maestro chat message (read through its cursor, fetched with chat.getNew). */
  kind?: "chat";
  /** Order within a tier, highest first; the newest first when absent. */
  rank?: number;
}

export interface Injection {
  text: string;
  tokens: number;
  /** Message ids quoted or summarised. */
  included: string[];
  omitted: { total: number; critical: number; direct: number };
}

function tier(m: InjectionMessage): number {
  if (m.importance === "critical") return 0;
  if (m.importance === "high") return 1;
  if (m.direct) return 2;
  if (m.aboutTask) return 3;
  return 4;
}

/** Caps links and cuts the body to `maxTokens`, on a word boundary, with an ellipsis. */
export function compactBody(body: string, maxTokens: number): string {
  let links = 0;
  const text = body
    .replace(/https?:\/\/\S+/g, (url) => (++links <= MAX_LINKS_PER_MESSAGE ? url : "[link]"))
    .replace(/\s+/g, " ")
    .trim();
  if (countTokens(text) <= maxTokens) return text;
  // One token is kept for the ellipsis; the cut moves back to a word boundary when one is near.
  const cut = truncateToTokens(text, maxTokens - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > cut.length / 2 ? cut.slice(0, space) : cut}…`;
}

const rankOf = (m: InjectionMessage) => m.rank ?? m.createdAt;

function line(m: InjectionMessage, maxTokens: number): string {
  const tags = [m.importance !== "normal" ? m.importance : null, m.direct ? "to you" : null].filter(Boolean).join(", ");
  const who = m.kind === "chat" ? `${m.where} ${m.from}` : `${m.from} in ${m.where}`;
  return `- ${untrustedName(who)}${tags ? ` (${tags})` : ""}: ${untrustedInline(compactBody(m.body, maxTokens))}`;
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** A summarised thread's line opening: where, how many and who. */
function threadHeading(sorted: readonly InjectionMessage[]): string {
  const people = [...new Set(sorted.map((m) => m.from))];
  return `- thread in ${sorted[0].where.replace(/^thread in /, "")} (${sorted.length} messages; ${people.join(", ")})`;
}

const oldestFirst = (messages: readonly InjectionMessage[]) => [...messages].sort((a, b) => a.createdAt - b.createdAt);

/** A thread in one line: where, how many, who, how it began and where it stands. Deterministic. */
export function summariseThread(messages: readonly InjectionMessage[]): string {
  const sorted = oldestFirst(messages);
  const last = sorted[sorted.length - 1];
  const begin = compactBody(firstSentence(sorted[0].body), 30);
  const latest = compactBody(firstSentence(last.body), 30);
  return `${threadHeading(sorted)}: began "${begin}" … latest from ${last.from}: "${latest}"`;
}

/** A thread in one line with a model's summary (lib/summariser checked it) after the same heading. */
export function threadSummaryLine(messages: readonly InjectionMessage[], summary: string): string {
  return `${threadHeading(oldestFirst(messages))}: ${summary}`;
}

/**
 * The threads `buildInjection` would summarise rather than quote, most
 * important first, with their bodies stripped of PII: what a summariser
 * model is asked about before the injection is built.
 */
export function threadsToSummarise(messages: readonly InjectionMessage[], pii?: PiiRules): InjectionMessage[][] {
  const ranked = [...messages].sort((a, b) => tier(a) - tier(b) || rankOf(b) - rankOf(a)).slice(0, MAX_CANDIDATES);
  const byThread = new Map<string, InjectionMessage[]>();
  for (const m of ranked) if (m.threadId !== undefined) byThread.set(m.threadId, [...(byThread.get(m.threadId) ?? []), { ...m, body: redactPii(m.body, pii) }]);
  return [...byThread.values()].filter((thread) => thread.length >= THREAD_SUMMARY_FROM);
}

export interface InjectionOptions {
  budget?: number;
  /** Unread messages older than those given that were counted, not read (`more`: there are more than `count`): the footer counts them. */
  older?: { count: number; more: boolean };
  /** A model-made summary of a thread, when a fast model is configured; the extractive one otherwise. */
  summarise?: (messages: readonly InjectionMessage[]) => string;
  /** PII redacted from every injected body (lib/pii); all rules unless some are turned off. */
  pii?: PiiRules;
}

const HEADER = "Messages for you since your last run:";
function footer(omitted: Injection["omitted"], chat: boolean, atLeast = false): string {
  const parts = [omitted.critical ? `${omitted.critical} critical` : null, omitted.direct ? `${omitted.direct} addressed to you` : null].filter(Boolean);
  const handles = `call inbox.read to list them, messages.fetch to read one${chat ? ", chat.getNew for #maestro" : ""}`;
  return `(${omitted.total}${atLeast ? "+" : ""} more not shown${parts.length ? `, including ${parts.join(" and ")}` : ""}: ${handles}.)`;
}

/**
 * Packs `messages` into the budget. Each unit (a message, or a summarised
 * thread) is tried in priority order at full length, then — for critical and
 * direct ones — in its shortest form; a unit that does not fit is counted in
 * the footer. The result, footer included, never exceeds the budget.
 */
export function buildInjection(messages: readonly InjectionMessage[], options: InjectionOptions = {}): Injection {
  const budget = options.budget ?? DEFAULT_INJECTION_BUDGET;
  const summarise = options.summarise ?? summariseThread;
  if (messages.length === 0) return { text: "", tokens: 0, included: [], omitted: { total: 0, critical: 0, direct: 0 } };

  // Beyond the candidates' cap, the least important are counted, not read.
  // What is shown is stripped of PII first, so summaries and quotes alike never carry it.
  messages = messages.map((m) => ({ ...m, body: redactPii(m.body, options.pii) }));
  const chat = messages.some((m) => m.kind === "chat");
  const ranked = [...messages].sort((a, b) => tier(a) - tier(b) || rankOf(b) - rankOf(a));
  const skipped = ranked.slice(MAX_CANDIDATES);
  messages = ranked.slice(0, MAX_CANDIDATES);

  // Units: long threads become one summary; everything else stays a message.
  const byThread = new Map<string, InjectionMessage[]>();
  for (const m of messages) if (m.threadId !== undefined) byThread.set(m.threadId, [...(byThread.get(m.threadId) ?? []), m]);
  type Unit = { ids: string[]; tier: number; newest: number; critical: number; direct: number; full: string; short: string | null };
  const units: Unit[] = [];
  const summarised = new Set<string>();
  for (const m of messages) {
    const thread = m.threadId === undefined ? undefined : byThread.get(m.threadId);
    if (thread !== undefined && thread.length >= THREAD_SUMMARY_FROM) {
      if (summarised.has(m.threadId!)) continue;
      summarised.add(m.threadId!);
      const mustShow = thread.filter((x) => x.importance === "critical" || x.direct);
      units.push({
        ids: thread.map((x) => x.id),
        tier: Math.min(...thread.map(tier)),
        newest: Math.max(...thread.map(rankOf)),
        critical: thread.filter((x) => x.importance === "critical").length,
        direct: thread.filter((x) => x.direct && x.importance !== "critical").length,
        full: [summarise(thread), ...mustShow.map((x) => line(x, 40))].join("\n"),
        short: mustShow.length ? summarise(thread) : null,
      });
      continue;
    }
    const must = m.importance === "critical" || m.direct;
    units.push({
      ids: [m.id],
      tier: tier(m),
      newest: rankOf(m),
      critical: m.importance === "critical" ? 1 : 0,
      direct: m.direct && m.importance !== "critical" ? 1 : 0,
      full: line(m, MAX_TOKENS_PER_MESSAGE),
      short: must ? line(m, 16) : null,
    });
  }
  units.sort((a, b) => a.tier - b.tier || b.newest - a.newest);

  // Token counts per line, summed: a cheap estimate kept exact by the check at the end.
  const cache = new Map<string, number>();
  const tok = (text: string) => {
    let n = cache.get(text);
    if (n === undefined) cache.set(text, (n = countTokens(text) + 1)); // + the newline
    return n;
  };
  type Counts = { total: number; critical: number; direct: number };
  const add = (a: Counts, u: Unit): Counts => ({ total: a.total + u.ids.length, critical: a.critical + u.critical, direct: a.direct + u.direct });
  const none: Counts = { total: 0, critical: 0, direct: 0 };
  // What comes after each unit: the short forms held for must-show units, and the counts of the rest.
  const heldAfter: number[] = new Array(units.length + 1).fill(0);
  const optionalAfter: Counts[] = new Array(units.length + 1).fill(none);
  const mustAfter: Counts[] = new Array(units.length + 1).fill(none);
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i];
    heldAfter[i] = heldAfter[i + 1] + (u.short !== null ? tok(u.short) : 0);
    optionalAfter[i] = u.short === null ? add(optionalAfter[i + 1], u) : optionalAfter[i + 1];
    mustAfter[i] = u.short !== null ? add(mustAfter[i + 1], u) : mustAfter[i + 1];
  }
  const plus = options.older?.more === true;
  const footerTokens = (c: Counts) => (c.total > 0 ? tok(footer(c, chat, plus)) : 0);
  const sum = (a: Counts, b: Counts): Counts => ({ total: a.total + b.total, critical: a.critical + b.critical, direct: a.direct + b.direct });

  let omitted: Counts = {
    total: skipped.length + (options.older?.count ?? 0),
    critical: skipped.filter((m) => m.importance === "critical").length,
    direct: skipped.filter((m) => m.direct && m.importance !== "critical").length,
  };
  let used = tok(HEADER);
  const chosen: Array<{ unit: Unit; text: string }> = [];
  /**
   * Would a line of `cost` tokens fit, with the later units that must be
   * shown held in their short form (when `reserve`) and every other later
   * unit counted in the footer? Holding room for them first is what keeps a
   * high-importance message from crowding out a later direct mention.
   */
  const fits = (i: number, cost: number, reserve: boolean) => {
    const pending = reserve ? sum(omitted, optionalAfter[i + 1]) : sum(sum(omitted, optionalAfter[i + 1]), mustAfter[i + 1]);
    return used + cost + (reserve ? heldAfter[i + 1] : 0) + footerTokens(pending) <= budget;
  };
  units.forEach((unit, i) => {
    let text: string | null = null;
    if (fits(i, tok(unit.full), true)) text = unit.full;
    else if (unit.short !== null && fits(i, tok(unit.short), true)) text = unit.short;
    // Must-show units beyond what the budget holds: keep the earlier (more important) ones.
    else if (unit.short !== null && fits(i, tok(unit.short), false)) text = unit.short;
    if (text === null) {
      omitted = add(omitted, unit);
      return;
    }
    chosen.push({ unit, text });
    used += tok(text);
  });
  const render = () => [HEADER, ...chosen.map((c) => c.text), ...(omitted.total > 0 ? [footer(omitted, chat, plus)] : [])].join("\n");
  let text = render();
  // The estimate can be off by a token or two where lines join: drop the least important until exact.
  while (countTokens(text) > budget && chosen.length > 0) {
    omitted = add(omitted, chosen.pop()!.unit);
    text = render();
  }
  // A budget too small for even the header and footer: the footer alone (shortened) is all that is said.
  if (countTokens(text) > budget) text = compactBody(footer(omitted, chat, plus), budget);
  const included = chosen.flatMap((c) => c.unit.ids);
  return { text, tokens: countTokens(text), included, omitted };
}
