/**
 * Idempotency keys for side-effecting tool calls, derived from what caused
 * the call (the run's task, agent and trigger), the tool and its canonical
 * arguments — never from the run. A retried run, a resumed run or a
 * duplicate of the same trigger therefore finds the effect of the first call
 * instead of repeating it. Pure: no Convex context.
 */
import { MaestroError } from "./errors";
import { sha256Hex } from "./sha256";

/** What caused a run, as far as idempotency is concerned. */
export interface RunCause {
  taskId: string;
  agentSessionKey: string;
  trigger: { kind: string; messageId?: string; channelMessageId?: string; note?: string };
}

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, inner]) => inner !== undefined)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, inner]) => [k, sortKeys(inner)]),
          )
        : v;
  return JSON.stringify(sortKeys(value)) ?? "null";
}

/**
 * The cause as one stable string: the trigger's thread message or blocking
 * channel message when it has one, else its note.
 */
export function causeText(cause: RunCause): string {
  const { kind, messageId, channelMessageId, note } = cause.trigger;
  const byMessage = messageId !== undefined || channelMessageId !== undefined;
  return canonicalJson({ task: cause.taskId, agent: cause.agentSessionKey, kind, message: messageId, channelMessage: channelMessageId, note: byMessage ? undefined : note });
}

/** The key of one tool call: the same cause, tool and arguments always give the same key. */
export function idempotencyKey(cause: RunCause, tool: string, args: unknown): string {
  return `${tool}:${sha256Hex(`${causeText(cause)}\n${tool}\n${canonicalJson(args)}`)}`;
}

/** Longest client message id accepted. */
export const MAX_CLIENT_MESSAGE_ID_CHARS = 128;

/**
 * The idempotency key of a send that carries the client's own message id
 * (the app's composers, the HTTP API's `client_message_id`): the sender's
 * key (an agent's sessionKey, `member:<userId>`) and the id, so one sender's
 * retry acts once and another sender's equal id is another message.
 * Undefined when the client gave no id.
 */
export function clientSendKey(senderKey: string, clientMessageId: string | undefined): string | undefined {
  if (clientMessageId === undefined) return undefined;
  if (clientMessageId.trim() === "" || clientMessageId.length > MAX_CLIENT_MESSAGE_ID_CHARS) {
    throw new MaestroError("INVALID_ARGUMENT", `A client message id is 1 to ${MAX_CLIENT_MESSAGE_ID_CHARS} characters.`);
  }
  return `client:${senderKey}:${clientMessageId}`;
}
