/**
 * A tool call in words, for people: what it would do ("delegate “Launch
 * tagline” to Writer") and its arguments as labelled lines, the telling ones
 * first. One table per tool, read by the bell's sentence (lib/waiting) and by
 * the approval card, so the two never word a call differently. Pure.
 */

/** One argument as a person reads it: its name and its value as text (lists joined, objects as compact JSON). */
export type ArgumentLine = { key: string; value: string };

type Args = Record<string, unknown>;

/** How one tool's call reads: `ask` after "<agent> asks to …" (null when its arguments say too little), `first` the arguments shown first. */
type ToolWords = { ask: (args: Args) => string | null; first: readonly string[] };

const str = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value.replace(/\s+/g, " ").trim() : null);
const names = (value: unknown): string[] => (Array.isArray(value) ? value.map(str).filter((name): name is string => name !== null) : []);

/** "Writer", "Writer and Dev Bot", "Writer, Dev Bot and Archie". */
function listOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

const channelName = (value: unknown): string | null => {
  const name = str(value);
  return name === null ? null : name.startsWith("#") ? name : `#${name}`;
};

const WORDS: Record<string, ToolWords> = {
  delegate_task: {
    ask: (args) => {
      const title = str(args.title);
      const to = names(args.assignees);
      if (title === null) return null;
      return `delegate “${title}”${to.length > 0 ? ` to ${listOf(to)}` : ""}`;
    },
    first: ["assignees", "title", "priority", "instruction", "description", "tags"],
  },
  post_message: {
    ask: (args) => {
      const content = str(args.content);
      const channel = channelName(args.channel);
      return content === null ? null : `post “${content}”${channel === null ? "" : ` in ${channel}`}`;
    },
    first: ["channel", "content", "importance", "blocking"],
  },
  dm_send: {
    ask: (args) => {
      const to = names(args.to);
      const content = str(args.content);
      return to.length === 0 ? null : `send ${listOf(to)} a DM${content === null ? "" : `: “${content}”`}`;
    },
    first: ["to", "content"],
  },
  reply_thread: { ask: (args) => (str(args.content) === null ? null : `reply in a thread: “${str(args.content)}”`), first: ["content"] },
  "chat.post": { ask: (args) => (str(args.text) === null ? null : `post in #maestro: “${str(args.text)}”`), first: ["text"] },
  update_task_status: { ask: (args) => (str(args.status) === null ? null : `move the task to ${str(args.status)!.replace(/_/g, " ")}`), first: ["status"] },
  create_channel: { ask: (args) => (channelName(args.name) === null ? null : `create the channel ${channelName(args.name)}`), first: ["name", "visibility", "topic"] },
  channel_manage: { ask: (args) => (channelName(args.channel) === null ? null : `change ${channelName(args.channel)}`), first: ["channel", "add", "remove", "topic"] },
  web_fetch: { ask: (args) => (str(args.url) === null ? null : `fetch ${str(args.url)}`), first: ["url"] },
  ask_question: { ask: (args) => (str(args.question) === null ? null : `ask: “${str(args.question)}”`), first: ["question"] },
  propose_plan: { ask: (args) => (str(args.summary) === null ? null : `propose a plan: “${str(args.summary)}”`), first: ["summary", "steps"] },
  request_tool: { ask: (args) => (str(args.tool) === null ? null : `ask for the tool ${str(args.tool)}`), first: ["tool", "to", "reason", "arguments"] },
};

/** The arguments as an object, or null when they are not a JSON object (shown as they are). */
function parsed(args: string): Args | null {
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Args) : null;
  } catch {
    return null;
  }
}

/** The first non-empty string argument: a glance at what an unknown tool's call is about. */
function gist(args: Args): string | null {
  for (const value of Object.values(args)) {
    const text = str(value);
    if (text !== null) return text;
  }
  return null;
}

/**
 * What the call would do, after "<agent> asks to ": "delegate “Launch
 * tagline” to Writer" from the tool's own words, else "run web_search
 * (“…”)" with its first string argument.
 */
export function callAsk(tool: string, args: string): string {
  const object = parsed(args);
  const own = object === null ? null : (WORDS[tool]?.ask(object) ?? null);
  if (own !== null) return own;
  const about = object === null ? null : gist(object);
  return `run ${tool}${about === null ? "" : ` (“${about}”)`}`;
}

/** An argument's value as text: strings as they are, lists of strings joined, anything else as compact JSON. */
function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(", ");
  return JSON.stringify(value) ?? String(value);
}

/**
 * The call's arguments as labelled lines, the tool's telling ones first
 * (delegate_task: assignees, title, priority, …), the rest in their order;
 * null when the arguments are not a JSON object (show them as text).
 */
export function argumentLines(tool: string, args: string): ArgumentLine[] | null {
  const object = parsed(args);
  if (object === null) return null;
  const first = WORDS[tool]?.first ?? [];
  const keys = [...first.filter((key) => key in object), ...Object.keys(object).filter((key) => !first.includes(key))];
  return keys.filter((key) => object[key] !== undefined && object[key] !== null).map((key) => ({ key, value: valueText(object[key]) }));
}
