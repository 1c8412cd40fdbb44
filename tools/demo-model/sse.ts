/**
 * OpenAI-compatible streaming (`stream: true`): a chat completion sent as
 * server-sent `chat.completion.chunk` events, ending with `data: [DONE]`.
 * Shared by the demo model and the tests' scripted model.
 */
import type { ServerResponse } from "node:http";

export interface StreamedCompletion {
  id: string;
  model: string;
  /** The text, already cut into the pieces to send. */
  pieces: string[];
  /** Sent in a last chunk with no choices, as OpenAI does for `stream_options.include_usage`. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Waits between pieces (a slow model); resolves false to stop sending. */
  between?: () => Promise<boolean | void>;
  /**
   * Native tool calls, sent after the text: each opens with its id and name,
   * then its arguments in pieces (or whole, in one chunk, with `wholeCalls`);
   * the answer then finishes with `tool_calls`.
   */
  calls?: ReadonlyArray<{ id: string; name: string; arguments: string }>;
  wholeCalls?: boolean;
  /** Text pieces sent after the calls. */
  after?: string[];
}

/** Cuts text into pieces of about `size` characters, at spaces where it can. */
export function pieces(text: string, size = 12): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const space = rest.indexOf(" ", size);
    const cut = space === -1 || space > size * 2 ? size : space + 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== "") out.push(rest);
  return out;
}

export async function sendCompletionStream(res: ServerResponse, completion: StreamedCompletion): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: completion.id, object: "chat.completion.chunk", created, model: completion.model, choices, ...extra })}\n\n`;
  const delta = (value: Record<string, unknown>) => chunk([{ index: 0, delta: value, finish_reason: null, logprobs: null }]);
  res.write(delta({ role: "assistant", content: "" }));
  const deltas: Array<Record<string, unknown>> = completion.pieces.map((piece) => ({ content: piece }));
  for (const [index, call] of (completion.calls ?? []).entries()) {
    const opening = { index, id: call.id, type: "function", function: { name: call.name, arguments: completion.wholeCalls === true ? call.arguments : "" } };
    deltas.push({ tool_calls: [opening] });
    if (completion.wholeCalls !== true) for (const piece of pieces(call.arguments, 16)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  for (const piece of completion.after ?? []) deltas.push({ content: piece });
  for (const [index, value] of deltas.entries()) {
    if (index > 0 && completion.between !== undefined && (await completion.between()) === false) break;
    if (res.destroyed) return;
    res.write(delta(value));
  }
  if (res.destroyed) return;
  const finish = (completion.calls ?? []).length > 0 ? "tool_calls" : "stop";
  res.write(chunk([{ index: 0, delta: {}, finish_reason: finish, logprobs: null }]));
  const usage = completion.usage;
  if (usage) res.write(chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
  res.end("data: [DONE]\n\n");
}
