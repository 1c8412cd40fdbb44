/**
 * `npm run bench:soak`: the full-size department of `bench:scale` (20,000
 * tasks, 200 agents, 300,000 messages, 20,000 runs; BENCH_SCALE=0.1 for a
 * tenth) under a steady mix of posts, moves, mentions (and the runs they
 * start) and description edits, until the backend has compacted its log at
 * least BENCH_SOAK_COMPACTIONS times (20). A squad runs the backend for
 * weeks; this is the benchmark's stand-in for that. To get there in
 * minutes, the backend compacts once its log passes
 * BENCH_SOAK_COMPACT_BYTES (4 MiB, through MAESTRO_COMPACT_LOG_BYTES)
 * instead of 64 MiB, and finished scheduled jobs' rows are kept
 * BENCH_SOAK_JOB_RETENTION_MS (60 s) instead of 7 days; likewise the
 * department keeps its history (feed, notifications, handled wake-ups,
 * ended runs' steps; Settings → Retention) one retention day, fitted into
 * BENCH_SOAK_HISTORY_MS (60 s, through MAESTRO_RETENTION_DAY_MS), the bench
 * running the hourly sweep (`retention.sweepHistory`) every
 * SWEEP_EVERY_MS as the cron would; the seeded history past that day is
 * swept before the soak's backend starts; compactions count once the mix has run
 * one history window, the steady state. Prints the backend's
 * resident memory after each compaction and its growth from the 5th to the
 * last (target < 5%), beside the data it holds then (documents, snapshot
 * bytes: the mix's mentions, posts and moves add data that is kept, which
 * this backend holds in memory), and the interactive figures (move → second
 * client, a post, @Jarvis mention → delegated task visible, search) at the
 * start and at the end. The mix runs at a fixed pace (BENCH_SOAK_ROUNDS_PER_S,
 * 10), so the history inside its window is the same from the warm-up to the
 * end. `--diagnose` adds the snapshot's growth by table.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { TASK_STATUSES } from "../convex/validators";
import { FIRST_PAGE_CARDS } from "../src/board/prefetch";
import { adminClient, OWNER_PASSWORD, passwordRoute } from "../tests/backend/helpers";
import { spawnBackend, type BackendProcess } from "../tests/backend/process";
import { startScriptedModel } from "../tests/backend/scriptedModel";
import { backendCpuMs, delegatingReply, log, residentBytes, sleep, stopBackend } from "./harness";
import { readSnapshot, SNAPSHOT_FILE } from "../tools/local-backend/snapshot";
import { tableOf } from "../tools/local-backend/componentState";
import { seedScaleDepartment } from "./scaleSeed";
import { summarize, type Summary } from "./stats";

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const COMPACTIONS = Number(process.env.BENCH_SOAK_COMPACTIONS ?? 20);
const COMPACT_BYTES = Number(process.env.BENCH_SOAK_COMPACT_BYTES ?? 4 * 1024 * 1024);
/** Growth of resident memory allowed from the 5th compaction to the last. */
const GROWTH_TARGET = 0.05;
/** The mix, per round: description edits (the log's bulk), posts, moves; a mention every MENTION_EVERY rounds. */
const MENTION_EVERY = 5;
/**
 * The cards whose descriptions the mix rewrites, in turn: the log's bulk
 * without growing the data (rewriting a new card each round left 8 kB more
 * on every card, 160 MB over the full department's 20,000).
 */
const EDITED_CARDS = 64;
/**
 * How long finished scheduled jobs' rows are kept during the soak
 * (MAESTRO_SCHEDULED_JOB_RETENTION_MS): Convex's 7 days, fitted into the
 * soak's minutes as the 4 MiB compactions stand for 64 MiB ones, so the soak
 * sees the steady state a squad's weeks reach.
 */
const JOB_RETENTION_MS = Number(process.env.BENCH_SOAK_JOB_RETENTION_MS ?? 60_000);
/**
 * A retention day in the soak (MAESTRO_RETENTION_DAY_MS), the department's
 * history being kept one such day: a squad's history window fitted into the
 * soak's minutes, as the job retention is.
 */
const HISTORY_MS = Number(process.env.BENCH_SOAK_HISTORY_MS ?? 60_000);
/**
 * The mix's pace (rounds a second), the same from the warm-up to the end: a
 * squad's steady work. Run flat out, the mix sped up as the JIT warmed (15
 * rounds a second in the warm-up, 28 in the soak), so the history inside its
 * window still grew through the span.
 */
