/**
 * What the benchmarks share: progress lines, sleeping, parallel seeding, the
 * backend as its own process (with a scripted model when a bench needs one)
 * and the results table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexClient, type ConvexHttpClient } from "convex/browser";
import { api } from "../convex/_generated/api";
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
