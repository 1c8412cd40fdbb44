/**
 * `npm run bench:board`: the squad board at size. Runs `npm start`'s stack
 * (offline backend + app) on free loopback ports, seeds one department with
 * 50 agents, 2,000 tasks and 20,000 messages through the public functions,
 * then prints p50/p99 of tasks.list and messages.list, of tasks.move → the
 * update seen by a second subscribed client, and how long Chromium takes to
 * render the 2,000 cards.
 */
import os from "node:os";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { chromium } from "playwright-core";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { CHROMIUM_ARGS, chromiumPath } from "../tests/browser/chromium";
import { passwordRoute } from "../tests/backend/helpers";
import { startStack, type Stack } from "../tests/browser/stack";
import { summarize, type Summary } from "./stats";

const AGENTS = 50;
const TASKS = 2_000;
const MESSAGES_PER_TASK = 10;
const WRITERS = 8;
const SAMPLES = 100;
const RENDER_SAMPLES = 5;
const STATUSES = ["inbox", "assigned", "in_progress", "review", "done"] as const;
const PASSWORD = "bench-password";

function log(line: string) {
  console.error(`[bench] ${line}`);
}

/** The first-run owner setup (authorised by the WebUI password): the bench's account owns the demo department. */
async function signIn(stack: Stack, name: string) {
  const result = await passwordRoute(stack.siteUrl, { flow: "signUp", email: "bench@example.com", password: "bench owner password", name, setupPassword: PASSWORD });
  if (result.status !== 200) throw new Error(`Owner setup failed: ${result.status} ${JSON.stringify(result.body)}`);
  return { token: result.body.token, refreshToken: result.body.refreshToken };
}

/** Runs `work(i)` for i in [0, count) on `parallel` workers. */
async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function row(label: string, s: Summary, unit = "ms") {
  return `${label.padEnd(44)} ${String(s.count).padStart(7)} ${s.p50.toFixed(1).padStart(9)} ${s.p99.toFixed(1).padStart(9)} ${s.max.toFixed(1).padStart(9)}  ${unit}`;
}

