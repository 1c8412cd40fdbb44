// The event log's words: the filters' options and one line per event, as an admin reads them.
import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import { EVENT_TYPES } from "../../convex/lib/events";
import type { EventType } from "../../convex/validators";

export type LoggedEvent = FunctionReturnType<typeof api.events.list>["page"][number];

/** The type filter's options; "" is every type. */
export const EVENT_TYPE_OPTIONS: ReadonlyArray<{ value: EventType | ""; label: string }> = [
  { value: "", label: "All types" },
  ...EVENT_TYPES.map((type) => ({ value: type, label: type })),
];

/**
 * The actor filter's options: anyone, Maestro itself, then the people (by
 * their member key) and the agents (by session key) of the department.
 */
export function actorOptions(
  people: ReadonlyArray<{ key: string; name: string }>,
  agents: ReadonlyArray<{ sessionKey: string; name: string }>,
): Array<{ value: string; label: string }> {
  return [
    { value: "", label: "Anyone" },
    { value: "system", label: "Maestro (system)" },
    ...people.map((p) => ({ value: p.key, label: p.name })),
    ...agents.map((a) => ({ value: a.sessionKey, label: `${a.name} (agent)` })),
  ];
}

/** The channel filter's options: every channel (not DMs) the admin can see, by name. */
export function channelOptions(channels: ReadonlyArray<{ _id: string; kind: "channel" | "dm"; name: string }>): Array<{ value: string; label: string }> {
  return [
    { value: "", label: "Any channel" },
    ...channels
      .filter((c) => c.kind === "channel")
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => ({ value: c._id, label: `#${c.name}` })),
  ];
}

export function actorLabel(actor: LoggedEvent["actor"]): string {
  return actor.kind === "system" ? "Maestro" : actor.name;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A delegated task's reported status, in the status update's words (reactions/a2a). */
const STATUS_WORDS: Record<string, string> = { in_progress: "has started", review: "is ready for review", done: "is done", blocked: "is blocked" };

/**
 * Where an event happened, after its summary ("in #launch"), or undefined when
 * the summary already says it: a DM's creation is "opened a DM", never "opened
 * a DM in a DM".
 */
export function eventPlace(event: Pick<LoggedEvent, "type" | "data" | "where">): string | undefined {
  if (event.where === undefined) return undefined;
  if (event.type === "channels.created" && event.data.dm === true) return undefined;
  return event.where;
}

/** What happened, after the actor's name: "added Writer", "set the topic to “Ship it”", "posted a message (high, blocking)". */
export function eventSummary(event: Pick<LoggedEvent, "type" | "data">): string {
  const { data } = event;
  const text = (key: string) => (typeof data[key] === "string" ? (data[key] as string) : undefined);
  switch (event.type) {
    case "channels.created":
      if (data.dm === true) return typeof data.participants === "number" ? `opened a DM for ${plural(data.participants, "person", "people")}` : "opened a DM";
      return `created the channel${text("visibility") === "private" ? " (private)" : ""}`;
    case "channels.updated":
      if (text("added") !== undefined) return `added ${text("added")}`;
      if (text("removed") !== undefined) return `removed ${text("removed")}`;
      if (text("topic") !== undefined) return text("topic") === "" ? "cleared the topic" : `set the topic to “${text("topic")}”`;
      if (data.archived === false) return "unarchived the channel";
      return "changed the channel";
    case "channels.archived":
      return "archived the channel";
    case "messaging.created":
      return "started the conversation";
    case "messaging.posted": {
      const flags = [text("importance") !== undefined && text("importance") !== "normal" ? text("importance") : null, data.blocking === true ? "blocking" : null].filter(Boolean);
      return `posted a message${flags.length > 0 ? ` (${flags.join(", ")})` : ""}`;
    }
    case "messaging.read":
      return typeof data.count === "number" ? `read ${plural(data.count, "message", "messages")}` : "read messages";
    case "messaging.thread_created":
      return "started a thread";
    case "webhooks.test":
      return "sent a test delivery to the webhook";
    case "a2a.delegate": {
      const title = text("title");
      return `delegated ${title ? `“${title}”` : "a task"} to ${text("to") || "nobody yet"}`;
    }
    case "a2a.request_tool":
      return `asked ${text("to") || "someone"} to run ${text("tool") ?? "a tool"}`;
    case "a2a.status_update": {
      const status = text("status");
      const to = text("to") || "the delegator";
      if (status === undefined) return `sent ${to} a status update`;
      return `told ${to} the task ${STATUS_WORDS[status] ?? `is now ${status.replace(/_/g, " ")}`}`;
    }
    default: {
      // Every type has its words above; an event type added later reads as its name until it does.
      const type: string = event.type;
      return type.replace(/\./g, " ").replace(/_/g, " ");
    }
  }
}
