/**
 * `npm run bench:native-calls`: native tool calls dispatched while the reply
 * streams. The backend runs as its own process over the real convex/; a
 * scripted model streams Jarvis's reply at ~20 ms per chunk: text, two
 * `delegate_task` calls (arguments in pieces), then more text. Prints the
 * time from the first call's last argument chunk leaving the model server
 * to its card on a second client subscribed as the board is (target
 * < 100 ms at the median, printed met / NOT met), beside the time the reply
 * ended; and Jarvis's prompt tokens with the tools in the request (native)
 * versus in the prompt's text, counted as servers count them (promptTokens:
 * OpenAI's rendering of functions, and templates that paste the JSON).
 */
import os from "node:os";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { TASK_STATUSES } from "../convex/validators";
import { seedDemoSquad } from "../tests/backend/helpers";
import type { ScriptedRequest } from "../tests/backend/scriptedModel";
import { log, startModelBackend, table, waitForIdleAgents } from "./harness";
import { promptTokens, savingLine } from "./promptTokens";
import { summarize } from "./stats";

const MENTIONS = 12;
const WARMUP = 2;
const CHUNK_MS = 20;
const TARGET_MS = 100;

/** A `chat.completion.chunk` with one choice's delta. */
function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

/** The pieces of a call's argument text, about 12 characters each. */
function argumentPieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 12) out.push(text.slice(i, i + 12));
  return out;
}

/** Jarvis's first request among `requests` (the one with his roster). */
function leadRequest(requests: readonly ScriptedRequest[]): ScriptedRequest | undefined {
  return requests.find((r) => r.messages[0].content.includes("=== SQUAD ROSTER ==="));
}

interface Clock {
  lastArgument?: number;
  replyEnd?: number;
}