async function main() {
  const started = performance.now();
  const stack = await startStack({ password: PASSWORD });
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const session = await signIn(stack, "Bench Admin");
    const clients = Array.from({ length: WRITERS }, () => {
      const client = new ConvexHttpClient(stack.url);
      client.setAuth(session.token);
      return client;
    });
    const http = clients[0];
    const [department] = await http.query(api.departments.listMine, {});
    const departmentId = department._id;

    log("seeding agents");
    const existing = await http.query(api.agents.list, { departmentId });
    for (let i = existing.length; i < AGENTS; i++) {
      await http.mutation(api.agents.create, {
        departmentId,
        name: `Agent ${String(i).padStart(2, "0")}`,
        role: i % 2 === 0 ? "Engineer" : "Writer",
        kind: "specialist",
        systemPrompt: "",
        isSquadLead: false,
        allowedTools: ["post_message", "update_task_status"],
      });
    }
    const agents = await http.query(api.agents.list, { departmentId });

    const seedStart = performance.now();
    log(`seeding ${TASKS} tasks`);
    const taskIds: Array<Id<"tasks">> = [];
    await inParallel(TASKS, WRITERS, async (i) => {
      const taskId = await clients[i % WRITERS].mutation(api.tasks.create, {
        departmentId,
        title: `Task ${i}: ${["Fix", "Write", "Review", "Design"][i % 4]} the ${["signup", "pricing", "docs", "api"][i % 4]} flow`,
        description: "Seeded by the board benchmark.",
        priority: (["low", "medium", "high"] as const)[i % 3],
        tags: [`area-${i % 7}`],
        assigneeSessionKeys: i % 5 === 0 ? [] : [agents[i % agents.length].sessionKey],
      });
      taskIds.push(taskId);
    });
    // Spread the tasks over the columns, as a real board is.
    await inParallel(taskIds.length, WRITERS, async (i) => {
      await clients[i % WRITERS].mutation(api.tasks.setStatus, { taskId: taskIds[i], status: STATUSES[i % STATUSES.length] });
    });
    log(`seeding ${TASKS * MESSAGES_PER_TASK} messages`);
    await inParallel(TASKS * MESSAGES_PER_TASK, WRITERS, async (i) => {
      const mention = i % 10 === 0 ? `@${agents[i % agents.length].name} ` : "";
      await clients[i % WRITERS].mutation(api.messages.create, {
        taskId: taskIds[i % taskIds.length],
        content: `${mention}Update ${i}: progress on this task, see the **notes** below.`,
      });
    });
    const seedSeconds = (performance.now() - seedStart) / 1000;

    log("measuring queries");
    const listTimes: number[] = [];
    for (let i = 0; i < 50; i++) listTimes.push(await time(() => http.query(api.tasks.list, { departmentId })));
    const messageTimes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const taskId = taskIds[(i * 37) % taskIds.length];
      messageTimes.push(await time(() => http.query(api.messages.list, { taskId, paginationOpts: { numItems: 20, cursor: null } })));
    }

    log("measuring tasks.move → second client");
    const watcher = new ConvexClient(stack.url, { unsavedChangesWarning: false });
    closers.push(() => watcher.close());
    watcher.setAuth(async () => session.token);
    const mover = new ConvexClient(stack.url, { unsavedChangesWarning: false });
    closers.push(() => mover.close());
    mover.setAuth(async () => session.token);
    let latest: Array<{ status: string; tasks: Array<{ _id: string }> }> = [];
    let waiter: (() => void) | null = null;
    watcher.onUpdate(api.tasks.list, { departmentId }, (columns) => {
      latest = columns;
      waiter?.();
    });
    const statusOf = (taskId: string) => latest.find((c) => c.tasks.some((t) => t._id === taskId))?.status;
    while (latest.length === 0) await new Promise((r) => setTimeout(r, 20));
    const moveTimes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const taskId = taskIds[(i * 53) % taskIds.length];
      const target = STATUSES.find((s) => s !== statusOf(taskId))!;
      const seen = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("move not seen within 20 s")), 20_000);
        waiter = () => {
          if (statusOf(taskId) !== target) return;
          clearTimeout(timer);
          waiter = null;
          resolve();
        };
      });
      const start = performance.now();
      await mover.mutation(api.tasks.move, { taskId, status: target, position: 0 });
      await seen;
      moveTimes.push(performance.now() - start);
    }

    log("measuring Chromium render of the board");
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    closers.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      ({ token, refreshToken }) => localStorage.setItem("maestro.session", JSON.stringify({ token, refreshToken, email: "bench@example.com" })),
      session,
    );
    const page = await context.newPage();
    const renderTimes: number[] = [];
    const cards = Math.min(TASKS, 500 * STATUSES.length);
    for (let i = 0; i < RENDER_SAMPLES; i++) {
      const start = performance.now();
      await page.goto(stack.appUrl);
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="task-card"]').length >= n, cards, {
        timeout: 120_000,
        polling: 50,
      });
      renderTimes.push(performance.now() - start);
    }

    console.log(`Squad board benchmark (npm start stack: offline backend + Vite dev server)
machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}
department: ${agents.length} agents, ${TASKS} tasks over ${STATUSES.length} columns, ${TASKS * MESSAGES_PER_TASK} messages (10% with an @mention); seeded through the public functions with ${WRITERS} HTTP clients in ${seedSeconds.toFixed(1)} s
times are client-measured round trips on 127.0.0.1, nearest-rank percentiles

${"what".padEnd(44)} ${"samples".padStart(7)} ${"p50".padStart(9)} ${"p99".padStart(9)} ${"max".padStart(9)}
${row("tasks.list (2,000 cards, HTTP query)", summarize(listTimes))}
${row("messages.list (first page of 20, HTTP)", summarize(messageTimes))}
${row("tasks.move → seen by 2nd subscribed client", summarize(moveTimes))}
${row(`Chromium: load → ${cards} cards rendered`, summarize(renderTimes))}

wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await stack.stop();
  }
}

await main();
