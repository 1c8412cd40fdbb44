/**
 * `npm run bench:brain`: what the brain adds around each model call. The
 * backend runs as its own process over the real convex/ with a scripted model
 * that answers instantly; one department holds 50 agents and 2,000 tasks.
 * Prints p50/p99 of the brain's overhead per model call (context assembly +
 * tool dispatch, measured inside each run), prompt tokens per call for the
 * lead and for specialists, and @Jarvis mention → delegated task visible to
 * a client subscribed as the board is (one tasks.listColumn per column);
 * then Jarvis's first prompt with the tools sent natively against the same
 * request with the tools listed in the prompt's text (the department's mode
 * set to `text` for a few mentions), counted as servers count them
 * (bench/promptTokens: OpenAI's rendering of functions, and templates that
 * paste the tools' JSON).
 */
import os from "node:os";
import { ConvexHttpClient } from "convex/browser";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { countTokens } from "../convex/lib/tokens";
import { promptTokens, savingLine } from "./promptTokens";
import { TASK_STATUSES } from "../convex/validators";
import { seedDemoSquad } from "../tests/backend/helpers";
import { delegatingReply, inParallel, log, seedAgents, startModelBackend, table } from "./harness";
import { summarize } from "./stats";

const AGENTS = 50;
const TASKS = 2_000;
const MENTIONS = 50;
/**
 * Mentions made first and left out of the figures: the first few after the
 * backend starts run the brain's code cold (V8 compiles it lazily) and take
 * ~1.5–2× a warm one. They are printed on their own line.
 */
const WARMUP_MENTIONS = 3;
const WRITERS = 8;
/** Mentions made with the tools in the prompt's text, for the comparison. */
const TEXT_MENTIONS = 3;

const { head, row } = table(52);

