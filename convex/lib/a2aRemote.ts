/**
 * A2A agents as squad members (issue 45, part 2), the pure half: what an
 * agent card must hold to be added (its name, description, skills and a
 * JSON-RPC endpoint, every URL it names checked as a webhook's is), what
 * Maestro sends the remote agent, how the remote task's states map onto the
 * card, what its parts and artifacts read as in the thread, and how often
 * and how long Maestro looks again. The SDK's wire types stay in the action
 * (convex/a2aRemoteCalls.ts): here they are plain data.
 */
import { MaestroError } from "./errors";
import { checkWebhookUrl } from "./webhooks";
import { untrustedName } from "./untrusted";

/** Limits of what a remote agent may hand Maestro, and of how long Maestro waits on it. */
export const A2A_REMOTE_LIMITS = {
  /** An agent card's body. */
  cardBytes: 64_000,
  /** Any other answer's body (a task with its artifacts). */
  responseBytes: 1_000_000,
  /** One call (the card, a message, a poll, a cancel). */
  callTimeoutMs: 15_000,
  /** The first poll waits this long, each next one twice as long up to `pollMaxMs`. */
  pollBaseMs: 2_000,
  pollMaxMs: 60_000,
  /** From a message sent to its task's end: past this the card is Blocked and the remote task canceled. */
  deadlineMs: 30 * 60_000,
  /** Calls that fail in a row before Maestro gives up on the remote agent. */
  maxFailures: 5,
  skills: 20,
  skillNameChars: 80,
  skillDescriptionChars: 300,
  descriptionChars: 1_000,
  /** The deliverable posted in the thread (the thread's own message limit is the hard one). */
  deliverableChars: 9_000,
  /** The thread's newest messages sent with a task. */
  threadMessages: 10,
} as const;

/** The protocol's task states, by their names in the spec (the SDK's enum names them `TASK_STATE_…`). */
export type RemoteState = "submitted" | "working" | "input_required" | "completed" | "failed" | "canceled" | "rejected" | "auth_required" | "unknown";

/** A part of a message or an artifact, as plain data. */
export type RemotePart = { kind: "text"; text: string } | { kind: "data"; data: unknown } | { kind: "url"; url: string; filename: string } | { kind: "raw"; bytes: number; filename: string };

/** What one answer of the remote agent says about its task, its parts already read as text (`partsText`) and cut to size. */
export interface RemoteTaskView {
  remoteTaskId?: string;
  contextId?: string;
  state: RemoteState;
  /** Its status message (its question, or why it failed). */
  statusText: string;
  artifacts: Array<{ name: string; text: string }>;
}

/** A card's fields as the SDK hands them (v0.3 cards already translated). */
export interface CardInput {
  name?: unknown;
  description?: unknown;
  skills?: unknown;
  supportedInterfaces?: unknown;
}