async function main() {
  const started = performance.now();
  const clocks = new Map<string, Clock>();
  const { model, backend, watcher, close } = await startModelBackend("native-calls", (request) => {
    const last = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
    if (!request.messages[0].content.includes("=== SQUAD ROSTER ===")) return "On it.";
    if (last.startsWith("=== TOOL RESULTS ===")) return "Both parts are delegated.";
    const n = /bench split (\d+)/.exec(last)?.[1] ?? "x";
    const clock: Clock = {};
    clocks.set(n, clock);
    const call = (index: number, title: string, who: string) => {
      const args = JSON.stringify({ title, description: `Part of page ${n}`, assignees: [who], instruction: `Please take ${title}.` });
      const [firstPiece, ...rest] = argumentPieces(args);
      return [
        chunk({ tool_calls: [{ index, id: `call_${n}_${index}`, type: "function", function: { name: "delegate_task", arguments: firstPiece } }] }),
        ...rest.map((piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] })),
      ];
    };
    const words = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => chunk({ content: `${prefix} ${i}. ` }));
    const first = call(0, `hero copy ${n}`, "Writer");
    const chunks = [chunk({ role: "assistant", content: "" }), ...words("Splitting it", 10), ...first, ...words("Meanwhile", 10), ...call(1, `the form ${n}`, "Dev Bot"), ...words("And then", 10), chunk({}, "tool_calls")];
    const lastArgument = 1 + 10 + first.length - 1;
    return {
      chunks,
      pieceDelayMs: CHUNK_MS,
      onSent: (i) => {
        if (i === lastArgument) clock.lastArgument = performance.now();
        if (i === chunks.length - 1) clock.replyEnd = performance.now();
      },
    };
  });
  try {
    const { member: http, departmentId, token } = await seedDemoSquad(backend, "BenchAdmin");
    const seen = new Map<string, number>();
    watcher.setAuth(async () => token);
    // The second client, subscribed as the board is: one tasks.listColumn per column.
    for (const status of TASK_STATUSES) {
      watcher.onUpdate(api.tasks.listColumn, { departmentId, status }, (column) => {
        for (const task of column.tasks) if (!seen.has(task.title)) seen.set(task.title, performance.now());
      });
    }
    while (seen.size === 0) await new Promise((r) => setTimeout(r, 20));

    const toCard: number[] = [];
    const toEnd: number[] = [];
    const warm: number[] = [];
    const nativeOpenAi: number[] = [];
    const nativeJson: number[] = [];
    const nativeMessages: number[] = [];
    for (let i = 0; i < WARMUP + MENTIONS; i++) {
      const taskId: Id<"tasks"> = await http.mutation(api.tasks.create, { departmentId, title: `Page ${i}` });
      const before = model.requests.length;
      await http.mutation(api.messages.create, { taskId, content: `@Jarvis bench split ${i}` });
      const title = `hero copy ${i}`;
      const deadline = performance.now() + 30_000;
      while (!(seen.has(title) && clocks.get(String(i))?.replyEnd !== undefined)) {
        if (performance.now() > deadline) throw new Error(`${title} not visible within 30 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const clock = clocks.get(String(i))!;
      const card = seen.get(title)! - clock.lastArgument!;
      if (i < WARMUP) warm.push(card);
      else {
        toCard.push(card);
        toEnd.push(clock.replyEnd! - clock.lastArgument!);
        const first = leadRequest(model.requests.slice(before));
        if (first !== undefined) {
          nativeOpenAi.push(promptTokens(first.body, "openai"));
          nativeJson.push(promptTokens(first.body, "json"));
          nativeMessages.push(promptTokens({ messages: first.body.messages }, "openai"));
        }
      }
      await waitForIdleAgents(http, departmentId, 200);
    }

    log("the same request with the tools in the prompt's text");
    await http.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: "text" });
    const textTokens: number[] = [];
    for (let i = 0; i < 3; i++) {
      const taskId: Id<"tasks"> = await http.mutation(api.tasks.create, { departmentId, title: `Text page ${i}` });
      const before = model.requests.length;
      await http.mutation(api.messages.create, { taskId, content: `@Jarvis bench split text${i}` });
      const deadline = performance.now() + 30_000;
      while (!model.requests.slice(before).some((r) => r.messages[0].content.includes("=== SQUAD ROSTER ==="))) {
        if (performance.now() > deadline) throw new Error("no text-mode request within 30 s");
        await new Promise((r) => setTimeout(r, 10));
      }
      textTokens.push(promptTokens(leadRequest(model.requests.slice(before))!.body, "openai"));
      await waitForIdleAgents(http, departmentId, 200);
    }

    const card = summarize(toCard);
    const { head, row } = table(58);
    console.log(`Native tool calls benchmark (backend as its own process over convex/, scripted model on 127.0.0.1 streaming ${CHUNK_MS} ms per chunk)
machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, node ${process.version}
each reply: 10 text chunks, delegate_task (arguments in pieces), 10 text chunks, delegate_task, 10 text chunks; ${MENTIONS} replies after ${WARMUP} warm-up ones
times are from the first call's last argument chunk leaving the model server

${head}
${row("first call's last argument chunk → its card on a 2nd client", card)}
${row("first call's last argument chunk → the reply's last chunk", summarize(toEnd))}
${row("Jarvis's prompt tokens, tools native, as OpenAI counts", summarize(nativeOpenAi), "tokens")}
${row("  the same, as templates pasting the tools' JSON count", summarize(nativeJson), "tokens")}
${row("  of which the messages (the prompt lists no tools)", summarize(nativeMessages), "tokens")}
${row("Jarvis's prompt tokens, tools in the prompt's text", summarize(textTokens), "tokens")}
${savingLine("OpenAI's count", summarize(nativeOpenAi).p50, summarize(textTokens).p50)}
${savingLine("a template pasting the JSON", summarize(nativeJson).p50, summarize(textTokens).p50)}
target: card < ${TARGET_MS} ms after the call is complete (median): ${card.p50 < TARGET_MS ? "met" : "NOT met"} (p50 ${card.p50.toFixed(0)} ms; the reply ends ${summarize(toEnd).p50.toFixed(0)} ms after the call is complete)
warm-up replies (not in the figures): ${warm.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}

wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await close();
  }
}

await main();
