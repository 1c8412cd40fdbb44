/**
 * What the benchmarks share: progress lines, sleeping, parallel seeding, the
 * backend as its own process (with a scripted model when a bench needs one),
 * the app's production build and its board's first render, and the results table.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexClient, type ConvexHttpClient } from "convex/browser";
import type { Page } from "playwright-core";
import { build, preview } from "vite";
import { api } from "../convex/_generated/api";
import type { ChatMessage } from "../convex/brain/model";
import type { Id } from "../convex/_generated/dataModel";
import { PROJECT_ROOT } from "../tests/backend/helpers";
import { killHard, spawnBackend, stopGracefully, type BackendProcess } from "../tests/backend/process";
import { startScriptedModel, type Script } from "../tests/backend/scriptedModel";
import type { Summary } from "./stats";

/** A progress line, on stderr so that stdout holds only the results. */
export function log(line: string): void {
  console.error(`[bench] ${line}`);
}

/** Waits `ms` milliseconds (none when `ms` is not positive). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Runs `work(i)` for i in [0, count) on `parallel` workers. */
export async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Adds specialists ("Agent 04", "Agent 05", …, engineers and writers in turn) until the department has `count` agents. */
export async function seedAgents(client: ConvexHttpClient, departmentId: Id<"departments">, count: number, systemPrompt = ""): Promise<void> {
  for (let i = (await client.query(api.agents.list, { departmentId })).length; i < count; i++) {
    await client.mutation(api.agents.create, {
      departmentId,
      name: `Agent ${String(i).padStart(2, "0")}`,
      role: i % 2 === 0 ? "Engineer" : "Writer",
      kind: "specialist",
      systemPrompt,
      isSquadLead: false,
      allowedTools: ["post_message", "update_task_status"],
    });
  }
}

/** Stops a backend: SIGTERM lets the CLI close cleanly; SIGKILL if it has not stopped within 10 s. */
export async function stopBackend(backend: BackendProcess): Promise<void> {
  const stopped = await Promise.race([stopGracefully(backend).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!stopped) await killHard(backend);
}

/**
 * The backend as its own process over `root`'s convex/ (default this
 * checkout), its model a scripted one on 127.0.0.1 answering with `script`
 * (named "scripted"), and a client to subscribe with. `close` stops them all
 * and removes the backend's data.
 */
export async function startModelBackend(name: string, script: Script, options: { root?: string; env?: Record<string, string> } = {}) {
  const model = await startScriptedModel(script);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `maestro-bench-${name}-`));
  const root = options.root ?? PROJECT_ROOT;
  const backend = await spawnBackend({
    dataDir,
    convexDir: path.join(root, "convex"),
    projectRoot: root,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "bench", MAESTRO_DEFAULT_MODEL: "scripted", ...options.env },
  });
  const watcher = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  return {
    model,
    backend,
    watcher,
    async close() {
      await watcher.close();
      await stopBackend(backend);
      rmSync(dataDir, { recursive: true, force: true });
      await model.close();
    },
  };
}

/**
 * A results table: its header, and a row per measurement (label, samples,
 * p50, p99, max, unit), labels `labelWidth` wide, figures with `digits`
 * decimals in columns `width` wide.
 */
export function table(labelWidth: number, digits = 1, width = 8) {
  const figure = (value: number) => value.toFixed(digits).padStart(width);
  return {
    head: `${"what".padEnd(labelWidth)} ${"samples".padStart(7)} ${"p50".padStart(width)} ${"p99".padStart(width)} ${"max".padStart(width)}`,
    row: (label: string, s: Summary, unit = "ms") => `${label.padEnd(labelWidth)} ${String(s.count).padStart(7)} ${figure(s.p50)} ${figure(s.p99)} ${figure(s.max)}  ${unit}`,
  };
}

/**
 * Builds the app for production against the stack's backend and serves it
 * with `vite preview` on `port` (an origin the backend was told to allow).
 */
