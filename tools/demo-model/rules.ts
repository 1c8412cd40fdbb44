/**
 * The demo model's rules: what a squad would answer to the prompts the brain
 * builds, decided by pattern, not by a model. They lean on the brain's prompt
 * sections (=== TOOLS ===, === SQUAD ROSTER ===, === TASK ===,
 * === WHY YOU ARE HERE ===, === TOOL RESULTS ===) as a contract, and never
 * call a tool the prompt does not list.
 */
import type { ChatMessage } from "../../convex/brain/model";
import { parseToolCalls, type ParsedToolCall } from "../../convex/lib/toolCalls";
import { normalizeName } from "../../convex/lib/agentNames";
import { FOLDED_WHY_HEAD } from "../../convex/lib/runWhy";
import { UNTRUSTED_LINE } from "../../convex/lib/untrusted";
import { STATUS_WORDS as STATUS_WORDS_IN_SENTENCE } from "../../convex/lib/guards";

interface RosterMember {
  name: string;
  role: string;
  status: string;
}

type Reason =
  | { kind: "assigned" }
  | { kind: "mentioned"; author: string; text: string }
  | { kind: "delegatedChanged"; text: string }
  | { kind: "answered"; text: string }
  | { kind: "blocking"; author: string }
  | { kind: "message"; author: string; text: string }
  | { kind: "nudge" }
  | { kind: "unknown" };

interface Prompt {
  name: string;
  role: string;
  tools: Set<string>;
  /** Present only in a squad lead's prompt. */
  roster: RosterMember[] | null;
  /** The lead is in plan mode: it proposes with propose_plan instead of delegating. */
  planMode: boolean;
  /** `delegatedBy`: the lead that delegated this task to the agent, when it was delegated. */
  task: { title: string; description: string; status: string; delegatedBy: string | null } | null;
  reason: Reason;
  /** The requests folded into the run before it started (lib/runWhy), after `reason`, oldest first: each is answered too. */
  folded: Reason[];
  /** The messages injected for the agent (the MESSAGES FOR YOU section), as text; empty without one. */
  messages: string;
}

interface Delegation {
  title: string;
  description: string;
  assignees: string[];
  instruction: string;
  priority: "medium" | "high";
}

/** The demo model's answer to a chat: text, possibly with `[TOOL: …]` lines. */
export function demoReply(messages: ChatMessage[]): string {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
  const users = messages.filter((m) => m.role === "user");
  const context = users[0]?.content ?? "";
  if (!system.includes("=== TOOLS ===") && !context.includes("=== TASK ===")) return NOT_A_MAESTRO_PROMPT;

  const prompt = readPrompt(system, context);
  const last = messages.at(-1);
  if (isSlowRequest(messages)) return slowReply(prompt);
  if (last?.role === "user" && last.content.trimStart().startsWith("=== TOOL RESULTS ===")) {
    const lastIndex = messages.length - 1;
    const previous = messages.slice(0, lastIndex).findLast((m) => m.role === "assistant");
    return summariseResults(last.content, previous?.content ?? "", prompt);
  }
  const answer = (one: Prompt) => (one.roster === null ? answerAsSpecialist(one) : answerAsLead(one, one.roster));
  if (prompt.folded.length === 0) return answer(prompt);
  // Every request that reached the run before it started gets its own answer, in order, in one reply.
  return answerEach([prompt.reason, ...prompt.folded].map((reason) => answer({ ...prompt, reason, folded: [] })));
}

/** Answers to several requests as one reply: each in turn, a line (or tool call) said twice said once. */
function answerEach(answers: string[]): string {
  const lines: string[] = [];
  for (const line of answers.filter((a) => a.trim() !== "").join("\n").split("\n")) {
    if (line.trim() !== "" && lines.includes(line)) continue;
    lines.push(line);
  }
  return lines.join("\n");
}

/** "take your time", "think it over slowly": a long reply, streamed slowly, so people can watch it and stop it. */
const SLOW = /\b(?:slowly|take your time)\b/i;
/** Between streamed pieces of a slow reply. */
export const SLOW_PIECE_MS = 400;

function isSlowRequest(messages: ChatMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user" || last.content.trimStart().startsWith("=== TOOL RESULTS ===")) return false;
  return SLOW.test(block(last.content, "=== WHY YOU ARE HERE ===") ?? "");
}

/** How long the demo model waits between streamed pieces of its reply to `messages`: 0 unless asked to go slowly. */
export function demoPaceMs(messages: ChatMessage[]): number {
  return isSlowRequest(messages) ? SLOW_PIECE_MS : 0;
}

function slowReply(prompt: Prompt): string {
  const title = quoteTitle(prompt.task?.title);
  const steps = ["what the task asks", "who in the squad fits each part", "what could go wrong", "what to do first", "how we will know it is done"];
  return [`Taking my time over ${title}.`, ...steps.map((step, i) => `Step ${i + 1}: thinking through ${step} for ${title}, one careful thought at a time.`), "That is my thinking so far."].join("\n");
}

const NOT_A_MAESTRO_PROMPT =
  "I'm Maestro's demo model: offline and rule-based, so I only understand the prompts Maestro's agents send. " +
  "Set OPENAI_API_KEY or OPENAI_BASE_URL to use a real model.";

// ---------------------------------------------------------------- reading the prompt

