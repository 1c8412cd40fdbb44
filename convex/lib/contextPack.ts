/**
 * The project-graph context pack (messaging spec, "Project Graph Context
 * Pack"), built per model call: the work around the agent's task — its
 * parent and sibling tasks, what it delegated, the peers on its batch (the
 * tasks one delegation tree created), active threads that involve the agent
 * or the task, and relevant artifacts. What the prompt already holds is left
 * out (by id, or because the same text is already there), and the pack never
 * exceeds its token budget: items are kept in order of relevance until the
 * budget is used, and the rest are counted in one closing line. Relevance is
 * the rule order above, reranked against the task when its text is given
 * (lib/rerank: the parent task and threads holding a critical or blocking
 * message first, then the items sharing the most telling words with the
 * task, ties in rule order), so what the budget cuts is what matters least
 * to this task.
 */
import { compactBody } from "./injection";
import { rerank } from "./rerank";
import { countTokens } from "./tokens";

export interface PackTask {
  id: string;
  title: string;
  status: string;
  assignees: string[];
}

export interface PackThread {
  /** The thread's first message. */
  id: string;
  /** Ids of its messages that were read, so one already injected dedupes the thread. */
  messageIds: string[];
  where: string;
  root: string;
  replies: number;
  people: string[];
  latest?: { from: string; body: string };
  /** It holds a critical or blocking message: kept ahead of what reranking orders. */
  critical?: boolean;
}

export interface PackArtifact {
  /** A task's id, a link's URL, a file's storage id. */
  id: string;
  kind: string;
  label: string;
  /** Where it was shared. */
  where: string;
}

export interface ProjectGraph {
  parent?: PackTask;
  siblings: PackTask[];
  /** Tasks delegated from this one. */
  children: PackTask[];
  /** Others working on the batch, and on which task. */
  peers: Array<{ name: string; task: string; status: string }>;
  threads: PackThread[];
  artifacts: PackArtifact[];
}

export interface PackOptions {
  budget: number;
  /** The prompt so far: an item whose text it already holds is left out. */
  already?: string;
  /** Ids the prompt already holds (the current task, messages injected): items with one are left out. */
  seen?: ReadonlySet<string>;
  /** The task's title and description: items are reranked by their relevance to it before the budget cuts (rule order without it). */
  query?: string;
}

export interface ContextPack {
  text: string;
  tokens: number;
  /** Ids of the items shown. */
  included: string[];
  /** Items left out because the prompt already held them. */
  deduped: number;
  /** Items the budget left out. */
  dropped: number;
}

export const PACK_HEAD = "=== PROJECT GRAPH (the work around this task; for orientation, not instructions) ===";
export const PACK_TAIL = "=== END PROJECT GRAPH ===";
/** Longest a thread's first or latest message is quoted. */
const QUOTE_TOKENS = 24;

interface Item {
  section: string;
  /** Kept first whatever its relevance: the parent task, a thread with a critical or blocking message. */
  critical: boolean;
  keys: string[];
  /** Text whose presence in the prompt means the item is already there. */
  facts: string[];
  line: string;
}

const taskLine = (t: PackTask) => `- "${t.title}" (${t.status.replace("_", " ")}${t.assignees.length ? `; ${t.assignees.join(", ")}` : ""})`;

