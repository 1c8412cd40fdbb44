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

/** What happened, after the actor's name: "added Writer", "set the topic to “Ship it”", "posted a message (high, blocking)". */
export function eventSummary(event: Pick<LoggedEvent, "type" | "data">): string {
  const { data } = event;
  const text = (key: string) => (typeof data[key] === "string" ? (data[key] as string) : undefined);
  switch (event.type) {
    case "channels.created":
      return data.dm === true ? "opened a DM" : `created the channel${text("visibility") === "private" ? " (private)" : ""}`;
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
    default: {
      // a2a envelopes and anything newer: the intent's words and who it went to.
      const to = text("to");
      return `${event.type.replace(/^a2a\./, "").replace(/_/g, " ")}${to ? ` to ${to}` : ""}`;
    }
  }
}