function readPrompt(system: string, context: string): Prompt {
  // The brain's own identity line says "…, an AI agent"; an agent's custom prompt may come first.
  const identity = /You are ([^()\n]+?) \(([^()\n]+)\), an AI agent/.exec(system) ?? /You are ([^()\n]+?) \(([^()\n]+)\)/.exec(system);
  const toolsSection = section(system, "=== TOOLS ===", "=== END TOOLS ===");
  const tools = new Set<string>();
  for (const m of (toolsSection ?? "").matchAll(/^\s*-\s*([A-Za-z_][\w.-]*)\s*:/gm)) tools.add(m[1]);
  const rosterSection = section(system, "=== SQUAD ROSTER ===", "=== END SQUAD ROSTER ===");
  const roster =
    rosterSection === null
      ? null
      : [...rosterSection.matchAll(/^\s*-\s*(.+?)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*$/gm)]
          .map((m) => ({ name: m[1], role: m[2], status: m[3] }))
          .filter((member) => !(member.name === "Name" && member.role === "Role"));

  // Thread text is quoted people; it must never be read as the prompt's own sections.
  const threadStart = context.indexOf("=== THREAD");
  const threadEnd = context.lastIndexOf("=== END THREAD ===");
  const outsideThread =
    threadStart !== -1 && threadEnd > threadStart ? context.slice(0, threadStart) + context.slice(threadEnd + "=== END THREAD ===".length) : context;

  const taskText = block(outsideThread, "=== TASK ===");
  const task =
    taskText === null
      ? null
      : {
          title: field(taskText, "Title") ?? "",
          description: description(taskText),
          status: field(taskText, "Status") ?? "",
          delegatedBy: /\(delegated by ([^)]+)\)\s*$/.exec(field(taskText, "Part of") ?? "")?.[1].trim() ?? null,
        };
  return {
    name: identity?.[1].trim() ?? "",
    role: identity?.[2].trim() ?? "",
    tools,
    roster,
    planMode: system.includes("Plan mode is on"),
    task,
    ...readReasons(block(outsideThread, "=== WHY YOU ARE HERE ===") ?? ""),
    messages: [system, context].map((text) => section(text, "=== MESSAGES FOR YOU", "=== END MESSAGES ===") ?? "").join("\n"),
  };
}

/**
 * The why's first request, and the ones folded in before the run started:
 * after the brain's own FOLDED_WHY_HEAD line, one per line (a quote's further
 * lines stand behind the quote bar, so no quoted text starts a line of its own).
 */
function readReasons(text: string): { reason: Reason; folded: Reason[] } {
  const lines = text.split("\n");
  const head = lines.findIndex((line) => line === FOLDED_WHY_HEAD);
  if (head === -1) return { reason: readReason(text), folded: [] };
  const items: string[] = [];
  for (const line of lines.slice(head + 1)) {
    if (line.startsWith(UNTRUSTED_LINE) && items.length > 0) items[items.length - 1] += `\n${line}`;
    else items.push(line);
  }
  const folded = items.map(readReason).filter((reason) => reason.kind === "mentioned" || reason.kind === "message");
  return { reason: readReason(lines.slice(0, head).join("\n")), folded };
}