const ROUNDS_PER_S = Number(process.env.BENCH_SOAK_ROUNDS_PER_S ?? 10);
/** How often the bench runs the history sweep, standing for the hourly cron (a tenth of the window). */
const SWEEP_EVERY_MS = HISTORY_MS / 10;
/** Samples of each interactive figure, at the start and at the end. */
const SAMPLES = { moves: 30, posts: 30, mentions: 10, searches: 20 };
const STATUSES = TASK_STATUSES.filter((s) => s !== "blocked");
/**
 * `--diagnose`: what the data folder's snapshot holds, table by table
 * (documents and bytes), after the 5th compaction and after the last, and
 * which tables grew between them: data the mix adds, told apart from rows
 * that pile up with time (finished scheduled jobs, logs).
 */
const DIAGNOSE = process.argv.includes("--diagnose");

/** Documents and bytes of JSON per table ("component/table" beside the app's) in the snapshot of `dataDir`. */
function snapshotTables(dataDir: string, file = SNAPSHOT_FILE): Map<string, { documents: number; bytes: number }> {
  const tables = new Map<string, { documents: number; bytes: number }>();
  readSnapshot(path.join(dataDir, file), {
    document: (doc) => {
      const table = tableOf(doc._id);
      const entry = tables.get(table) ?? { documents: 0, bytes: 0 };
      entry.documents += 1;
      entry.bytes += JSON.stringify(doc).length;
      tables.set(table, entry);
    },
    result: () => {},
  });
  return tables;
}

