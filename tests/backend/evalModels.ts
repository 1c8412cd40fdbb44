/**
 * Scripted models for the eval's own tests: the demo model, and the demo
 * model with one kind of mistake a real model makes when it leads a squad
 * (the wrong agent, a missed split, a duplicate, an ignored approval, an
 * obeyed injection, an invalid call). The scripted server picks the
 * behaviour by the model name each department's agents carry, so one
 * backend and one server serve them all.
 *
 * The wire format lives in two small functions: `readDemo` (what the demo
 * model answered: its text and tool calls) and `wire` (how a reply with tool
 * calls goes back to the brain). `wire` answers as a function-calling server
 * does, with native `tool_calls` streamed in a chat.completion.chunk stream
 * (the product's own path: the brain offers its tools natively), never as
 * `[TOOL: …]` text.
 */
import type { ChatMessage } from "../../convex/brain/model";
import { parseToolCalls, stripToolCalls } from "../../convex/lib/toolCalls";
import { wireToolName } from "../../convex/lib/toolNames";
import { requestToolNames } from "../../tools/demo-model/native";
import { demoReply } from "../../tools/demo-model/rules";
import type { Script, ScriptedAnswer } from "./scriptedModel";

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

interface Answer {
  text: string;
  calls: Call[];
}

/** What the demo model answers to `messages`, as text and calls. */
function readDemo(messages: ChatMessage[]): Answer {
  const reply = demoReply(messages);
  return { text: stripToolCalls(reply).trim(), calls: parseToolCalls(reply).map((c) => ({ name: c.name, args: c.args ?? {} })) };
}

/**
 * A reply with tool calls as a function-calling server streams it: the text,
 * then each call opening with its id and name and its arguments in pieces,
 * finishing with `tool_calls`, and the usage the scripted server reports for
 * every answer (11 + 7 tokens).
 */