function readReason(text: string): Reason {
  const why = text.trim();
  if (/^You were assigned this task/i.test(why)) return { kind: "assigned" };
  const mention = /^You were @mentioned by (.+?)(?::\s*["“]([\s\S]*?)["”]?)?\s*$/i.exec(why);
  // A #maestro mention says where: "by Ada in #maestro".
  if (mention) return { kind: "mentioned", author: mention[1].replace(/ in #maestro$/, "").trim(), text: (mention[2] ?? "").trim() };
  // The result is its first line; what follows is the brain's guidance on results.
  const changed = /^A task you delegated changed:[ \t]*([^\n]*)/i.exec(why);
  if (changed) return { kind: "delegatedChanged", text: changed[1].trim() };
  const answered = /^A human answered your question(?::\s*["“]?([\s\S]*?)["”]?)?\s*$/i.exec(why);
  if (answered) return { kind: "answered", text: (answered[1] ?? "").trim() };
  const blocking = /^(.+?) sent you a blocking message/i.exec(why);
  if (blocking) return { kind: "blocking", author: blocking[1].trim() };
  const message = /^(.+?) sent you a message \([^)]*\):\s*"([\s\S]*?)"\.\s*Answer it/i.exec(why);
  if (message) return { kind: "message", author: message[1].trim(), text: message[2].trim() };
  if (/^Your last run here has ended\./i.test(why)) return { kind: "nudge" };
  return { kind: "unknown" };
}

/** Text between `start` and `end`, or null when either marker is missing. */
function section(text: string, start: string, end: string): string | null {
  const from = text.indexOf(start);
  if (from === -1) return null;
  const to = text.indexOf(end, from + start.length);
  return to === -1 ? null : text.slice(from + start.length, to);
}

/** Text after the header line `header` up to the next `=== … ===` line, or null when the header is missing. */
function block(text: string, header: string): string | null {
  const from = text.indexOf(header);
  if (from === -1) return null;
  const rest = text.slice(from + header.length);
  const next = /^=== .* ===\s*$/m.exec(rest);
  return next === null ? rest : rest.slice(0, next.index);
}

function field(text: string, name: string): string | undefined {
  return new RegExp(`^\\s*${name}:[ \\t]*(.*)$`, "mi").exec(text)?.[1].trim();
}

/** Untrusted text as the prompt frames it (convex/lib/untrusted: each line behind a quote bar), back to its own lines. */
function unquote(text: string): string {
  const bar = UNTRUSTED_LINE.trim();
  return text
    .split("\n")
    .map((line) => (line.trimStart().startsWith(bar) ? line.trimStart().slice(bar.length).replace(/^ /, "") : line))
    .join("\n");
}

/** "Description: text", or "Description:" with the text on the lines below; "(none)" is empty. */
function description(taskText: string): string {
  const m = /^\s*Description:[ \t]*(.*)$/im.exec(taskText);
  if (m === null) return "";
  // The description ends where the prompt's next part begins (parts are separated by a blank line).
  const text = unquote(m[1].trim() || taskText.slice(m.index + m[0].length).trim().split(/\n\s*\n/)[0]).trim();
  return text === "(none)" ? "" : text;
}

// ---------------------------------------------------------------- a specialist

function answerAsSpecialist(prompt: Prompt): string {
  const title = quoteTitle(prompt.task?.title);
  const { reason } = prompt;
  // An agent's own inbox task (reactions/delivery) is no card to move or post on: the answer goes back where it was asked.
  if (isInboxTask(prompt) && (reason.kind === "mentioned" || reason.kind === "message")) {
    // A #maestro mention names no message of the thread: what was asked is the chat's line to this agent.
    const asked = reason.kind === "mentioned" && reason.text === "" ? chatLineToMe(prompt) : null;
    return conversationReply(prompt, asked?.author ?? reason.author, asked?.text ?? reason.text);
  }
  switch (reason.kind) {
    case "assigned": {
      const started = startWork(prompt);
      if (started !== null) return started;
      return `On it: I'll start on ${title} and post my progress here.`;
    }
    case "mentioned": {
      // The lead's first instruction on a task it delegated: the work is carried through.
      const delegated = reason.author === prompt.task?.delegatedBy ? startWork(prompt) : null;
      if (delegated !== null) return delegated;
      const acted = actOnRequest(prompt, reason.text);
      if (acted !== null) return acted;
      return `${reason.author === "someone" ? "Thanks" : `Thanks, ${reason.author}`}. Got it; I'll take that into account on ${title}.`;
    }
    case "answered":
      return `Thanks for the answer. I'll carry on with ${title}.`;
    case "delegatedChanged":
      return `Noted: ${clip(reason.text)}`;
    case "blocking": {
      const onTask = isInboxTask(prompt) ? "now" : `on ${title}`;
      return `${reason.author === "someone" ? "Got it" : `Got it, ${reason.author}`}: I've stopped to read your message and will act on it ${onTask}.`;
    }
    case "message":
      return conversationReply(prompt, reason.author, reason.text);
    case "nudge":
      // The brain asks for nothing when no message needs an answer; the demo answers none.
      return "";
    case "unknown":
      return `I've read the thread on ${title} and will follow up here.`;
  }
}

/** The newest #maestro line addressed to this agent among the messages for it (lib/injection's "- #maestro <author> (to you): <text>"), or null. */
function chatLineToMe(prompt: Prompt): { author: string; text: string } | null {
  const lines = [...prompt.messages.matchAll(/^- #maestro (.+?) \([^)]*to you[^)]*\): (.*)$/gm)];
  const last = lines.at(-1);
  return last === undefined ? null : { author: last[1].replace(/[“”"]/g, "").trim(), text: last[2] };
}

function isInboxTask(prompt: Prompt): boolean {
  return prompt.task?.title.startsWith("Inbox: ") === true;
}

/**
 * A task given to this specialist (assigned, or delegated by a lead) is
 * worked in two visible steps: first the card moves to In progress, then
 * (after that result comes back, finishWork) the work itself is streamed as
 * the reply and the card moves to Review. Null when the task is already in
 * review or done, or the tools are missing.
 */
function startWork(prompt: Prompt): string | null {
  const task = prompt.task;
  if (task === null || isInboxTask(prompt) || !prompt.tools.has("update_task_status")) return null;
  if (["review", "done"].includes(task.status)) return null;
  const title = quoteTitle(task.title);
  const forWhom = task.delegatedBy === null ? "" : ` for ${task.delegatedBy}`;
  // Already in progress: the work comes now, in this reply.
  if (task.status === "in_progress") return finishWork(prompt);
  return [`Starting on ${title}${forWhom}.`, toolCall("update_task_status", { status: "in_progress" })].join("\n");
}

/** The work on the task (a template for its kind, never the request's words), streamed as the reply, and the card moved to Review. */
function finishWork(prompt: Prompt): string {
  const task = prompt.task;
  const work = deliverable(prompt);
  const to = task?.delegatedBy ? `${task.delegatedBy}, it` : "It";
  return [`${work}\n${to} is ready for your review; tell me what to change.`, toolCall("update_task_status", { status: "review" })].join("\n");
}

/** "take this", "can you pick it up": ownership, so the card moves to in progress. */
const TAKE = /\b(?:take|pick)\s+(?:this|it|that|over|up)\b|\b(?:start|work)\s+on\b|\bown\s+(?:this|it)\b/i;
/** "please write the FAQ", "can you fix the bug": work to do, so a result is posted and the card goes to review. */
const DO = /\b(?:please|can you|could you|would you|go ahead and|now)\s+(?:do|write|draft|build|fix|finish|make|create|prepare|handle|complete|update|add|design|implement)\b|^(?:do|write|draft|build|fix|finish|make|create|prepare|handle|complete|update|add|design|implement)\b/i;

/**
 * A mention that asks the specialist to take or do something: it acts
 * through its tools (status, a posted result) instead of only acknowledging,
 * within the tools its prompt lists. Null when the mention asks for nothing.
 */
function actOnRequest(prompt: Prompt, text: string): string | null {
  const request = withoutSelfMention(text, prompt.name).trim();
  const status = prompt.task?.status ?? "";
  const title = quoteTitle(prompt.task?.title);
  if (DO.test(request)) {
    const calls = [
      ...(prompt.tools.has("post_message") ? [toolCall("post_message", { content: `Result for ${title}: ${deliverable(prompt, request)}` })] : []),
      ...(prompt.tools.has("update_task_status") && !["review", "done"].includes(status) ? [toolCall("update_task_status", { status: "review" })] : []),
    ];
    if (calls.length === 0) return `I'd do that, but I have no tools to post a result or move ${title}. Ask an admin to allow post_message or update_task_status for me.`;
    return [`On it: a first pass at ${title}.`, ...calls].join("\n");
  }
  if (TAKE.test(request)) {
    if (!prompt.tools.has("update_task_status") || ["in_progress", "review", "done"].includes(status)) return `I'm on ${title} and will post my progress here.`;
    return [`Taking ${title}: I'll post my progress here.`, toolCall("update_task_status", { status: "in_progress" })].join("\n");
  }
  return null;
}

// ---------------------------------------------------------------- what a specialist says, by kind of request

/** Kinds of request the demo answers from templates; the request's own words are never repeated back. */
type Kind = "greeting" | "thanks" | "status" | "write" | "code" | "design" | "research" | "review" | "question" | "other";

const KINDS: Array<{ kind: Kind; test: RegExp }> = [
  { kind: "status", test: /\b(?:status|progress|how(?:'s| is| are)\b.*\bgoing|where are (?:we|you)|any news|update on|eta)\b/i },
  { kind: "write", test: /\b(?:write|draft|copy|blog|post|article|e-?mail|newsletter|docs?|documentation|headline|tagline|faq|announcement|wording|press release|text)\b/i },
  { kind: "code", test: /\b(?:build|code|fix|bug|api|implement|endpoint|form|backend|frontend|database|deploy|tests?|integration|server|component|script)\b/i },
  { kind: "design", test: /\b(?:design|logo|mock-?ups?|wireframes?|icons?|layout|banner|visuals?|palette|brand(?:ing)?)\b/i },
  { kind: "research", test: /\b(?:research|compare|comparison|investigate|find out|look into|analy[sz]e|analysis|survey|options|competitors?|benchmark)\b/i },
  { kind: "review", test: /\b(?:review|architecture|schema|risks?|plan|audit|check)\b/i },
  { kind: "thanks", test: /^\W*(?:thanks|thank you|cheers|great work|nice work)\b/i },
  { kind: "greeting", test: /^\W*(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|yo)\b/i },
];

/** The kind of what `text` asks: a greeting or thanks only when that is all it says. */
export function requestKind(text: string): Kind {
  const plain = text.replace(/@[\w-]+(?: [A-Z][\w-]*)?/g, "").trim();
  const found = KINDS.find(({ kind, test }) => kind !== "greeting" && kind !== "thanks" && test.test(plain))?.kind;
  if (found !== undefined) return found;
  for (const kind of ["thanks", "greeting"] as const) if (KINDS.find((k) => k.kind === kind)!.test.test(plain)) return kind;
  return plain.endsWith("?") ? "question" : "other";
}

/** A short first pass at the task, from the template for its kind (its title and description say what it is). */
function deliverable(prompt: Prompt, request = ""): string {
  const task = prompt.task;
  const title = quoteTitle(task?.title);
  const subject = task?.title ? task.title.replace(/[.!?]+$/, "") : "this";
  const kind = requestKind(`${task?.title ?? ""}. ${task?.description ?? ""} ${request}`);
  switch (kind) {
    case "write":
      return `Draft for ${title}:\n“${capitalise(subject)}: less busywork, more shipping.” One headline, one line under it, and a call to action: “Start free”. Friendly and plain, under 30 words.`;
    case "code":
      return `First pass at ${title}:\n- the data it needs and where it is checked\n- the handler, with errors a person can read\n- tests for the usual case and one failure\nNothing is deployed yet.`;
    case "design":
      return `Design notes for ${title}:\n- one layout that works at phone and desk widths\n- light and dark variants from the existing palette\n- the main action stands out, everything else stays quiet.`;
    case "research":
      return `Notes on ${title}:\n- three options, compared on cost, effort and risk\n- the simplest covers what we need now\n- one open question to settle before we choose.`;
    case "review":
      return `Review of ${title}:\n- the approach is simple enough to keep\n- two risks to watch: load at peak and unclear ownership\n- one change I'd make first: write down who decides.`;
    default:
      return `First pass at ${title}: the main points are covered, with a short note on what is still open.`;
  }
}

/**
 * An answer in a conversation (a DM, or a mention on the agent's inbox
 * task): a template for the kind of request, with the asker's name and the
 * agent's role, never the message itself.
 */
function conversationReply(prompt: Prompt, author: string, text: string): string {
  const request = withoutSelfMention(text, prompt.name);
  const who = author === "someone" ? "" : `, ${author}`;
  const me = prompt.name || "I";
  const role = prompt.role ? prompt.role.toLowerCase() : "specialist";
  switch (requestKind(request)) {
    case "greeting":
      return `Hi${who}! ${me} here, the squad's ${role}. Assign me a card or ask me here, and I'll get going.`;
    case "thanks":
      return `You're welcome${who}.`;
    case "status":
      return prompt.task && !isInboxTask(prompt)
        ? `Status of ${quoteTitle(prompt.task.title)}: ${STATUS_WORDS[prompt.task.status] ?? prompt.task.status}. I post each step in its thread.`
        : `Status${who}: nothing of mine is blocked. Each card on the board shows its column, and I post progress in its thread.`;
    case "write":
      return `Sure${who}: here's a first line to start from: “Less busywork, more shipping.” Give it a card on the board and I'll draft the rest there.`;
    case "code":
      return `Sure${who}: I'll start with the data it needs, then the handler and its tests. Put it on a card and assign me, so you can follow it on the board.`;
    case "design":
      return `Sure${who}: I'll sketch one layout with light and dark variants first. A card on the board keeps the feedback in one place.`;
    case "research":
      return `Sure${who}: I'll compare three options on cost, effort and risk and come back with one to pick. A card on the board will hold the notes.`;
    case "review":
      return `Sure${who}: I'll look at it for simplicity and risk and list what I'd change first.`;
    case "question":
      return `Good question${who}. I'm on the demo model, so I can't look that up, but I can take it on as a card: assign me one and I'll post what I find.`;
    default:
      return `Got it${who}. Put it on a card and assign me, and I'll post my progress in its thread.`;
  }
}

// ---------------------------------------------------------------- a squad lead

function answerAsLead(prompt: Prompt, roster: RosterMember[]): string {
  const { reason } = prompt;
  // A delegated card moved: its line in the thread and the parent's column say so already (reactions/a2a, taskChange), so nothing more is posted.
  if (reason.kind === "delegatedChanged") return "";
  const request =
    reason.kind === "mentioned" || reason.kind === "answered"
      ? reason.text
      : `${prompt.task?.title ?? ""}\n${prompt.task?.description ?? ""}`;
  if (/\b(?:don'?t|do not|never|no need to)\s+(?:\w+\s+){0,2}(?:delegate|split)\b/i.test(request)) return "Understood: I'll hold off and delegate nothing for now.";
  const plan = planDelegations(withoutSelfMention(request, prompt.name), roster, prompt);
  if (plan === null) return howToAsk(prompt, roster, reason.kind === "mentioned" || reason.kind === "answered");
  if ("problem" in plan) return plan.problem;
  const delegations = URGENT.test(request) ? plan.delegations.map((d) => ({ ...d, priority: "high" as const })) : plan.delegations;
  if (prompt.planMode && prompt.tools.has("propose_plan")) {
    const steps = delegations.map((d) => ({ title: d.title, assignee: d.assignees[0], description: d.description, priority: d.priority }));
    const summary = plan.say.replace(/^On it: /, "").replace(/\.$/, "");
    return [`Here is my plan for approval: ${summary}.`, toolCall("propose_plan", { summary: capitalise(summary), steps })].join("\n");
  }
  if (!prompt.tools.has("delegate_task")) {
    return `I'd delegate this, but delegate_task is not among my tools. Allow it in my agent settings, or assign the work directly.`;
  }
  return [plan.say, ...delegations.map((d) => toolCall("delegate_task", { ...d }))].join("\n");
}

/** "urgent", "high priority", "asap": the delegations are high priority (which may need a person's approval). */
const URGENT = /\b(?:urgent(?:ly)?|high[- ]priority|asap)\b/i;

type Plan = { say: string; delegations: Delegation[] } | { problem: string } | null;

/** The delegations a request asks for, or null when it asks for none this demo understands. */
function planDelegations(request: string, roster: RosterMember[], prompt: Prompt): Plan {
  return planSplit(request, roster, prompt) ?? planDelegate(request, roster, prompt);
}

/**
 * "split the landing page between Dev Bot and Writer: hero copy and the signup form",
 * "split the blog post and the banner between Writer and Designer". Who takes
 * what comes from what the request says (pairParts), not from the order.
 */
function planSplit(request: string, roster: RosterMember[], prompt: Prompt): Plan {
  const m = /\bsplit\s+(?:up\s+)?([\s\S]+?)\s+between\s+([\s\S]+?)(?:\s*:\s*([\s\S]+))?$/i.exec(request);
  if (m === null) return null;
  // "split <work> between <names>: <parts>", or "split <parts> between <names>" (the work is the task).
  const listed = m[3] !== undefined;
  const subject = listed ? m[1].trim() : (prompt.task?.title ? `“${prompt.task.title}”` : "this task");
  const explicit: Array<{ part: string; name: string }> = [];
  const assignees: string[] = [];
  for (const item of splitList(firstSentence(m[2]))) {
    const pairing = readPairing(item, roster);
    if (pairing !== null) explicit.push(pairing);
    else assignees.push(rosterName(item, roster));
  }
  const parts: string[] = [];
  for (const item of splitList(firstSentence(listed ? m[3] : m[1]))) {
    const pairing = readPairing(item, roster);
    if (pairing !== null) explicit.push(pairing);
    if (pairing === null || !parts.some((p) => normalizeName(p) === normalizeName(pairing.part))) parts.push(pairing?.part ?? item);
  }
  for (const { name } of explicit) if (!assignees.includes(name)) assignees.push(name);
  if (assignees.length === 0 || parts.length === 0) return null;
  if (parts.length < assignees.length) {
    return {
      problem:
        `I count ${parts.length} ${parts.length === 1 ? "part" : "parts"} for ${assignees.length} people. ` +
        `Tell me who takes what, e.g. "split ${listed ? subject : "the work"} between ${assignees.slice(0, parts.length).join(" and ")}: ${parts.map((p, i) => `${p} for ${assignees[i]}`).join(" and ")}".`,
    };
  }
  const owners = pairParts(parts, assignees, explicit, roster);
  const shares = assignees.map((name) => ({ name, parts: parts.filter((_, j) => owners[j] === name) })).filter((share) => share.parts.length > 0);
  const about = subject;
  const delegations = shares.map(({ name, parts: share }) => {
    const cores = share.map(withoutArticle);
    return {
      title: capitalise(joinAnd(cores)),
      description: `Part of ${about}: ${joinAnd(cores)}.`,
      assignees: [name],
      instruction: `Please take ${joinAnd(cores.map((c) => `the ${c}`))} for ${about} and post your progress here.`,
      priority: "medium" as const,
    };
  });
  return { say: `On it: splitting ${about} between ${joinAnd(shares.map((share) => share.name))}.`, delegations };
}

/** "the logo for Designer", "hero copy to @Writer", "Writer takes the copy", "Writer: the copy". */
function readPairing(item: string, roster: RosterMember[]): { part: string; name: string } | null {
  for (const member of roster) {
    const name = member.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const after = new RegExp(`^(.+?)\\s+(?:for|to|by|goes to|->)\\s+@?${name}$`, "i").exec(item);
    if (after) return { part: cleanItem(after[1]), name: member.name };
    const before = new RegExp(`^@?${name}\\s*(?::|takes|gets|does|handles|on)\\s+(.+)$`, "i").exec(item);
    if (before) return { part: cleanItem(before[1]), name: member.name };
  }
  return null;
}

/** Work words by the roles that do them: a part goes to the one person whose role it names. */
const ROLE_WORK: Array<{ role: RegExp; work: RegExp }> = [
  { role: /writ|copy|content|editor|market/i, work: /\b(?:copy|text|blog|post|article|e-?mail|newsletter|docs?|documentation|headline|tagline|terms|faq|announcement|content|wording|press)\b/i },
  { role: /design|ux|ui\b|artist|visual/i, work: /\b(?:logo|design|mock-?ups?|wireframes?|illustrations?|icons?|layout|visuals?|banner|images?|brand(?:ing)?|palette|colou?rs?)\b/i },
  { role: /engineer|dev|coder|program|full-?stack|back-?end|front-?end/i, work: /\b(?:api|form|backend|frontend|database|endpoint|code|bug|integration|server|deploy(?:ment)?|tests?|component)\b/i },
  { role: /architect/i, work: /\b(?:architecture|schema|system|review|plan|infrastructure|diagram|migration)\b/i },
];

/**
 * Who takes each part: what the request says first ("… for Writer"), then
 * the one named person whose role does that kind of work, then the one person
 * left without a part; only what none of these settles is handed out in turn.
 */
function pairParts(parts: string[], assignees: string[], explicit: Array<{ part: string; name: string }>, roster: RosterMember[]): string[] {
  const owners: Array<string | undefined> = parts.map((part) => explicit.find((e) => normalizeName(e.part) === normalizeName(part))?.name);
  const roleOf = (name: string) => `${name} ${roster.find((r) => r.name === name)?.role ?? ""}`;
  for (const [i, part] of parts.entries()) {
    if (owners[i] !== undefined) continue;
    const fits = assignees.filter((name) => ROLE_WORK.some(({ role, work }) => role.test(roleOf(name)) && work.test(part)));
    if (fits.length === 1) owners[i] = fits[0];
  }
  const idle = () => assignees.filter((name) => !owners.includes(name));
  const open = () => owners.flatMap((owner, i) => (owner === undefined ? [i] : []));
  if (idle().length === 1 && open().length === 1) owners[open()[0]] = idle()[0];
  // Nothing said: in turn, people without a part first.
  const turn = [...idle(), ...assignees.filter((name) => !idle().includes(name))];
  for (const [k, i] of open().entries()) owners[i] = turn[k % turn.length];
  return owners as string[];
}

/** "delegate the pricing page copy to Writer", several in one message allowed. */
function planDelegate(request: string, roster: RosterMember[], prompt: Prompt): Plan {
  const delegations: Delegation[] = [];
  for (const m of request.matchAll(/\bdelegate\s+/gi)) {
    const rest = request.slice(m.index + m[0].length);
    const target = findTarget(rest, roster);
    if (target === null) continue;
    delegations.push(singleDelegation(target.work, target.name, prompt));
  }
  if (delegations.length === 0) return null;
  const said = delegations.map((d) => `“${d.title}” to ${d.assignees[0]}`);
  return { say: `On it: delegating ${joinAnd(said)}.`, delegations };
}

/** The work and the assignee in "<work> to <Name>…": a roster name after " to " wins over the first " to ". */
function findTarget(text: string, roster: RosterMember[]): { work: string; name: string } | null {
  const sentence = firstSentence(text);
  const tos = [...sentence.matchAll(/\s+to\s+@?/gi)];
  for (const to of tos) {
    const after = sentence.slice(to.index + to[0].length);
    const member = roster
      .filter((r) => after.toLowerCase().startsWith(r.name.toLowerCase()))
      .sort((a, b) => b.name.length - a.name.length)[0];
    if (member) return { work: sentence.slice(0, to.index).trim(), name: member.name };
  }
  if (tos.length === 0) return null;
  const to = tos[0];
  const name = sentence
    .slice(to.index + to[0].length)
    .split(/\s*(?:,|;|\band\b|\bplease\b|\bthanks\b)\s*/i)[0]
    .trim();
  return name ? { work: sentence.slice(0, to.index).trim(), name } : null;
}

function singleDelegation(work: string, assignee: string, prompt: Prompt): Delegation {
  const title = prompt.task?.title ?? "";
  // "delegate this to Writer": the work is the task itself.
  if (/^(?:this|it|this task|the task)$/i.test(work) && title) {
    return {
      title,
      description: prompt.task?.description || `Delegated from “${title}”.`,
      assignees: [assignee],
      instruction: `Please take “${title}” and post your progress here.`,
      priority: "medium",
    };
  }
  const core = withoutArticle(cleanItem(work));
  return {
    title: capitalise(core),
    description: title ? `Delegated from “${title}”: ${core}.` : `${capitalise(core)}.`,
    assignees: [assignee],
    instruction: `Please take the ${core}${title ? ` for “${title}”` : ""} and post your progress here.`,
    priority: "medium",
  };
}

function howToAsk(prompt: Prompt, roster: RosterMember[], wasAsked: boolean): string {
  const others = roster.filter((r) => normalizeName(r.name) !== normalizeName(prompt.name));
  const [a, b] = [others[0]?.name ?? "Dev Bot", others[1]?.name ?? "Writer"];
  const me = prompt.name || "Jarvis";
  return [
    wasAsked ? "I'm running on the demo model (offline, rule-based), so I only understand two kinds of request:" : `I lead this squad. I'm running on the demo model (offline, rule-based); to hand out ${quoteTitle(prompt.task?.title)}, @mention me with one of:`,
    `- "@${me} split <the work> between ${a} and ${b}: <first part> and <second part>"`,
    `- "@${me} delegate <the work> to ${a}"`,
    others.length > 0 ? `The squad: ${others.map((r) => `${r.name} (${r.role})`).join(", ")}.` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

// ---------------------------------------------------------------- after tool calls

function summariseResults(results: string, previousReply: string, prompt: Prompt): string {
  const observations = readObservations(results);
  if (observations.length === 0) return "Done.";
  const calls = parseToolCalls(previousReply);
  // A specialist's card just moved to In progress: now the work itself, streamed, and the card to Review.
  const [only] = observations;
  if (
    prompt.roster === null &&
    observations.length === 1 &&
    only.tool === "update_task_status" &&
    calls[0]?.args?.status === "in_progress" &&
    !looksLikeFailure(only.text) &&
    prompt.task !== null &&
    !isInboxTask(prompt)
  ) {
    return finishWork(prompt);
  }
  // The work was the reply's words (said where the run answers) and the card is in Review now: nothing more to say.
  if (prompt.roster === null && observations.length === 1 && only.tool === "update_task_status" && calls[0]?.args?.status === "review" && calls.length === 1 && /\bto review\s*$/.test(only.text) && /ready for your review/.test(previousReply)) {
    return "";
  }
  const used = new Map<string, number>();
  const callFor = (tool: string): ParsedToolCall | undefined => {
    const index = used.get(tool) ?? 0;
    used.set(tool, index + 1);
    return calls.filter((c) => c.name === tool)[index];
  };

  const delegated: string[] = [];
  const sentences: string[] = [];
  for (const { tool, text } of observations) {
    const args = callFor(tool)?.args ?? {};
    if (tool === "propose_plan") {
      sentences.push(planOutcome(text));
      continue;
    }
    if (tool === "ask_question" && /\banswered:/.test(text)) {
      sentences.push(`Thanks for the answer (${clip(text.replace(/^.*?answered:\s*/, ""), 120)}); I'll carry on with ${quoteTitle(prompt.task?.title)}.`);
      continue;
    }
    if (tool === "delegate_task") {
      const title = typeof args.title === "string" ? args.title : quotedIn(text);
      const result = delegationResult(text);
      if (result !== null) {
        // The observation names the agents as resolved; the call, as the model wrote them.
        const resolved = result.assigneesResolved;
        const requested = Array.isArray(args.assignees) ? args.assignees.filter((n): n is string => typeof n === "string") : [];
        const names = resolved ?? requested.map((n) => rosterName(n, prompt.roster ?? []));
        const to = names.length > 0 ? ` to ${joinAnd(names)}` : "";
        delegated.push(`${title ? `“${title}”` : "a task"}${to}${result.alreadyExisted ? " (it already existed, so nothing new was created)" : ""}`);
      } else if (/\bdenied: expired\b/.test(text)) {
        sentences.push(`Nobody approved${title ? ` “${title}”` : " the delegation"} in time, so I didn't delegate it; ask me again if it's still needed.`);
      } else if (/\bdenied by\b/.test(text)) {
        sentences.push(`Understood: I won't delegate${title ? ` “${title}”` : " it"} (${clip(text.replace(/^delegate_task:\s*/, ""), 160)}).`);
      } else {
        sentences.push(`Couldn't delegate${title ? ` “${title}”` : ""}: ${clip(text)}`);
      }
      continue;
    }
    if (looksLikeFailure(text)) {
      sentences.push(`${FAILED[tool] ?? `${tool} failed`}: ${clip(text)}`);
      continue;
    }
    if (tool === "update_task_status") {
      const already = /already\s+(\w+)/.exec(text)?.[1];
      const status = already ?? (typeof args.status === "string" ? args.status : (/\bto\s+(\w+)\s*$/.exec(text)?.[1] ?? ""));
      const words = status.replace(/_/g, " ") || "the new column";
      sentences.push(already ? `It was already ${STATUS_WORDS_IN_SENTENCE[status] ?? words}.` : `Moved it to ${STATUS_WORDS[status] ?? words}.`);
    } else {
      sentences.push(DONE[tool] ?? `Ran ${tool}.`);
    }
  }
  if (delegated.length > 0) sentences.unshift(`Delegated ${joinAnd(delegated)}.`);
  return sentences.join(" ");
}

const STATUS_WORDS: Record<string, string> = {
  inbox: "the inbox",
  assigned: "assigned",
  in_progress: "in progress",
  review: "review",
  done: "done",
  blocked: "blocked",
};
const DONE: Record<string, string> = {
  post_message: "Posted in the thread.",
  ask_question: "Asked the humans; I'll carry on when someone answers.",
  "chat.post": "Posted in #maestro.",
  "chat.getNew": "Read the #maestro chat.",
};
const FAILED: Record<string, string> = {
  update_task_status: "Couldn't move it",
  post_message: "Couldn't post in the thread",
  ask_question: "Couldn't ask the question",
  "chat.post": "Couldn't post in #maestro",
  "chat.getNew": "Couldn't read the #maestro chat",
};

/** `[OBSERVATION tool] text` entries; continuation lines join the entry above, the brain's closing instruction ends the list. */
function readObservations(results: string): Array<{ tool: string; text: string }> {
  const observations: Array<{ tool: string; text: string }> = [];
  for (const line of results.split("\n").slice(1)) {
    const start = /^\s*\[OBSERVATION\s+([^\]\s]+)\]\s*(.*)$/.exec(line);
    if (start) observations.push({ tool: start[1], text: start[2] });
    else if (/^(?:You have used all your tool calls|Continue:)/.test(line)) break;
    else if (observations.length > 0) observations[observations.length - 1].text += `\n${unquote(line)}`;
  }
  return observations.map((o) => ({ ...o, text: o.text.trim() }));
}

/** What the lead says once its plan was decided: delegated as approved, or to be revised from the feedback. */
function planOutcome(text: string): string {
  if (/plan was approved/.test(text)) {
    const titles = text.split("\n").flatMap((line) => {
      const result = delegationResult(line.trim());
      return result === null ? [] : [`“${result.title}”`];
    });
    return titles.length > 0 ? `The plan is approved: delegated ${joinAnd(titles)}.` : `The plan is approved, but nothing new was delegated: ${clip(text)}`;
  }
  const feedback = /rejected by [^:.]+(?::\s*([^\n]*?))?\. Revise/.exec(text)?.[1];
  if (/rejected/.test(text)) return feedback ? `Understood: I'll revise the plan (${clip(feedback, 160)}) and propose it again.` : "Understood: I'll revise the plan and propose it again.";
  return `Couldn't propose the plan: ${clip(text)}`;
}

/** delegate_task's result as the spec words it (`{ok: true, taskId, title, assigneesResolved, …}`), or null for a refusal or failure. */
function delegationResult(text: string): { title: string; assigneesResolved: string[] | undefined; alreadyExisted: boolean } | null {
  if (!text.startsWith("{")) return null;
  try {
    const json = JSON.parse(text) as { ok?: unknown; title?: unknown; assigneesResolved?: unknown; alreadyExisted?: unknown };
    if (json.ok !== true || typeof json.title !== "string") return null;
    const resolved = Array.isArray(json.assigneesResolved) ? json.assigneesResolved.filter((n): n is string => typeof n === "string") : undefined;
    return { title: json.title, assigneesResolved: resolved, alreadyExisted: json.alreadyExisted === true };
  } catch {
    return null;
  }
}

function looksLikeFailure(text: string): boolean {
  return /\b(?:error|failed|failure|denied|not allowed|not permitted|unknown|invalid|refused|rejected|cannot|can't|could not|couldn't|not found|not run|not available)\b/i.test(text);
}

function quotedIn(text: string): string {
  return /“([^”]+)”/.exec(text)?.[1] ?? /"([^"]+)"/.exec(text)?.[1] ?? "";
}

// ---------------------------------------------------------------- words

/**
 * "A, B and C", "A, B, and C", "A & B" → items. An "and" before the last
 * comma belongs to an item ("terms and conditions, cookie banner").
 */
function splitList(text: string): string[] {
  const pieces = text.split(/\s*,\s*/);
  const last = (pieces.pop() ?? "").replace(/^(?:and|&)\s+/i, "");
  return [...pieces, ...last.split(/\s+and\s+|\s*&\s*/i)].map(cleanItem).filter(Boolean);
}

function cleanItem(text: string): string {
  return text
    .trim()
    .replace(/^@/, "")
    .replace(/[\s,;:.!?]+$/, "")
    .replace(/,?\s+please$/i, "")
    .trim();
}

function firstSentence(text: string): string {
  return text.split(/[.!?](?:\s|$)|\n/)[0];
}

function withoutArticle(text: string): string {
  return text.replace(/^(?:the|a|an)\s+/i, "");
}

function withoutSelfMention(text: string, name: string): string {
  if (!name) return text;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`@${escaped}\\b[,:]?\\s*`, "gi"), "");
}

/** The roster's spelling of `name` when it names a member; otherwise as written (the tool reports unknown names). */
function rosterName(name: string, roster: RosterMember[]): string {
  const key = normalizeName(name);
  return roster.find((r) => normalizeName(r.name) === key)?.name ?? name.replace(/^@/, "").trim();
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function joinAnd(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function quoteTitle(title: string | undefined): string {
  return title ? `“${title}”` : "this task";
}

function clip(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

function toolCall(name: string, args: Record<string, unknown>): string {
  return `[TOOL: ${name} ARG: ${JSON.stringify(args)}]`;
}
