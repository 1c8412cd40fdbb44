/**
 * `npm run bench:board`: the squad board at size. Runs `npm start`'s stack
 * (offline backend + app) on free loopback ports, seeds one department with
 * 50 agents, 2,000 tasks and 20,000 messages through the public functions,
 * then prints p50/p99 of tasks.list, tasks.listColumn and messages.list; of
 * tasks.move → the update seen by a second client subscribed as the board is
 * (one `tasks.listColumn` per column) and, for comparison, as it was (one
 * whole-board `tasks.list`); the bytes each query shape sends; and how long
 * Chromium takes to render the 2,000-card board from the production build
 * (`vite build`, served by `vite preview`).
 */
import os from "node:os";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { convexToJson, type Value } from "convex/values";
import { chromium } from "playwright-core";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { FIRST_PAGE_CARDS } from "../src/board/prefetch";
import { CHROMIUM_ARGS, chromiumPath } from "../tests/browser/chromium";
import { passwordRoute } from "../tests/backend/helpers";
import { freePort, startStack, type Stack } from "../tests/browser/stack";
import { firstBoardRender, inParallel, log, seedAgents, servePreview, table } from "./harness";
import { summarize } from "./stats";

const AGENTS = 50;
const TASKS = 2_000;
/** BENCH_MESSAGES_PER_TASK overrides (seeding the 20,000 messages takes most of the run on a busy machine). */
const MESSAGES_PER_TASK = Number(process.env.BENCH_MESSAGES_PER_TASK ?? 10);
const WRITERS = 8;
const SAMPLES = 100;
const RENDER_SAMPLES = 7;
const STATUSES = ["inbox", "assigned", "in_progress", "review", "done"] as const;
/** Every column the board subscribes to (Blocked stays empty here). */
const COLUMNS = [...STATUSES, "blocked"] as const;
const PASSWORD = "bench-password";

/** The first-run owner setup (authorised by the WebUI password): the bench's account owns the demo department. */
async function signIn(stack: Stack, name: string) {
  const result = await passwordRoute(stack.siteUrl, { flow: "signUp", email: "bench@example.com", password: "bench owner password", name, setupPassword: PASSWORD });
  if (result.status !== 200) throw new Error(`Owner setup failed: ${result.status} ${JSON.stringify(result.body)}`);
  return { token: result.body.token, refreshToken: result.body.refreshToken };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Bytes of a query result as the sync protocol sends it (Convex JSON). */
function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(convexToJson(value as Value)));
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

const { head, row } = table(44, 1, 9);

