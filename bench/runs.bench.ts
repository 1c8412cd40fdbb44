/**
 * `npm run bench:runs`: durable runs on the backend as its own process over
 * the real convex/, with a scripted streaming model on 127.0.0.1. Prints p50/p99 of:
 * - event append (a `message_update` write, client round trip included) while 50 runs stream at once;
 * - replay of a 1,000-event run (reading its events, and the pure replay alone);
 * - Stop → the run shown aborted on a second, subscribed client;
 * - mention → the first streamed token visible on a second client (the model sends its first piece at once);
 * - the brain's overhead per model call (context assembly + tool dispatch, measured inside each run);
 * - the backend's CPU while 50 runs stream alone, and the writes each streamed reply made.
 * MAESTRO_BENCH_ROOT=<checkout> runs another checkout's backend and convex/ (e.g. an export of main's
 * last commit) under this same bench, so old and new code compare back to back on a busy machine.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi, type FunctionArgs, type FunctionReference, type FunctionReturnType } from "convex/server";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { replayRun } from "../convex/lib/runTimeline";
import { adminClient, PROJECT_ROOT, seedDemoSquad } from "../tests/backend/helpers";
import type { ScriptedAnswer } from "../tests/backend/scriptedModel";
import { log, sleep, startModelBackend, table } from "./harness";
import { summarize } from "./stats";

const STREAMING_RUNS = 50;
/** At least this many appends, and more until every streaming run has ended. */
const APPENDS = 300;
const REPLAY_EVENTS = 1_000;
const REPLAYS = 30;
const STOPS = 30;
const FIRST_TOKENS = 30;
/** The checkout under test (default this one). */
const ROOT = path.resolve(process.env.MAESTRO_BENCH_ROOT ?? PROJECT_ROOT);

const { head, row } = table(60);

/** CPU seconds (user + system) a process has used so far, from /proc (null elsewhere). */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime are fields 14 and 15 of stat; here the text after "(comm) " starts at field 3.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** What the model does for a task, chosen by a marker in its title. */
function answerFor(prompt: string): ScriptedAnswer {
  const words = Array.from({ length: 200 }, (_, i) => `w${i} `);
  if (prompt.includes("[probe]")) return { content: "held", pieces: ["held"], delayMs: 600_000 };
  if (prompt.includes("[stream]")) return { content: words.join(""), pieces: words, pieceDelayMs: 50 };
  if (prompt.includes("[stop]")) return { content: "slow reply that is stopped", pieces: ["slow ", "reply ", "that ", "is ", "stopped"], pieceDelayMs: 5_000 };
  if (prompt.includes("[first]")) return { content: "First! then the rest", pieces: ["First! ", "then the rest"], pieceDelayMs: 1_000 };
  return "Ok.";
}