function tableGrowth(before: Map<string, { documents: number; bytes: number }>, after: Map<string, { documents: number; bytes: number }>): string {
  const rows = [...new Set([...before.keys(), ...after.keys()])].map((table) => {
    const a = before.get(table) ?? { documents: 0, bytes: 0 };
    const b = after.get(table) ?? { documents: 0, bytes: 0 };
    return { table, a, b, added: b.documents - a.documents, bytes: b.bytes - a.bytes };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  return rows
    .filter((row) => row.added !== 0 || row.bytes !== 0)
    .map((row) => `  ${row.table.padEnd(28)} ${String(row.a.documents).padStart(8)} → ${String(row.b.documents).padEnd(8)} (+${row.added} documents, ${(row.bytes / 1024).toFixed(0)} KiB)`)
    .join("\n");
}

function ms(s: Summary): string {
  return `p50 ${s.p50.toFixed(1)} / p99 ${s.p99.toFixed(1)} ms`;
}

async function main() {
  const started = performance.now();
  const model = await startScriptedModel((request) => delegatingReply(request.messages));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-soak-"));
  const env = { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "bench", MAESTRO_DEFAULT_MODEL: "scripted" };
  let backend: BackendProcess = await spawnBackend({ dataDir, convexDir: path.resolve("convex"), env, readyTimeoutMs: 300_000 });
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const { departmentId, email, agents, taskIds } = await seedScaleDepartment(backend, SCALE);
    const seededAt = performance.now();
    const soakEnv = {
      ...env,
      MAESTRO_COMPACT_LOG_BYTES: String(COMPACT_BYTES),
      MAESTRO_SCHEDULED_JOB_RETENTION_MS: String(JOB_RETENTION_MS),
      MAESTRO_RETENTION_DAY_MS: String(HISTORY_MS),
    };
    const restart = async () => {
      await stopBackend(backend);
      backend = await spawnBackend({ dataDir, convexDir: path.resolve("convex"), env: soakEnv, readyTimeoutMs: 300_000 });
      const signedIn = await passwordRoute(backend.siteUrl, { flow: "signIn", email, password: OWNER_PASSWORD });
      if (signedIn.status !== 200) throw new Error(`Sign-in failed: ${signedIn.status} ${JSON.stringify(signedIn.body)}`);
      const { token } = signedIn.body as { token: string };
      const client = new ConvexHttpClient(backend.url);
      client.setAuth(token);
      return { token, client };
    };
    log(`restarting the backend, compacting past ${COMPACT_BYTES} bytes of log`);
    const first = await restart();
    // The squad keeps its history one (retention) day: the setting an admin makes in Settings → Retention. It has kept
    // it so all along, as a squad that runs for weeks has: the seeded history older than that day is swept now, and the
    // backend started again, so the soak's process does not carry the one-off sweep of it (the first full soak's
    // 127,000 run steps) in its heap, a dip and a regrowth in the compactions it counts.
    await first.client.mutation(api.retention.update, { departmentId, policy: { historyTtlDays: 1 } });
    await sleep(Math.max(0, HISTORY_MS - (performance.now() - seededAt)));
    log("sweeping the seeded history older than one retention day, then restarting the backend");
    const purger = adminClient(backend.url, backend.adminKey);
    // Its passes schedule their own follow-ups: done once two passes a second apart find nothing left.
    for (let quiet = 0; quiet < 2; ) {
      const deleted = (await purger.mutation(anyApi.retention.sweepHistory, { departmentId })) as Record<string, number>;
      quiet = Object.values(deleted).every((count) => count === 0) ? quiet + 1 : 0;
      await sleep(quiet > 0 ? 1000 : 50);
    }
    const { token, client } = await restart();
    const mover = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    const watcher = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    closers.push(() => mover.close(), () => watcher.close());
    mover.setAuth(async () => token);
    watcher.setAuth(async () => token);
    // The board as the app subscribes it: each column's first page.
    const byColumn = new Map<string, Set<string>>();
    const titles = new Set<string>();
    let onChange: (() => void) | null = null;
    for (const status of TASK_STATUSES) {
      watcher.onUpdate(api.tasks.listColumn, { departmentId, status, limit: FIRST_PAGE_CARDS }, (column) => {
        byColumn.set(status, new Set(column.tasks.map((t) => t._id)));
        for (const task of column.tasks) titles.add(task.title);
        onChange?.();
      });
    }
    while (byColumn.size < TASK_STATUSES.length) await sleep(20);
    const until = (check: () => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        if (check()) return resolve();
        const timer = setTimeout(() => reject(new Error(`${what} not seen within 30 s`)), 30_000);
        onChange = () => {
          if (!check()) return;
          clearTimeout(timer);
          onChange = null;
          resolve();
        };
      });
    const columnOf = (taskId: string) => [...byColumn].find(([, ids]) => ids.has(taskId))?.[0];
    let mentionCount = 0;
    const misses: string[] = [];
    // Whom Jarvis is asked to delegate to: never Jarvis himself. agents.list is in name order, so the squad's defaults
    // (Archie, Dev Bot, Jarvis, Writer) come after "Agent …": picking by position asked him to delegate to himself every
    // 196th mention, which he rightly refuses ("a lead never assigns itself"), and the task never came (4 in the last full soak).
    const helpers = agents.filter((agent) => !agent.isSquadLead);
    /** An @Jarvis mention on a fresh task, until the first delegated task is on the board's first page (ms). */
    const mention = async () => {
      const i = mentionCount++;
      const taskId = await client.mutation(api.tasks.create, { departmentId, title: `Soak page ${i} to split` });
      const title = `soak hero ${i}`;
      const t0 = performance.now();
      await client.mutation(api.messages.create, {
        taskId,
        content: `@Jarvis split the page ${i} between ${helpers[i % helpers.length].name} and Writer: ${title} and the soak form ${i}`,
      });
      try {
        await until(() => titles.has(title), title);
      } catch (error) {
        // Counted (as the 30 s waited) and printed, with where the delegated task is: lost, or there but not on a column's first page.
        const { subtasks } = await client.query(api.tasks.listSubtasks, { taskId });
        const hero = subtasks.find((task) => task.title === title);
        const where =
          hero === undefined
            ? `not among the ${subtasks.length} subtask(s) of its parent`
            : `created, now ${hero.status}, ${byColumn.get(hero.status)?.has(hero._id) === true ? "on" : "not on"} that column's first ${FIRST_PAGE_CARDS} cards`;
        misses.push(`${String(error)}: ${where}`);
      }
      return performance.now() - t0;
    };
    let moveCount = 0;
    const move = async () => {
      const visible = [...byColumn.values()].flatMap((ids) => [...ids]);
      const taskId = visible[(moveCount++ * 53) % visible.length] as Id<"tasks">;
      const target = STATUSES.find((s) => s !== columnOf(taskId))!;
      const t0 = performance.now();
      await mover.mutation(api.tasks.move, { taskId, status: target, position: 0 });
      await until(() => columnOf(taskId) === target, "move");
      return performance.now() - t0;
    };
    let postCount = 0;
    const post = async () => {
      const t0 = performance.now();
      await client.mutation(api.messages.create, { taskId: taskIds[(postCount++ * 97) % taskIds.length], content: `Soak note ${postCount}: the cache warms in 2 s.` });
      return performance.now() - t0;
    };
    const words = ["signup", "Task 1234", "pricing flow", "Agent 1", "docs", "review the api", "hero", "zzz-nothing"];
    let searchCount = 0;
    const search = async () => {
      const t0 = performance.now();
      await client.query(api.search.palette, { departmentId, text: words[searchCount++ % words.length] });
      return performance.now() - t0;
    };
    const sampled = async (count: number, fn: () => Promise<number>) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) times.push(await fn());
      return summarize(times);
    };
    const interactive = async () => ({
      move: await sampled(SAMPLES.moves, move),
      post: await sampled(SAMPLES.posts, post),
      mention: await sampled(SAMPLES.mentions, mention),
      search: await sampled(SAMPLES.searches, search),
      rss: residentBytes(backend.child.pid),
    });

    log("interactive figures at the start");
    const atStart = await interactive();

    // ---- the soak ----
    const compactionLines = () => backend.output.join("").match(/longest it held the event loop was/g)?.length ?? 0;
    const samples: Array<{ compaction: number; rss: number; minutes: number; cpuSeconds: number; documents: number; dataBytes: number }> = [];
    // The backend keeps every document in memory: what a compaction folded says how much data there is beside RSS.
    const foldedDocuments = () => [...backend.output.join("").matchAll(/Compaction: (\d+) documents folded/g)].map((match) => Number(match[1]));
    const fifthSnapshot = path.join(dataDir, "..", `${path.basename(dataDir)}-5th-${SNAPSHOT_FILE}`);
    closers.push(async () => rmSync(fifthSnapshot, { force: true }));
    const padding = "x".repeat(8_000);
    // The hourly cron's history pass, as the admin key runs an internal function (`npx convex run`); it schedules its own follow-ups.
    const sweeper = adminClient(backend.url, backend.adminKey);
    let swept = performance.now();
    let sweeps = 0;
    let rounds = 0;
    const paceStart = performance.now();
    let behind = 0;
    /** One round of the mix at its pace, and the history sweep when it is due. */
    const round = async () => {
      const due = paceStart + (rounds * 1000) / ROUNDS_PER_S - performance.now();
      if (due > 0) await sleep(due);
      else if (due < -1000) behind += 1;
      rounds += 1;
      // The log's bulk: a card's description rewritten (8 kB a commit).
      await client.mutation(api.tasks.update, { taskId: taskIds[((rounds % EDITED_CARDS) * 31) % taskIds.length], description: `${padding} ${rounds}` });
      await post();
      await move();
      if (rounds % MENTION_EVERY === 0) await mention();
      if (performance.now() - swept >= SWEEP_EVERY_MS) {
        swept = performance.now();
        sweeps += 1;
        await sweeper.mutation(anyApi.retention.sweepHistory, { departmentId });
      }
    };
    // The steady state first: the mix runs one history window (and a sweep) before compactions count, so the seeded
    // department's old history is gone and the mix's own fills the window; measured from the start, a quick machine
    // reached its 5th compaction before the window had filled, and the data still grew with it.
    log(`warming up: the mix for one history window (${(HISTORY_MS + SWEEP_EVERY_MS) / 1000} s) before compactions count`);
    const warmStart = performance.now();
    while (performance.now() - warmStart < HISTORY_MS + SWEEP_EVERY_MS) await round();
    const warmRounds = rounds;
    const baseCompactions = compactionLines();
    const baseFolded = foldedDocuments().length;
    const soakStart = performance.now();
    log(`soaking until ${COMPACTIONS} compactions`);
    while (samples.length < COMPACTIONS) {
      await round();
      const done = compactionLines() - baseCompactions;
      while (samples.length < done) {
        samples.push({
          compaction: samples.length + 1,
          rss: residentBytes(backend.child.pid),
          minutes: (performance.now() - soakStart) / 60_000,
          cpuSeconds: backendCpuMs(backend.child.pid) / 1000,
          documents: foldedDocuments()[baseFolded + samples.length] ?? Number.NaN,
          // The snapshot that compaction wrote: every document's JSON, what the backend holds in memory as data.
          dataBytes: statSync(path.join(dataDir, SNAPSHOT_FILE)).size,
        });
        const last = samples.at(-1)!;
        // Copied now and read at the end: reading it here held the bench's loop long enough at full size for the backend
        // to close the idle keep-alive socket under the next request ("other side closed").
        if (DIAGNOSE && last.compaction === 5) copyFileSync(path.join(dataDir, SNAPSHOT_FILE), fifthSnapshot);
        // With MAESTRO_BACKEND_NODE_ARGS=--trace-gc, the backend's last full collection: its heap after it, beside RSS.
        const gc = backend.output.join("").match(/Mark-Compact[^\n]*/g)?.filter((line) => Number(/-> ([\d.]+)/.exec(line)?.[1] ?? 0) > 50).at(-1);
        // Anonymous memory (heaps, buffers) apart from mapped files (code): where a rise comes from.
        const split = DIAGNOSE ? ` (${(residentBytes(backend.child.pid, "RssAnon") / 2 ** 20).toFixed(0)} anonymous)` : "";
        log(`compaction ${last.compaction}: RSS ${(last.rss / 2 ** 20).toFixed(0)} MiB${split}, data ${(last.dataBytes / 2 ** 20).toFixed(1)} MiB in ${last.documents} documents, after ${last.minutes.toFixed(1)} min, ${rounds} rounds${gc === undefined ? "" : `; last ${gc}`}`);
      }
    }
    const mixSeconds = (performance.now() - paceStart) / 1000;
    log("interactive figures at the end");
    const atEnd = await interactive();

    const fifth = samples[Math.min(4, samples.length - 1)];
    const last = samples.at(-1)!;
    const growth = (last.rss - fifth.rss) / fifth.rss;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    const percent = (from: number, to: number) => `${to >= from ? "+" : ""}${(((to - from) / from) * 100).toFixed(1)}%`;
    const row = (label: string, a: Summary, b: Summary) => `  ${label.padEnd(44)} start ${ms(a).padEnd(28)} end ${ms(b)}`;
    console.log(`Soak benchmark (backend as its own process over convex/, scripted model answering at once)
machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; shared with other work (load below)
department at BENCH_SCALE=${SCALE}; compaction past ${COMPACT_BYTES} bytes of log (MAESTRO_COMPACT_LOG_BYTES; the default is 64 MiB)
mix per round: a description edit (8 kB, on ${EDITED_CARDS} cards in turn), a post, a move; an @Jarvis mention (and the runs it starts) every ${MENTION_EVERY} rounds
paced at ${ROUNDS_PER_S} rounds a second (BENCH_SOAK_ROUNDS_PER_S): ${(rounds / mixSeconds).toFixed(1)} reached${behind > 0 ? `; ${behind} rounds started over 1 s late (the machine could not keep the pace)` : ""}
${rounds} rounds (${warmRounds} of them warming up: one history window before compactions count), ${mentionCount} mentions in all (${misses.length} whose delegated task did not show on the board within 30 s${misses.length > 0 ? `:\n  ${misses.join("\n  ")}\n` : ""}), ${samples.length} compactions in ${last.minutes.toFixed(1)} min
resident memory after each compaction (MiB): ${samples.map((s) => (s.rss / 2 ** 20).toFixed(0)).join(" ")}
growth from the 5th compaction (${mib(fifth.rss)}) to the ${last.compaction}th (${mib(last.rss)}): ${(growth * 100).toFixed(1)}% (target < ${GROWTH_TARGET * 100}%) ${growth < GROWTH_TARGET ? "met" : "NOT met"}
data held (all in memory), as those compactions wrote it: ${fifth.documents} → ${last.documents} documents (${percent(fifth.documents, last.documents)}), ${mib(fifth.dataBytes)} → ${mib(last.dataBytes)} of snapshot (${percent(fifth.dataBytes, last.dataBytes)})
  what the mix adds and keeps (its mentions' tasks, runs and events, its posts, its moves' activity): data this backend holds in memory, not memory that grows with time
  resident memory per MiB of data: ${(fifth.rss / fifth.dataBytes).toFixed(2)} at the 5th compaction, ${(last.rss / last.dataBytes).toFixed(2)} at the ${last.compaction}th (for the record)
finished scheduled jobs' rows kept ${JOB_RETENTION_MS / 1000} s (Convex's 7 days, fitted into the soak; MAESTRO_SCHEDULED_JOB_RETENTION_MS)
history (feed, notifications, handled wake-ups, ended runs' steps) kept one retention day of ${HISTORY_MS / 1000} s (MAESTRO_RETENTION_DAY_MS), swept ${sweeps} times, every ${SWEEP_EVERY_MS / 1000} s
interactive figures, at the start and at the end:
${row("move → second client", atStart.move, atEnd.move)}
${row("post (messages.create, HTTP)", atStart.post, atEnd.post)}
${row("@Jarvis mention → delegated task on the board", atStart.mention, atEnd.mention)}
${row("search / command palette (HTTP query)", atStart.search, atEnd.search)}
  resident memory                              start ${mib(atStart.rss)}${" ".repeat(22)}end ${mib(atEnd.rss)}
load average (1/5/15 min) at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} on ${os.cpus().length} cores
wall time: ${((performance.now() - started) / 60_000).toFixed(1)} min`);
    if (DIAGNOSE) {
      const growth = tableGrowth(snapshotTables(path.dirname(fifthSnapshot), path.basename(fifthSnapshot)), snapshotTables(dataDir));
      console.log(`--diagnose: what the snapshot gained from the 5th compaction to the end, by table (largest first):\n${growth}`);
    }
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await stopBackend(backend).catch(() => {});
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