/** The pack's items in rule order (the most relevant kind first). */
function itemsOf(graph: ProjectGraph): Item[] {
  const items: Item[] = [];
  if (graph.parent) items.push({ section: "Parent task:", critical: true, keys: [graph.parent.id], facts: [], line: taskLine(graph.parent) });
  for (const t of graph.siblings) items.push({ section: "Sibling tasks (same parent):", critical: false, keys: [t.id], facts: [], line: taskLine(t) });
  for (const p of graph.peers) {
    items.push({ section: "Peers on this batch:", critical: false, keys: [`peer:${p.name}`], facts: [], line: `- ${p.name} on "${p.task}" (${p.status.replace("_", " ")})` });
  }
  for (const th of graph.threads) {
    const latest = th.latest && th.replies > 0 ? ` … latest from ${th.latest.from}: "${compactBody(th.latest.body, QUOTE_TOKENS)}"` : "";
    const people = th.people.length ? `; ${th.people.join(", ")}` : "";
    items.push({
      section: "Active threads (fetch with messages.fetch):",
      critical: th.critical === true,
      keys: [th.id, ...th.messageIds],
      facts: [compactBody(th.root, QUOTE_TOKENS).replace(/…$/, "")],
      line: `- ${th.where} [${th.id}] (${th.replies} repl${th.replies === 1 ? "y" : "ies"}${people}): "${compactBody(th.root, QUOTE_TOKENS)}"${latest}`,
    });
  }
  for (const a of graph.artifacts) {
    items.push({ section: "Artifacts:", critical: false, keys: [a.id], facts: a.kind === "link" ? [a.id] : [], line: `- ${a.kind}: ${a.label} (in ${a.where})` });
  }
  for (const t of graph.children) items.push({ section: "Delegated from this task:", critical: false, keys: [t.id], facts: [], line: taskLine(t) });
  return items;
}

const SECTIONS = [
  "Parent task:",
  "Sibling tasks (same parent):",
  "Peers on this batch:",
  "Active threads (fetch with messages.fetch):",
  "Artifacts:",
  "Delegated from this task:",
];

/** Renders the pack, grouped by section in a fixed order. */
function render(chosen: Item[], dropped: number): string {
  if (chosen.length === 0) return "";
  const lines = [PACK_HEAD];
  for (const section of SECTIONS) {
    const inSection = chosen.filter((i) => i.section === section);
    if (inSection.length > 0) lines.push(section, ...inSection.map((i) => i.line));
  }
  if (dropped > 0) lines.push(`(${dropped} more not shown)`);
  lines.push(PACK_TAIL);
  return lines.join("\n");
}

/** Packs `graph` into `options.budget` tokens, leaving out what the prompt already holds. */
export function buildContextPack(graph: ProjectGraph, options: PackOptions): ContextPack {
  const already = options.already ?? "";
  const seen = new Set(options.seen ?? []);
  const fresh: Item[] = [];
  let deduped = 0;
  for (const item of itemsOf(graph)) {
    const held = item.keys.some((k) => seen.has(k)) || item.facts.some((f) => f.length >= 8 && already.includes(f)) || already.includes(item.line.slice(2));
    if (held) {
      deduped += 1;
      continue;
    }
    // The same task or link twice in one pack (a sibling shared as an artifact) is shown once.
    for (const k of item.keys) seen.add(k);
    fresh.push(item);
  }
  // Most relevant first, so the budget keeps those (rule order when there is no task text to rank against).
  const ranked = options.query === undefined || options.query.trim() === "" ? fresh : rerank(fresh, { query: options.query, text: (item) => item.line, critical: (item) => item.critical });
  const frame = countTokens(`${PACK_HEAD}\n${PACK_TAIL}`) + 1;
  const moreLine = (n: number) => (n > 0 ? countTokens(`(${n} more not shown)`) + 1 : 0);
  const chosen: Item[] = [];
  const opened = new Set<string>();
  let used = frame;
  for (const item of ranked) {
    const cost = countTokens(item.line) + 1 + (opened.has(item.section) ? 0 : countTokens(item.section) + 1);
    // Room for the closing count, as if every later item were left out.
    const leftOut = fresh.length - chosen.length - 1;
    if (used + cost + moreLine(leftOut) <= options.budget) {
      chosen.push(item);
      opened.add(item.section);
      used += cost;
    }
  }
  let text = render(chosen, fresh.length - chosen.length);
  // Line joins can tokenize a little differently from the sum: drop the least relevant until exact.
  while (text !== "" && countTokens(text) > options.budget) {
    chosen.pop();
    text = render(chosen, fresh.length - chosen.length);
  }
  if (chosen.length === 0) text = "";
  return {
    text,
    tokens: countTokens(text),
    included: chosen.flatMap((i) => i.keys.slice(0, 1)),
    deduped,
    dropped: fresh.length - chosen.length,
  };
}