async function main() {
  const started = performance.now();
  // The production build is served from its own port: the backend must accept that origin.
  const previewPort = await freePort();
  process.env.MAESTRO_CORS_ORIGINS = [process.env.MAESTRO_CORS_ORIGINS, `http://127.0.0.1:${previewPort}`].filter(Boolean).join(",");
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
    await seedAgents(http, departmentId, AGENTS);
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
    const columnTimes: number[] = [];
    for (let i = 0; i < 60; i++) {
      columnTimes.push(await time(() => http.query(api.tasks.listColumn, { departmentId, status: COLUMNS[i % COLUMNS.length] })));
    }
    const messageTimes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const taskId = taskIds[(i * 37) % taskIds.length];
      messageTimes.push(await time(() => http.query(api.messages.list, { taskId, paginationOpts: { numItems: 20, cursor: null } })));
    }
    const boardBytes = bytesOf(await http.query(api.tasks.list, { departmentId }));
    const columnBytes: number[] = [];
    for (const status of COLUMNS) columnBytes.push(bytesOf(await http.query(api.tasks.listColumn, { departmentId, status })));
    // What the board's first load asks: each column's first page and its count.
    const firstPageBytes: number[] = [];
    for (const status of COLUMNS) firstPageBytes.push(bytesOf(await http.query(api.tasks.listColumn, { departmentId, status, limit: FIRST_PAGE_CARDS })));

    const mover = new ConvexClient(stack.url, { unsavedChangesWarning: false });
    closers.push(() => mover.close());
    mover.setAuth(async () => session.token);

    /**
     * Moves 100 cards with `mover` and times each until `watcher` sees it in
     * its new column; `columnOf` reads the watcher's latest view.
     */
    async function timeMoves(subscribe: (onChange: () => void) => () => void, columnOf: (taskId: string) => string | undefined, ready: () => boolean) {
      let waiter: (() => void) | null = null;
      const unsubscribe = subscribe(() => waiter?.());
      while (!ready()) await new Promise((r) => setTimeout(r, 20));
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const taskId = taskIds[(i * 53) % taskIds.length];
        const target = STATUSES.find((s) => s !== columnOf(taskId))!;
        const seen = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("move not seen within 20 s")), 20_000);
          waiter = () => {
            if (columnOf(taskId) !== target) return;
            clearTimeout(timer);
            waiter = null;
            resolve();
          };
        });
        const start = performance.now();
        await mover.mutation(api.tasks.move, { taskId, status: target, position: 0 });
        await seen;
        times.push(performance.now() - start);
      }
      unsubscribe();
      return times;
    }

    log("measuring tasks.move → second client (per-column subscriptions, as the board)");
    const watcher = new ConvexClient(stack.url, { unsavedChangesWarning: false });
    closers.push(() => watcher.close());
    watcher.setAuth(async () => session.token);
    const byColumn = new Map<string, Set<string>>();
    const columnMoveTimes = await timeMoves(
      (onChange) => {
        const stops = COLUMNS.map((status) =>
          watcher.onUpdate(api.tasks.listColumn, { departmentId, status }, (column) => {
            byColumn.set(status, new Set(column.tasks.map((t) => t._id)));
            onChange();
          }),
        );
        return () => stops.forEach((stop) => stop());
      },
      (taskId) => [...byColumn].find(([, ids]) => ids.has(taskId))?.[0],
      () => byColumn.size === COLUMNS.length,
    );

    log("measuring tasks.move → second client (one whole-board tasks.list, as before)");
    let latest: Array<{ status: string; tasks: Array<{ _id: string }> }> = [];
    const boardMoveTimes = await timeMoves(
      (onChange) =>
        watcher.onUpdate(api.tasks.list, { departmentId }, (columns) => {
          latest = columns;
          onChange();
        }),
      (taskId) => latest.find((c) => c.tasks.some((t) => t._id === taskId))?.status,
      () => latest.length > 0,
    );

    log("building the app for production");
    const app = await servePreview(stack, previewPort);
    closers.push(() => app.close());

    log("measuring Chromium render of the board (production build)");
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    closers.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript(
      ({ token, refreshToken }) => localStorage.setItem("maestro.session", JSON.stringify({ token, refreshToken, email: "bench@example.com" })),
      session,
    );
    const page = await context.newPage();
    const renderTimes: number[] = [];
    const renderedCards: number[] = [];
    const stageTimes: Array<{ script: number; shell: number; board: number }> = [];
    const cards = Math.min(TASKS, 500 * STATUSES.length);
    for (let i = 0; i < RENDER_SAMPLES; i++) {
      renderTimes.push(await firstBoardRender(page, app.url, cards));
      // Where the time went: the app's script running, the signed-in shell, the board's data.
      // A string, not a function: tsx would wrap named helpers in a `__name` the page lacks.
      stageTimes.push(
        (await page.evaluate(`(() => {
          const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
          const script = performance.getEntriesByType("resource").find((entry) => entry.name.endsWith(".js"));
          return { script: script?.responseEnd ?? NaN, shell: mark("maestro:shell"), board: mark("maestro:board-data") };
        })()`)) as { script: number; shell: number; board: number },
      );
      renderedCards.push(await page.locator('[data-testid="task-card"]').count());
    }

    const moved = [...columnBytes].sort((a, b) => b - a);
    console.log(`Squad board benchmark (npm start stack: offline backend; the app's production build served by vite preview)
machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}
department: ${agents.length} agents, ${TASKS} tasks over ${STATUSES.length} columns, ${TASKS * MESSAGES_PER_TASK} messages (10% with an @mention); seeded through the public functions with ${WRITERS} HTTP clients in ${seedSeconds.toFixed(1)} s
times are client-measured round trips on 127.0.0.1, nearest-rank percentiles

${head}
${row("tasks.list (whole board, HTTP query)", summarize(listTimes))}
${row("tasks.listColumn (one column, HTTP query)", summarize(columnTimes))}
${row("messages.list (first page of 20, HTTP)", summarize(messageTimes))}
${row("move → 2nd client, per-column subscriptions", summarize(columnMoveTimes))}
${row("move → 2nd client, one tasks.list (before)", summarize(boardMoveTimes))}
${row(`Chromium: first render, ${cards} cards (nav → cards shown)`, summarize(renderTimes))}

payload per update: whole board (tasks.list) ${kb(boardBytes)}; one column (tasks.listColumn) ${kb(Math.min(...columnBytes))}–${kb(Math.max(...columnBytes))}; a move re-sends two columns, at most ${kb(moved[0] + moved[1])}
first load: each column's first ${FIRST_PAGE_CARDS} cards and count, ${kb(Math.min(...firstPageBytes))}–${kb(Math.max(...firstPageBytes))} a column, ${kb(firstPageBytes.reduce((sum, b) => sum + b, 0))} in all (a column asks for a page more as it scrolls)
cards in the DOM after render (columns are virtualised): ${Math.max(...renderedCards)} of ${cards}
render stages, median ms from navigation start: script loaded ${summarize(stageTimes.map((s) => s.script)).p50.toFixed(0)}, board mounted ${summarize(stageTimes.map((s) => s.shell)).p50.toFixed(0)}, all columns' data in ${summarize(stageTimes.map((s) => s.board)).p50.toFixed(0)}

wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await stack.stop();
  }
}

await main();