export interface CheckedCard {
  name: string;
  description: string;
  skills: Array<{ id: string; name: string; description: string }>;
  endpointUrl: string;
  protocolVersion: string;
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** `value` on one line, trimmed and cut to `max` characters. */
function oneLine(value: unknown, max: number): string {
  const line = untrustedName(text(value)).trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A URL the remote agent names (its card, its endpoint), checked as a webhook URL is; `what` says which in the refusal. */
export function checkRemoteUrl(raw: string, allowPrivate: boolean, what: string): string {
  try {
    return checkWebhookUrl(raw, allowPrivate);
  } catch (error) {
    const message = error instanceof MaestroError ? error.data.message.replace(/webhooks?/gi, "A2A agents") : "not a valid URL";
    throw new MaestroError("INVALID_ARGUMENT", `${what}: ${message}`);
  }
}

/**
 * The agent card an admin added, checked: a name, a JSON-RPC interface, and
 * every interface URL it names public (a card that points inward is
 * refused whole, whichever interface would be used). Description and skills
 * are kept on one line each and cut to size.
 */
export function checkCard(card: CardInput, allowPrivate: boolean): CheckedCard {
  const name = oneLine(card.name, 60);
  if (name === "") throw new MaestroError("INVALID_ARGUMENT", "The agent card has no name.");
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as Array<Record<string, unknown>>) : [];
  if (interfaces.length > 20) throw new MaestroError("INVALID_ARGUMENT", "The agent card names more than 20 interfaces.");
  for (const entry of interfaces) checkRemoteUrl(text(entry.url), allowPrivate, "The agent card's endpoint");
  const jsonRpc = interfaces.find((entry) => text(entry.protocolBinding).toUpperCase() === "JSONRPC");
  if (jsonRpc === undefined) throw new MaestroError("INVALID_ARGUMENT", "The agent card names no JSON-RPC endpoint, the one transport Maestro speaks.");
  const rawSkills = Array.isArray(card.skills) ? (card.skills as Array<Record<string, unknown>>) : [];
  const skills = rawSkills.slice(0, A2A_REMOTE_LIMITS.skills).map((skill) => ({
    id: oneLine(skill.id, A2A_REMOTE_LIMITS.skillNameChars),
    name: oneLine(skill.name, A2A_REMOTE_LIMITS.skillNameChars),
    description: oneLine(skill.description, A2A_REMOTE_LIMITS.skillDescriptionChars),
  }));
  return {
    name,
    description: oneLine(card.description, A2A_REMOTE_LIMITS.descriptionChars),
    skills: skills.filter((s) => s.name !== "" || s.id !== ""),
    endpointUrl: checkRemoteUrl(text(jsonRpc.url), allowPrivate, "The agent card's endpoint"),
    protocolVersion: text(jsonRpc.protocolVersion) || "1.0",
  };
}

/** The roster's role line for an A2A agent: its card's description, on one line, within the role's limit. */
export function roleFromCard(description: string, maxChars: number): string {
  const line = description === "" ? "A2A agent" : description;
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

/** The first message of a task: its title, description, instruction and the thread's context (the spec's context pack). */
export function taskMessageText(input: { title: string; description: string; instruction: string | null; thread: string[]; contextPack: string }): string {
  const parts = [`Task: ${input.title}`];
  if (input.description.trim() !== "") parts.push(`Description:\n${input.description.trim()}`);
  if (input.instruction !== null) parts.push(`Instruction:\n${input.instruction}`);
  if (input.thread.length > 0) parts.push(`Thread so far:\n${input.thread.join("\n")}`);
  if (input.contextPack !== "") parts.push(input.contextPack);
  parts.push("When you are done, answer with your deliverable as artifacts.");
  return parts.join("\n\n");
}

/** What a part reads as in the thread: text as it is, data as JSON, a file by its name (and address). */
export function partText(part: RemotePart): string {
  switch (part.kind) {
    case "text":
      return part.text;
    case "data":
      return `\`\`\`json\n${JSON.stringify(part.data, null, 2) ?? "null"}\n\`\`\``;
    case "url":
      return `[file ${part.filename || "(unnamed)"}: ${part.url}]`;
    case "raw":
      return `[file ${part.filename || "(unnamed)"}, ${part.bytes} bytes, not kept]`;
  }
}

/** `text` cut to `max` characters, said so. */
export function cutText(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 40)}\n… (cut: the rest was too long to post)` : value;
}

export function partsText(parts: readonly RemotePart[]): string {
  return parts
    .map(partText)
    .filter((t) => t.trim() !== "")
    .join("\n\n");
}

/** The deliverable posted when the remote task completed: each artifact under its name, cut to the thread's size. */
export function deliverableText(agentName: string, view: Pick<RemoteTaskView, "statusText" | "artifacts">): string {
  const body = view.artifacts
    .map((a) => [a.name.trim() === "" ? null : `**${oneLine(a.name, 120)}**`, a.text].filter((x) => x !== null && x.trim() !== "").join("\n"))
    .filter((x) => x !== "")
    .join("\n\n");
  const said = body.trim() === "" ? view.statusText : body;
  return cutText(`📦 Deliverable from ${agentName} (A2A):\n\n${said.trim() === "" ? "(the agent finished without an artifact)" : said}`, A2A_REMOTE_LIMITS.deliverableChars);
}

/** How long to wait before poll number `polls + 1`. */
export function pollDelayMs(polls: number): number {
  return Math.min(A2A_REMOTE_LIMITS.pollMaxMs, A2A_REMOTE_LIMITS.pollBaseMs * 2 ** Math.min(polls, 16));
}

/** What a remote state asks of the card: keep following, ask the squad, or end (completed, failed, canceled). */
export function outcomeOf(state: RemoteState): "follow" | "ask" | "completed" | "failed" | "canceled" {
  switch (state) {
    case "submitted":
    case "working":
    case "unknown":
      return "follow";
    case "input_required":
      return "ask";
    case "completed":
      return "completed";
    case "canceled":
      return "canceled";
    default:
      return "failed";
  }
}

/** The thread note for a remote task that ended badly. */
export function failureNote(agentName: string, state: RemoteState, said: string): string {
  const what = state === "rejected" ? "rejected the task" : state === "auth_required" ? "asks for authentication Maestro cannot give" : state === "canceled" ? "canceled the task" : "failed";
  const why = said.trim() === "" ? "" : `: ${cutText(said.trim(), 2_000)}`;
  return `⚠️ ${agentName} (A2A) ${what}${why}`;
}
