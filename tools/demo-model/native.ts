/**
 * Native tool calls for the demo model (and the tests' scripted model): a
 * request's `tools` and its conversation of `tool_calls` and `role: "tool"`
 * results are read into the text form the rules answer (the `=== TOOLS ===`
 * lines list exactly the request's tools; results come back as
 * `=== TOOL RESULTS ===`), and an answer's `[TOOL: …]` lines go out as
 * native `tool_calls`. Only how calls travel lives here; what to answer is
 * the rules' (rules.ts).
 */
import type { ChatMessage } from "../../convex/brain/model";
import { parseToolCalls, stripToolCalls } from "../../convex/lib/toolCalls";
import { toolNameFromWire, wireNameTable, wireToolName } from "../../convex/lib/toolNames";

/** A message of a request as the Chat Completions API sends it. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string } }>;
  tool_call_id?: string;
}

/** A request's function tool, as far as the demo reads it. */
interface WireTool {
  type?: string;
  function?: { name?: string; description?: string };
}

/** A native call to send: its id, wire name and arguments as JSON text. */
export interface OutgoingCall {
  id: string;
  name: string;
  arguments: string;
}

/** The names of the functions a request offers (its `tools`), as sent; empty when it offers none. */
export function requestToolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return (tools as WireTool[]).flatMap((t) => (t?.type === "function" && typeof t.function?.name === "string" ? [t.function.name] : []));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

const TOOLS_START = "=== TOOLS ===";
const TOOLS_END = "=== END TOOLS ===";

/**
 * A request's messages in the text form the rules read: with native tools,
 * the system prompt's tools section lists the request's functions
 * (`- name: description`); an assistant's `tool_calls` read as `[TOOL: …]`
 * lines after its text; a run of `tool` results (and the user line after
 * them) reads as one `=== TOOL RESULTS ===` message, each result named by
 * its call. Null when a message is not one the API allows.
 */
export function textConversation(messages: unknown, tools: unknown): ChatMessage[] | null {
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const offered = Array.isArray(tools) ? (tools as WireTool[]).filter((t) => typeof t?.function?.name === "string") : [];
  const names = wireNameTable(offered.map((t) => t.function!.name!));
  const toolName = (wire: string) => toolNameFromWire(names, wire) ?? wire;
  const callNames = new Map<string, string>();
  const out: ChatMessage[] = [];
  let results: string[] | null = null;
  const closeResults = (tail?: string) => {
    if (results === null) return;
    out.push({ role: "user", content: ["=== TOOL RESULTS ===", ...results, tail ?? "Continue: call more tools if needed, or reply to the thread."].join("\n") });
    results = null;
  };
  for (const item of messages as WireMessage[]) {
    if (typeof item !== "object" || item === null) return null;
    const role = item.role === "developer" ? "system" : item.role;
    if (role === "tool") {
      results ??= [];
      const name = callNames.get(item.tool_call_id ?? "") ?? "tool";
      results.push(`[OBSERVATION ${name}] ${textOf(item.content)}`);
      continue;
    }
    if (role === "user" && results !== null) {
      closeResults(textOf(item.content));
      continue;
    }
    closeResults();
    if (role !== "system" && role !== "user" && role !== "assistant") return null;
    if (typeof item.content !== "string" && !Array.isArray(item.content) && item.content !== null && item.content !== undefined) return null;
    let content = textOf(item.content);
    if (role === "system" && offered.length > 0) content = withToolsSection(content, offered, toolName);
    if (role === "assistant" && Array.isArray(item.tool_calls)) {
      const lines = item.tool_calls.map((call) => {
        const name = toolName(call.function?.name ?? "");
        if (call.id !== undefined) callNames.set(call.id, name);
        return `[TOOL: ${name} ARG: ${call.function?.arguments?.trim() || "{}"}]`;
      });
      content = [content, ...lines].filter((line) => line !== "").join("\n");
    }
    out.push({ role, content });
  }
  closeResults();
  return out;
}

/** The system prompt with its tools section listing exactly the offered functions. */
function withToolsSection(system: string, offered: WireTool[], toolName: (wire: string) => string): string {
  const lines = [TOOLS_START, ...offered.map((t) => `- ${toolName(t.function!.name!)}: ${t.function!.description ?? ""}`), TOOLS_END].join("\n");
  const start = system.indexOf(TOOLS_START);
  const end = system.indexOf(TOOLS_END, start);
  if (start === -1 || end === -1) return `${system}\n\n${lines}`;
  return system.slice(0, start) + lines + system.slice(end + TOOLS_END.length);
}

/**
 * An answer written with `[TOOL: …]` lines as a native one: its text
 * without the calls, and the calls in order, each under its wire name with
 * an id. The calls stay in the text when the request offered no tools.
 */
export function nativeAnswer(content: string, offered: readonly string[]): { text: string; calls: OutgoingCall[] } {
  if (offered.length === 0) return { text: content, calls: [] };
  const calls = parseToolCalls(content).map((call, i) => ({
    id: `call_${i + 1}_${Math.random().toString(36).slice(2, 10)}`,
    name: wireToolName(call.name),
    arguments: call.args === undefined ? call.raw.replace(/^\[TOOL:\s*\S+\s*(?:ARG:)?\s*/, "").replace(/\]$/, "") : JSON.stringify(call.args),
  }));
  return { text: calls.length === 0 ? content : stripToolCalls(content), calls };
}