async function main() {
  const started = performance.now();
  const { model, backend, watcher, close } = await startModelBackend("runs", (request) => answerFor(request.messages.map((m) => m.content).join("\n")), {
    root: ROOT,
    env: { MAESTRO_MODEL_MAX_RETRIES: "0" },
  });
  try {
    const { member: http, departmentId, token } = await seedDemoSquad(backend, "Bench");
    const admin = adminClient(backend.url, backend.adminKey);
    watcher.setAuth(async () => token);
    const second = new ConvexHttpClient(backend.url);
    second.setAuth(token);

    const newTask = (title: string) => http.mutation(api.tasks.create, { departmentId, title });
    const runOf = async (taskId: Id<"tasks">) => {
      for (;;) {
        const [run] = await http.query(api.runs.listForTask, { taskId });
        if (run !== undefined && run.status === "running") return run;
        await sleep(10);
      }
    };
    /**
     * Subscribes `watcher` to `query`, runs `prepare`, then times `act` (given
     * what `prepare` returned) until an update satisfies `shown`.
     */
    const timeUntilShown = async <Q extends FunctionReference<"query">, P>(
      query: Q,
      args: FunctionArgs<Q>,
      shown: (result: FunctionReturnType<Q>) => boolean,
      prepare: () => Promise<P>,
      act: (prepared: P) => Promise<unknown>,
    ) => {
      let resolve: () => void = () => {};
      const seen = new Promise<void>((r) => (resolve = r));
      const unsubscribe = watcher.onUpdate(query, args, (result) => {
        if (shown(result)) resolve();
      });
      const prepared = await prepare();
      const t0 = performance.now();
      await act(prepared);
      await seen;
      unsubscribe();
      return performance.now() - t0;
    };

    // A probe run held open by a model that never answers: the bench appends to its stream as the action would.
    const probeTask = await newTask("Probe [probe]");
    await http.mutation(api.messages.create, { taskId: probeTask, content: "@Jarvis hold on" });
    const probe = await runOf(probeTask);
    const writer = { runId: probe._id, attempt: 1 };

    const startStreams = async (label: string) => {
      const tasks = await Promise.all(Array.from({ length: STREAMING_RUNS }, (_, i) => newTask(`${label} ${i} [stream]`)));
      await Promise.all(tasks.map((taskId) => http.mutation(api.messages.create, { taskId, content: "@Jarvis write a lot" })));
      // Measuring starts once every run has started.
      const allStarted = async () => (await Promise.all(tasks.map((taskId) => http.query(api.runs.listForTask, { taskId })))).every((runs) => runs[0] !== undefined && runs[0].status !== "queued");
      while (!(await allStarted())) await sleep(20);
      return tasks;
    };
    const stillStreaming = async (tasks: Array<Id<"tasks">>) =>
      (await Promise.all(tasks.map((taskId) => http.query(api.runs.listForTask, { taskId })))).flat().filter((r) => r.status !== "completed").length;
    const cpuWindow = (before: number | null, since: number) => {
      const used = cpuSeconds(backend.child.pid);
      const seconds = (performance.now() - since) / 1000;
      return before === null || used === null ? "n/a" : `${(used - before).toFixed(1)} s CPU over ${seconds.toFixed(1)} s (${(((used - before) / seconds) * 100).toFixed(0)}%)`;
    };
    // How many writes the run's batching made per streamed reply (200 pieces, 50 ms apart).
    const writesPerReply = async (tasks: Array<Id<"tasks">>, into: number[]) => {
      for (const taskId of tasks) {
        for (const run of await http.query(api.runs.listForTask, { taskId })) {
          const events = await http.query(api.runEvents.listForRun, { runId: run._id });
          into.push(events.filter((e) => e.payload.type === "message_update").length);
        }
      }
    };

    log(`${STREAMING_RUNS} runs streaming alone`);
    const aloneTasks = await startStreams("Alone");
    const aloneCpu = cpuSeconds(backend.child.pid);
    const aloneStarted = performance.now();
    // A reply streams for 10 s: look (50 queries) only once it may have ended.
    await sleep(9_000);
    while ((await stillStreaming(aloneTasks)) > 0) await sleep(100);
    const aloneBackendCpu = cpuWindow(aloneCpu, aloneStarted);
    const updateWrites: number[] = [];
    await writesPerReply(aloneTasks, updateWrites);

    log(`event append with ${STREAMING_RUNS} runs streaming`);
    const streamTasks = await startStreams("Stream");
    const appends: number[] = [];
    const cpuBefore = cpuSeconds(backend.child.pid);
    const streamStarted = performance.now();
    // Whether to go on appending. Asking (50 queries at once) delays the next append, so it is asked only
    // once the replies (10 s) may have ended, not every 50 appends throughout.
    const goOn = async (i: number) => i < APPENDS || i % 50 !== 0 || performance.now() - streamStarted < 9_000 || (await stillStreaming(streamTasks)) > 0;
    for (let i = 0; await goOn(i); i++) {
      const t0 = performance.now();
      await admin.mutation(anyApi.brain.writes.appendDelta, { ...writer, delta: `delta ${i} ` });
      appends.push(performance.now() - t0);
    }
    const backendCpu = cpuWindow(cpuBefore, streamStarted);
    await writesPerReply(streamTasks, updateWrites);

    log("replay of a 1,000-event run");
    for (let i = (await http.query(api.runEvents.listForRun, { runId: probe._id })).length; i < REPLAY_EVENTS; i++) {
      await admin.mutation(anyApi.brain.writes.appendDelta, { ...writer, delta: "x" });
    }
    const reads: number[] = [];
    const replays: number[] = [];
    for (let i = 0; i < REPLAYS; i++) {
      const t0 = performance.now();
      const events = await second.query(api.runEvents.listForRun, { runId: probe._id });
      const t1 = performance.now();
      replayRun(events);
      replays.push(performance.now() - t1);
      reads.push(performance.now() - t0);
    }
    const eventCount = (await second.query(api.runEvents.listForRun, { runId: probe._id })).length;
    await http.mutation(api.runs.stop, { taskId: probeTask, runId: probe._id });

    log("Stop → shown aborted on a second client");
    const stops: number[] = [];
    for (let i = 0; i < STOPS; i++) {
      const taskId = await newTask(`Stop ${i} [stop]`);
      stops.push(
        await timeUntilShown(
          api.runs.listForTask,
          { taskId },
          (runs) => runs[0]?.status === "aborted",
          async () => {
            await http.mutation(api.messages.create, { taskId, content: "@Jarvis take your time" });
            return await runOf(taskId);
          },
          (run) => http.mutation(api.runs.stop, { taskId, runId: run._id }),
        ),
      );
    }

    log("mention → first streamed token on a second client");
    const firsts: number[] = [];
    for (let i = 0; i < FIRST_TOKENS; i++) {
      const taskId = await newTask(`First ${i} [first]`);
      firsts.push(
        await timeUntilShown(
          api.runs.streamingForTask,
          { taskId },
          (streams) => streams.some((s) => s.text !== ""),
          () => sleep(50), // the subscription is live before the clock starts
          () => http.mutation(api.messages.create, { taskId, content: "@Jarvis say something" }),
        ),
      );
    }

    log("brain overhead per model call");
    await sleep(2_000);
    const overhead: number[] = [];
    for (const taskId of streamTasks) {
      for (const run of await http.query(api.runs.listForTask, { taskId })) for (const t of run.timings) overhead.push(t.contextMs + t.dispatchMs);
    }

    console.log(`Runs benchmark (backend as its own process over convex/, scripted streaming model on 127.0.0.1)
machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, node ${process.version}
code under test: ${ROOT}
streamed replies: 200 pieces, 50 ms apart, batched by the run's own rule (see writes per reply)

${head}
${row(`event append while ${STREAMING_RUNS} runs stream (client round trip)`, summarize(appends), "ms")}
${row("message_update writes per streamed reply", summarize(updateWrites), "writes")}
backend while ${STREAMING_RUNS} runs stream alone: ${aloneBackendCpu}
backend while ${STREAMING_RUNS} runs stream and the bench appends: ${backendCpu}
${row(`read a ${eventCount}-event run (listForRun) + replay`, summarize(reads), "ms")}
${row(`replay alone (pure, ${eventCount} events)`, summarize(replays), "ms")}
${row("Stop → run shown aborted on a second client", summarize(stops), "ms")}
${row("mention → first streamed token on a second client", summarize(firsts), "ms")}
${row("brain overhead per model call", summarize(overhead), "ms")}
model requests served: ${model.requests.length}

wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await close();
  }
}

await main();