export async function servePreview(stack: { url: string; siteUrl: string }, port: number) {
  const outDir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-dist-"));
  process.env.VITE_CONVEX_URL = stack.url;
  process.env.VITE_CONVEX_SITE_URL = stack.siteUrl;
  process.env.VITE_CLERK_PUBLISHABLE_KEY = "";
  const configFile = path.join(PROJECT_ROOT, "vite.config.ts");
  await build({ configFile, logLevel: "warn", build: { outDir, emptyOutDir: true } });
  const server = await preview({ configFile, logLevel: "warn", build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/**
 * Milliseconds from navigation start until the board at `url` shows `cards`
 * cards' counts and each unfolded column its first cards (see below).
 */
export async function firstBoardRender(page: Page, url: string, cards: number): Promise<number> {
  await page.goto(url);
  // First render: from navigation start (the page's time origin) until every column's count
  // is in (they add up to the whole board) and every unfolded column with tasks shows its
  // first cards (three, or all it has). Timed in the page. The first load of the run has no
  // remembered department (a first visit); the others do, as a returning user's.
  // A column counts up to 500 and shows "500+" past it: the seeded @mentions' runs move
  // tasks (to review), so one column may pass 500 and the shown counts add up to less; then
  // at least half the board must be counted, so a capped column alone does not pass.
  const handle = await page.waitForFunction(
    (n) => {
      let total = 0;
      let capped = false;
      let shown = true;
      for (const column of document.querySelectorAll('[data-testid="board"] section[data-testid^="column-"]')) {
        const text = column.querySelector('[data-testid="column-count"]')?.textContent ?? "0";
        const count = Number.parseInt(text, 10);
        total += count;
        if (text.trim().endsWith("+")) capped = true;
        const cards = column.querySelectorAll('li[data-testid="task-card"]').length;
        if (!column.hasAttribute("data-collapsed") && cards < Math.min(count, 3)) shown = false;
      }
      return (total >= n || (capped && total >= n / 2)) && shown ? performance.now() : false;
    },
    cards,
    { timeout: 120_000, polling: "raf" },
  );
  return (await handle.jsonValue()) as number;
}

/** Jarvis splits "X between A and B: x and y"; everyone else acknowledges without tools. */
export function delegatingReply(messages: ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
  if (last.startsWith("=== TOOL RESULTS ===")) return "Delegated.";
  if (!messages[0].content.includes("=== SQUAD ROSTER ===")) return "On it.";
  const match = /split (.+?) between (.+?) and (.+?): (.+?) and (.+?)"/i.exec(last);
  if (match === null) return "Tell me how to split it.";
  const [, subject, a, b, x, y] = match;
  const call = (title: string, who: string) =>
    `[TOOL: delegate_task ARG: ${JSON.stringify({ title, description: `Part of ${subject}`, assignees: [who], instruction: `Please take ${title}.` })}]`;
  return `Splitting ${subject}.\n${call(x, a)}\n${call(y, b)}`;
}

/** CPU milliseconds (user + system) a process has used, from /proc; NaN where there is none. */
export function backendCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, in clock ticks of 10 ms (USER_HZ 100).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** A process's resident memory now (VmRSS), or its peak so far (VmHWM: the highs between samples, start-up and compactions included), in bytes. */
export function residentBytes(pid: number | undefined, field: "VmRSS" | "VmHWM" | "RssAnon" | "RssFile" = "VmRSS"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) * 1024;
}

/**
 * Waits until every agent of the department has been idle at two looks
 * `quietMs` apart (a run's result can wake its delegator just after), or
 * `timeoutMs` passed.
 */
export async function waitForIdleAgents(client: ConvexHttpClient, departmentId: Id<"departments">, quietMs = 300, timeoutMs = 60_000): Promise<void> {
  const idle = async () => (await client.query(api.agents.list, { departmentId })).every((agent) => agent.status !== "active");
  for (const deadline = performance.now() + timeoutMs; performance.now() < deadline; await sleep(quietMs)) {
    if ((await idle()) && (await sleep(quietMs), await idle())) return;
  }
}