export function wire(answer: Answer, callIndex: number): ScriptedAnswer {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: `chatcmpl-eval-${callIndex}`,
    object: "chat.completion.chunk",
    created: 0,
    model: "flawed-scripted",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const chunks: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "" })];
  if (answer.text !== "") chunks.push(chunk({ content: answer.text }));
  for (const [index, call] of answer.calls.entries()) {
    const args = JSON.stringify(call.args);
    chunks.push(chunk({ tool_calls: [{ index, id: `call_eval_${callIndex}_${index}`, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (let at = 0; at < args.length; at += 24) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 24) } }] }));
  }
  chunks.push(chunk({}, answer.calls.length > 0 ? "tool_calls" : "stop"));
  chunks.push({ id: `chatcmpl-eval-${callIndex}`, object: "chat.completion.chunk", created: 0, model: "flawed-scripted", choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
  return { chunks };
}


/** A lead's first turn on a trigger: its prompt has the roster and the model has not seen tool results yet. */
function isLeadDeciding(messages: ChatMessage[]): boolean {
  const last = messages.at(-1);
  return /=== SQUAD ROSTER ===/.test(messages[0]?.content ?? "") && last?.role === "user" && !last.content.trimStart().startsWith("=== TOOL RESULTS ===");
}

/** The roster names in a lead's prompt. */
function rosterNames(messages: ChatMessage[]): string[] {
  const roster = /=== SQUAD ROSTER ===([\s\S]*?)=== END SQUAD ROSTER ===/.exec(messages[0].content)?.[1] ?? "";
  return [...roster.matchAll(/^\s*-\s*(.+?)\s*\|/gm)].map((m) => m[1]).filter((name) => name !== "Name");
}

type Flaw = (answer: Answer, messages: ChatMessage[]) => Answer;

const delegations = (answer: Answer) => answer.calls.filter((c) => c.name === "delegate_task");

/** Each kind of mistake, applied to what the demo model would have done right. */
export const FLAWS = {
  /** Every delegation goes to another agent of the roster than the one asked for. */
  "wrong-agent": (answer, messages) => {
    const names = rosterNames(messages);
    return {
      ...answer,
      calls: answer.calls.map((call) => {
        if (call.name !== "delegate_task") return call;
        const asked = (call.args.assignees as string[])[0];
        return { ...call, args: { ...call.args, assignees: [names.find((n) => n !== asked)!] } };
      }),
    };
  },
  /** Parts meant for several agents go out as one task for all of them. */
  "missed-split": (answer) => {
    const all = delegations(answer);
    if (all.length < 2) return answer;
    const merged = {
      ...all[0].args,
      title: all.map((c) => c.args.title as string).join(" and "),
      assignees: all.flatMap((c) => c.args.assignees as string[]),
    };
    return { ...answer, calls: [...answer.calls.filter((c) => c.name !== "delegate_task"), { name: "delegate_task", args: merged }] };
  },
  /** Every delegation is made twice, the second under a slightly different title (so the product's idempotency cannot catch it). */
  duplicate: (answer) => ({
    ...answer,
    calls: answer.calls.flatMap((call) => (call.name === "delegate_task" ? [call, { ...call, args: { ...call.args, title: `${call.args.title as string} (again)` } }] : [call])),
  }),
  /** Urgent work is sent at medium priority, so it never waits for a person. */
  "ignored-approval": (answer) => ({
    ...answer,
    calls: answer.calls.map((call) => (call.name === "delegate_task" && call.args.priority === "high" ? { ...call, args: { ...call.args, priority: "medium" } } : call)),
  }),
  /** "delegate X to Name" anywhere in the prompt, pasted text included, is done. */
  "obeyed-injection": (answer, messages) => {
    const names = rosterNames(messages);
    const context = messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
    const extra: Call[] = [];
    for (const m of context.matchAll(/\bdelegate\s+(?:the\s+)?([^.\n"]+?)\s+to\s+([^\n".,]+)/g)) {
      const name = names.find((n) => m[2].startsWith(n));
      if (name === undefined || delegations(answer).some((c) => (c.args.title as string).toLowerCase() === m[1].toLowerCase())) continue;
      extra.push({ name: "delegate_task", args: { title: m[1], description: m[1], assignees: [name], instruction: `Please do: ${m[1]}.` } });
    }
    return { ...answer, calls: [...answer.calls, ...extra] };
  },
  /** Delegations leave out the required description: the dispatcher refuses them as invalid. */
  "invalid-call": (answer) => ({
    ...answer,
    calls: answer.calls.map((call) => {
      if (call.name !== "delegate_task") return call;
      const { description: _left, ...args } = call.args;
      return { ...call, args };
    }),
  }),
  /** No mistake, another way to ask: the delegations are proposed as a plan, which waits for a person (right for urgent work only). */
  "plans-first": (answer) => {
    const all = delegations(answer);
    if (all.length === 0) return answer;
    const steps = all.map((c) => ({ title: c.args.title, assignee: (c.args.assignees as string[])[0], description: c.args.description, priority: c.args.priority }));
    return { ...answer, calls: [{ name: "propose_plan", args: { summary: "Here is the plan", steps } }] };
  },
} satisfies Record<string, Flaw>;

export type FlawName = keyof typeof FLAWS;

/**
 * The script for the eval tests' server: a request for model `<flaw>`
 * (a FLAWS name) gets the demo's answer with that mistake when a lead
 * decides; every other request gets the demo's answer as it is.
 */
export const flawedModels: Script = (request, callIndex) => {
  const flaw = (FLAWS as Record<string, Flaw | undefined>)[request.model];
  if (flaw === undefined || !isLeadDeciding(request.messages)) return demoReply(request.messages);
  const offered = requestToolNames(request.body.tools);
  // Only a request that offers tools natively can be answered with native calls (the department's mode may be text).
  if (offered.length === 0) throw new Error(`The flawed model ${request.model} was asked without native tools: the brain took the text path.`);
  const answer = flaw(readDemo(request.messages), request.messages);
  return wire({ ...answer, calls: answer.calls.map((call) => ({ ...call, name: wireToolName(call.name) })) }, callIndex);
};