async function main() {
  const started = performance.now();
  /** Jarvis's first request of each mention (the one with his roster, before any tool result), by how its tools went. */
  const leadFirst: Array<{ native: boolean; openai: number; json: number }> = [];
  // Usage counted with the same real tokenizer the brain budgets with, as OpenAI counts a request (tools rendered as text).
  const { model, backend, watcher, close } = await startModelBackend("brain", (request) => {
    const content = delegatingReply(request.messages);
    const last = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
    if (request.messages[0].content.includes("=== SQUAD ROSTER ===") && !last.startsWith("=== TOOL RESULTS ===") && !request.messages.some((m) => m.role === "tool")) {
      leadFirst.push({ native: request.body.tools !== undefined, openai: promptTokens(request.body, "openai"), json: promptTokens(request.body, "json") });
    }
    return { content, usage: { prompt_tokens: promptTokens(request.body, "openai"), completion_tokens: countTokens(content) } };
  });
  try {
    const { member: http, departmentId, token } = await seedDemoSquad(backend, "BenchAdmin");
    const clients = [
      http,
      ...Array.from({ length: WRITERS - 1 }, () => {
        const c = new ConvexHttpClient(backend.url);
        c.setAuth(token);
        return c;
      }),
    ];

    log("seeding agents and tasks");
    await seedAgents(http, departmentId, AGENTS, "You are careful and brief.");
    const taskIds: Array<Id<"tasks">> = [];
    await inParallel(TASKS, WRITERS, async (i) => {
      taskIds.push(await clients[i % WRITERS].mutation(api.tasks.create, { departmentId, title: `Seeded task ${i}`, tags: [`t${i % 9}`] }));
    });

    log("measuring mention → delegated task visible");
    const seen = new Set<string>();
    let waiting: { title: string; resolve: () => void } | null = null;
    watcher.setAuth(async () => token);
    // Subscribed as the board is: one tasks.listColumn per column.
    for (const status of TASK_STATUSES) {
      watcher.onUpdate(api.tasks.listColumn, { departmentId, status }, (column) => {
        for (const task of column.tasks) seen.add(task.title);
        if (waiting !== null && seen.has(waiting.title)) waiting.resolve();
      });
    }
    while (seen.size === 0) await new Promise((r) => setTimeout(r, 20));
    const visible: number[] = [];
    const warmup: number[] = [];
    for (let i = 0; i < WARMUP_MENTIONS + MENTIONS; i++) {
      const title = `hero copy ${i}`;
      const appeared = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${title} not visible within 30 s`)), 30_000);
        waiting = { title, resolve: () => { clearTimeout(timer); resolve(); } };
      });
      const t0 = performance.now();
      await http.mutation(api.messages.create, {
        taskId: taskIds[i],
        content: `@Jarvis split the page ${i} between Agent ${String((i % 46) + 4).padStart(2, "0")} and Writer: hero copy ${i} and the form ${i}`,
      });
      await appeared;
      (i < WARMUP_MENTIONS ? warmup : visible).push(performance.now() - t0);
    }
    // Let the assignees' runs finish before reading the runs.
    await new Promise((r) => setTimeout(r, 2_000));

    const overhead: number[] = [];
    const leadTokens: number[] = [];
    const specialistTokens: number[] = [];
    const warmupTitles = new Set(Array.from({ length: WARMUP_MENTIONS }, (_, i) => [`hero copy ${i}`, `the form ${i}`]).flat());
    const delegated = (await http.query(api.tasks.list, { departmentId }))
      .flatMap((c) => c.tasks)
      .filter((t) => t.delegatedBy !== undefined && !warmupTitles.has(t.title));
    const collect = async (taskId: Id<"tasks">, tokens: number[]) => {
      for (const run of await http.query(api.runs.listForTask, { taskId })) {
        if (run.iterations > 0) tokens.push(run.promptTokens / run.iterations);
        for (const t of run.timings) overhead.push(t.contextMs + t.dispatchMs);
      }
    };
    for (const taskId of taskIds.slice(WARMUP_MENTIONS, WARMUP_MENTIONS + MENTIONS)) await collect(taskId, leadTokens);
    for (const task of delegated) await collect(task._id, specialistTokens);

    log("the same requests with the tools in the prompt's text");
    await http.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: "text" });
    for (let i = 0; i < TEXT_MENTIONS; i++) {
      const before = leadFirst.length;
      const n = WARMUP_MENTIONS + MENTIONS + i;
      await http.mutation(api.messages.create, { taskId: taskIds[n], content: `@Jarvis split the page ${n} between Agent 04 and Writer: hero copy ${n} and the form ${n}` });
      const deadline = performance.now() + 30_000;
      while (leadFirst.length === before) {
        if (performance.now() > deadline) throw new Error("no text-mode request from Jarvis within 30 s");
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    await http.mutation(api.modelSettings.setToolCalls, { departmentId, toolCalls: null });
    const nativeFirst = leadFirst.filter((r) => r.native);
    const textFirst = summarize(leadFirst.filter((r) => !r.native).map((r) => r.openai));
    const nativeOpenAi = summarize(nativeFirst.map((r) => r.openai));
    const nativeJson = summarize(nativeFirst.map((r) => r.json));

    console.log(`Brain benchmark (backend as its own process over convex/, scripted model answering instantly on 127.0.0.1)
machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, node ${process.version}; department: ${AGENTS} agents, ${TASKS} tasks; ${MENTIONS} @Jarvis split requests, each delegating 2 tasks, after ${WARMUP_MENTIONS} warm-up ones
overhead = context assembly + tool dispatch inside a run, per model call (the model's own time excluded)

${head}
${row("brain overhead per model call", summarize(overhead), "ms")}
${row("prompt tokens per call: lead (Jarvis)", summarize(leadTokens), "tokens")}
${row("prompt tokens per call: specialist", summarize(specialistTokens), "tokens")}
${row("@Jarvis mention → delegated task visible", summarize(visible), "ms")}
${row("Jarvis's first prompt, tools native, as OpenAI counts", nativeOpenAi, "tokens")}
${row("  the same, as templates pasting the tools' JSON count", nativeJson, "tokens")}
${row("Jarvis's first prompt, tools in the prompt's text", textFirst, "tokens")}
${savingLine("OpenAI's count", nativeOpenAi.p50, textFirst.p50)}
${savingLine("a template pasting the JSON", nativeJson.p50, textFirst.p50)}
slowest mentions (which one, to find an outlier): ${visible
      .map((ms, i) => ({ ms, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map(({ ms, i }) => `#${i} ${ms.toFixed(0)} ms`)
      .join(", ")}
the ${WARMUP_MENTIONS} warm-up mentions, the first after the backend started (not in the figures): ${warmup.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}
model requests served: ${model.requests.length}

wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await close();
  }
}

await main();
