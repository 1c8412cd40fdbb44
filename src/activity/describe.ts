import { AGENT_STATUS_OPTIONS, STATUS_OPTIONS } from "../board/options";
import type { ActivityEntry } from "./types";

type Describable = Pick<ActivityEntry, "type" | "actor" | "data">;

/** Task fields as `task_updated` names them, in the words a sentence uses. */
const FIELD_LABELS: Record<string, string> = {
  title: "the title",
  description: "the description",
  priority: "the priority",
  tags: "the tags",
  channel: "the channel it is followed in",
};

/**
 * The feed's sentence for an activity, e.g. "Ada moved “Pricing page copy”
 * from Assigned to In progress". Missing data reads as something vaguer
 * rather than failing, since `data` is a loose record.
 */
export function describeActivity({ type, actor, data }: Describable): string {
  const who = actorName(actor);
  const title = quoted(text(data.title)) ?? "a task";
  const by = actor.kind === "system" ? "" : ` by ${who}`;
  switch (type) {
    case "task_created":
      return `${who} created ${title}`;
    case "task_updated": {
      const fields = names(data.fields).map((field) => FIELD_LABELS[field] ?? field);
      return fields.length > 0 ? `${who} changed ${listOf(fields)} of ${title}` : `${who} edited ${title}`;
    }
    case "task_status_changed": {
      const to = label(STATUS_OPTIONS, text(data.to)) ?? "another column";
      const from = label(STATUS_OPTIONS, text(data.from));
      return from ? `${who} moved ${title} from ${from} to ${to}` : `${who} moved ${title} to ${to}`;
    }
    case "task_assigned": {
      const assignees = names(data.assignees);
      return assignees.length > 0 ? `${who} assigned ${title} to ${listOf(assignees)}` : `${who} unassigned everyone from ${title}`;
    }
    case "message_posted": {
      // The entry follows the message: its current text, marked edited, or nothing once deleted.
      if (data.deleted === true) return `${who} commented on ${title} (message deleted)`;
      const preview = quoted(text(data.preview));
      const edited = data.edited === true ? " (edited)" : "";
      return preview ? `${who} commented on ${title}: ${preview}${edited}` : `${who} commented on ${title}`;
    }
    case "agent_created": {
      const role = text(data.role);
      return `${text(data.name) ?? "An agent"} was created${by}${role ? ` (${role})` : ""}`;
    }
    case "agent_updated": {
      const agent = text(data.name) ?? "an agent";
      if (data.allowedTools === undefined || data.allowedTools === null) return `${who} updated ${agent}`;
      const tools = names(data.allowedTools);
      return tools.length > 0 ? `${who} updated ${agent}, who can now use ${listOf(tools)}` : `${who} updated ${agent}, who now has no tools`;
    }
    case "agent_status_changed": {
      const agent = text(data.name) ?? "An agent";
      const to = label(AGENT_STATUS_OPTIONS, text(data.to)) ?? "a new status";
      const from = label(AGENT_STATUS_OPTIONS, text(data.from));
      // An agent reporting its own status needs no "set by".
      const setBy = actor.kind === "member" ? ` (set by ${who})` : "";
      return from ? `${agent} went from ${from} to ${to}${setBy}` : `${agent} is now ${to}${setBy}`;
    }
    case "member_joined": {
      const name = text(data.name) ?? who;
      const role = text(data.role);
      return role && role !== "member" ? `${name} joined the department as ${role === "owner" || role === "admin" ? "an" : "a"} ${role}` : `${name} joined the department`;
    }
    case "member_role_changed":
      return `${who} made ${text(data.name) ?? "someone"} ${text(data.role) === "owner" || text(data.role) === "admin" ? "an" : "a"} ${text(data.role) ?? "member"}`;
    case "member_removed":
      return `${who} removed ${text(data.name) ?? "someone"} from the department`;
    case "delegation_created": {
      // Nothing records this type yet; these are the keys the other task entries use.
      const to = names(data.assignees ?? data.to);
      const parent = quoted(text(data.parentTitle));
      return `${who} delegated ${title}${to.length > 0 ? ` to ${listOf(to)}` : ""}${parent ? ` from ${parent}` : ""}`;
    }
    case "blocking_message_received": {
      const preview = quoted(text(data.preview));
      const agent = text(data.agent) ?? "an agent";
      // Entries before `blocking` was recorded were all blocking messages. The entry follows the message's edits.
      // A DM's or private channel's words are not quoted to the department: the entry names where instead.
      const where = text(data.where);
      const sent = `${who} sent ${agent} a ${data.blocking === false ? "" : "blocking "}message${where ? ` in ${where}` : ""}${data.title ? ` about ${title}` : ""}`;
      if (data.deleted === true) return `${sent} (message deleted)`;
      return `${sent}${preview ? `: ${preview}` : ""}${preview && data.edited === true ? " (edited)" : ""}`;
    }
    case "task_archived":
      return `${who} archived ${title}${stoppedRuns(data.stoppedRuns)}`;
    case "task_unarchived":
      return `${who} brought ${title} back from the archive`;
    case "task_deleted":
      return `${who} deleted ${title}${stoppedRuns(data.stoppedRuns)}`;
    case "message_edited": {
      const where = text(data.where) ?? (data.title ? `the thread of ${title}` : "a conversation");
      const preview = quoted(text(data.preview));
      return `${who} edited a message in ${where}${preview ? `: ${preview}` : ""}`;
    }
    case "message_deleted": {
      const where = text(data.where) ?? (data.title ? `the thread of ${title}` : "a conversation");
      const author = text(data.author);
      return author && author !== who ? `${who} deleted ${author}’s message in ${where}` : `${who} deleted a message in ${where}`;
    }
    default: {
      // A type added on the server before the client learned it.
      const unknown: never = type;
      return `${who} did something (${String(unknown)})`;
    }
  }
}

/** ", stopping 2 runs" when archiving or deleting stopped runs. */
function stoppedRuns(value: Value): string {
  const count = typeof value === "number" ? value : 0;
  return count > 0 ? `, stopping ${count} run${count === 1 ? "" : "s"}` : "";
}

/** Who an activity is by, as a sentence names them. */
export function actorName(actor: ActivityEntry["actor"]): string {
  return actor.kind === "system" ? "Maestro" : actor.name;
}

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

type Value = ActivityEntry["data"][string] | undefined;

function text(value: Value): string | undefined {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A comma-separated list the server stored as one string. */
function names(value: Value): string[] {
  return (text(value) ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}

function quoted(value: string | undefined): string | undefined {
  return value === undefined ? undefined : `“${value}”`;
}

function label(options: ReadonlyArray<{ value: string; label: string }>, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return options.find((option) => option.value === value)?.label ?? value.replaceAll("_", " ");
}
