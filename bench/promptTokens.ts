/**
 * A chat request's prompt tokens, counted as model servers count them, for
 * the benchmarks that weigh tools sent natively against tools listed in the
 * prompt's text. Two servers' ways, both printed, neither flattering:
 *
 * - `openai`: OpenAI does not read the tools' JSON; it renders each function
 *   as a line of text (name, description, each parameter's name, type and
 *   enum values) inside a fixed frame. The count follows the OpenAI
 *   Cookbook's "How to count tokens with tiktoken", section "Counting tokens
 *   for chat completions with tool calls" (`num_tokens_for_tools`, with its
 *   gpt-4 constants, whose encoding is the cl100k_base that lib/tokens
 *   counts with), and its `num_tokens_from_messages` for the messages (3 per
 *   message, 3 priming the reply). The Cookbook reads a nested parameter
 *   (an array of objects) by its top type only; here such a parameter's
 *   type is written out in full (`{title: string, …}[]`), so it is not
 *   undercounted.
 * - `json`: chat templates that paste the tools' JSON into the prompt
 *   (Llama 3.1 and Qwen 2.5 templates on Ollama, vLLM or llama.cpp) cost the
 *   JSON's tokens as sent.
 */
import { countTokens } from "../convex/lib/tokens";

/** The Cookbook's constants for gpt-4 / gpt-3.5-turbo (cl100k_base). */
const FUNC_INIT = 10;
const PROP_INIT = 3;
const PROP_KEY = 3;
const ENUM_INIT = -3;
const ENUM_ITEM = 3;
const FUNC_END = 12;
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

type Schema = { type?: string; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; description?: string };
type Tool = { function: { name: string; description?: string; parameters?: Schema } };
type Message = { content?: unknown; tool_calls?: unknown };

/** A parameter's type as the rendering writes it: a nested shape in full. */
function typeText(schema: Schema): string {
  if (schema.anyOf !== undefined) return schema.anyOf.map(typeText).join(" | ");
  if (schema.enum !== undefined) return schema.enum.map((e) => JSON.stringify(e)).join(" | ");
  if (schema.type === "array") return `${schema.items === undefined ? "any" : typeText(schema.items)}[]`;
  if (schema.type === "object" && schema.properties !== undefined) {
    const required = new Set(schema.required ?? []);
    return `{${Object.entries(schema.properties)
      .map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${typeText(value)}`)
      .join(", ")}}`;
  }
  return schema.type ?? "any";
}

/** The tools' tokens as OpenAI renders them (see the module's note). */
export function openAiToolTokens(tools: readonly Tool[]): number {
  if (tools.length === 0) return 0;
  let total = FUNC_END;
  for (const { function: fn } of tools) {
    total += FUNC_INIT + countTokens(`${fn.name}:${(fn.description ?? "").replace(/\.$/, "")}`);
    const properties = Object.entries(fn.parameters?.properties ?? {});
    if (properties.length > 0) total += PROP_INIT;
    for (const [key, schema] of properties) {
      total += PROP_KEY;
      // A top-level enum: its items counted one by one, under its plain type (the Cookbook's way).
      if (schema.enum !== undefined) total += ENUM_INIT + schema.enum.reduce<number>((sum, item) => sum + ENUM_ITEM + countTokens(String(item)), 0);
      const type = schema.enum !== undefined ? (schema.type ?? "string") : typeText(schema);
      total += countTokens(`${key}:${type}:${(schema.description ?? "").replace(/\.$/, "")}`);
    }
  }
  return total;
}

/** The messages' tokens (the Cookbook's count; an assistant message's calls as their JSON). */
export function messageTokens(messages: readonly Message[]): number {
  return messages.reduce(
    (sum, m) => sum + PER_MESSAGE + countTokens(typeof m.content === "string" ? m.content : "") + (m.tool_calls === undefined ? 0 : countTokens(JSON.stringify(m.tool_calls))),
    REPLY_PRIMING,
  );
}

/** A request body's prompt tokens, with its tools (if any) counted the server's way. */
export function promptTokens(body: { messages?: unknown; tools?: unknown }, way: "openai" | "json"): number {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const tools = (Array.isArray(body.tools) ? body.tools : []) as Tool[];
  const toolTokens = tools.length === 0 ? 0 : way === "openai" ? openAiToolTokens(tools) : countTokens(JSON.stringify(tools));
  return messageTokens(messages) + toolTokens;
}

/** Native against text, in words: the tokens saved, or that native costs more (never hidden). */
export function savingLine(way: string, native: number, text: number): string {
  const difference = Math.round(text - native);
  const percent = text === 0 ? 0 : Math.abs(difference / text) * 100;
  if (difference > 0) return `tools native save ${difference} prompt tokens per request (${percent.toFixed(0)}%) by ${way} (median ${Math.round(native)} native against ${Math.round(text)} in text)`;
  if (difference === 0) return `tools native cost the same by ${way} (median ${Math.round(native)} tokens)`;
  return `tools native cost ${-difference} prompt tokens MORE per request (${percent.toFixed(0)}%) by ${way}: no saving (median ${Math.round(native)} native against ${Math.round(text)} in text)`;
}
