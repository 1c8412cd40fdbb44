/**
 * `npm run bench:backend`: how fast the offline Convex backend
 * (tools/local-backend) pushes a mutation to subscribed clients, and how many
 * mutations per second it takes.
 *
 * The backend runs as its own process (the CLI, like `npm run backend`) on
 * 127.0.0.1 over a fresh temporary data folder, serving the conformance
 * fixture app (tests/fixtures/conformance/convex). All clients are the real
 * `convex` clients and live in this process. The script prints a table and
 * asserts nothing; it stops the backend and exits by itself, also on errors,
 * Ctrl-C or its overall time limit.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { spawnBackend, type BackendProcess } from "../tests/backend/process";
import { stopBackend } from "./harness";
import { summarize, type Summary } from "./stats";

const api = anyApi;

// ---- parameters ----

/** Database sizes (documents in `notes`) the latency rows run over. */
const DB_SIZES = [1_000, 10_000] as const;
const SUBSCRIBER_COUNTS = [1, 20, 50] as const;
/** The subscribed channel stays this small however big the table is. */
const BENCH_CHANNEL = "bench";
const BENCH_CHANNEL_DOCS = 20;
/** The rest of the table is spread over `other-<n>` channels of this many notes. */
const OTHER_CHANNEL_DOCS = 100;
const WARMUP_MUTATIONS = 10;
const MEASURED_MUTATIONS = 100;
/** Throughput runs over the largest database. */
const THROUGHPUT_DOCS = 10_000;
const THROUGHPUT_CLIENTS = [1, 20] as const;
const THROUGHPUT_MS = 3_000;
/** Caps a throughput client's loop even if the backend were implausibly fast. */
const THROUGHPUT_MAX_PER_CLIENT = 50_000;
/** Longest any single step (a mutation, an awaited update) may take. */
const STEP_TIMEOUT_MS = 20_000;
/** The whole run is abandoned (backend stopped, exit 2) after this. */
const TOTAL_TIMEOUT_MS = 15 * 60_000;
/** The issue's target: p99 update latency under 100 ms at 20 clients over 10k documents. */
const TARGET = { subscribers: 20, docs: 10_000, p99Ms: 100 } as const;

interface Note {
  id: string;
  body: string;
  author: string | null;
}

// ---- the backend process ----

interface Server {
  backend: BackendProcess;
  dataDir: string;
  /** The Node process that serves (tsx is only its loader, so this is the spawned child). */
  serverPid: number;
}

/** Started and not yet stopped, so every exit path can stop them. */
const liveServers = new Set<Server>();
const liveDataDirs = new Set<string>();

async function startServer(walSync: WalSync = "group"): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-"));
  liveDataDirs.add(dataDir);
  const backend = await spawnBackend({ dataDir, env: { MAESTRO_WAL_SYNC: walSync } });
  if (backend.child.pid === undefined) throw new Error("Backend process has no pid");
  const server: Server = { backend, dataDir, serverPid: backend.child.pid };
  liveServers.add(server);
  return server;
}

/** CPU seconds used by stopped backends (server and its esbuild), for the machine-load line. */
let backendCpuSeconds = 0;

async function stopServer(server: Server): Promise<void> {
  liveServers.delete(server);
  backendCpuSeconds += processTree(server.serverPid).reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  await stopBackend(server.backend);
  rmSync(server.dataDir, { recursive: true, force: true });
  liveDataDirs.delete(server.dataDir);
}

async function cleanup(): Promise<void> {
  await Promise.allSettled([...liveServers].map((server) => stopServer(server)));
  for (const dir of liveDataDirs) rmSync(dir, { recursive: true, force: true });
  liveDataDirs.clear();
}

/** `root` and all its descendants, parents before children (just `root` without /proc). */
function processTree(root: number): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    const children = readProc(tree[i], `task/${tree[i]}/children`).trim();
    if (children !== "") tree.push(...children.split(/\s+/).map(Number));
  }
  return tree;
}

function readProc(pid: number | "self", file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return "";
  }
}

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, 0 if unknown. */
function processCpuSeconds(pid: number): number {
  // Fields after the parenthesized command name: utime and stime are the 12th and 13th.
  const stat = readProc(pid, "stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields.length < 13 ? 0 : (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds all cores have spent busy since boot (excluding time stolen by the hypervisor), or null without /proc. */
function machineBusySeconds(): number | null {
  let line: string;
  try {
    line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  } catch {
    return null;
  }
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size in MiB from /proc, or null where /proc is not available. */
function rssMiB(pid: number): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readProc(pid, "status"));
  return match === null ? null : Number(match[1]) / 1024;
}

// ---- the disk ----

/** How the backend's write-ahead log syncs (MAESTRO_WAL_SYNC): one fdatasync per commit, or grouped. */
type WalSync = "each" | "group";

interface DiskSyncRate {
  perSecond: number;
  latency: Summary;
}

/**
 * The disk's own rate: append a log-sized line and fdatasync it, back to
 * back, in a file of the same temporary folder the backends' data lives in.
 * A backend syncing once per commit can never commit faster than this.
 */
function measureDiskSync(ms = 2_000): DiskSyncRate {
  const dir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-fsync-"));
  const fd = openSync(path.join(dir, "wal.jsonl"), "w");
  const line = Buffer.from(`${"x".repeat(299)}\n`);
  const latencies: number[] = [];
  const started = performance.now();
  try {
    while (performance.now() - started < ms) {
      const t0 = performance.now();
      writeSync(fd, line);
      fdatasyncSync(fd);
      latencies.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latency: summarize(latencies) };
}

// ---- helpers ----

function withTimeout<T>(promise: Promise<T>, what: string, ms = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function progress(line: string) {
  process.stderr.write(`[bench] ${line}\n`);
}

/** `logger: false`: notes:add logs a line per call, which the client would print. */
function newClient(url: string): ConvexClient {
  return new ConvexClient(url, { unsavedChangesWarning: false, logger: false });
}

async function closeAll(clients: ConvexClient[]): Promise<void> {
  await Promise.allSettled(clients.map((client) => client.close()));
}

// ---- seeding ----

/** Fills `notes` with `docs` documents: BENCH_CHANNEL_DOCS in the bench channel, the rest elsewhere. */
async function seed(server: Server, docs: number): Promise<number> {
  const started = performance.now();
  const http = new ConvexHttpClient(server.backend.url, { logger: false });
  // bench:seedBulk is internal; the admin key may call it (setAdminAuth is not in the public types).
  (http as unknown as { setAdminAuth(key: string): void }).setAdminAuth(server.backend.adminKey);
  const insert = (channel: string, count: number, startIndex: number) =>
    withTimeout(http.mutation(api.bench.seedBulk, { channel, count, startIndex }), `seeding ${channel}`);
  await insert(BENCH_CHANNEL, BENCH_CHANNEL_DOCS, 0);
  let inserted = BENCH_CHANNEL_DOCS;
  for (let channel = 0; inserted < docs; channel++) {
    const count = Math.min(OTHER_CHANNEL_DOCS, docs - inserted);
    await insert(`other-${channel}`, count, inserted);
    inserted += count;
  }
  const total = (await withTimeout(http.query(api.notes.countAll, {}), "counting notes")) as number;
  if (total !== docs) throw new Error(`Seeded ${total} notes, expected ${docs}`);
  return performance.now() - started;
}

// ---- 1. mutation → subscriber update latency ----

interface Waiter {
  predicate: (notes: Note[]) => boolean;
  seenAt: Array<number | null>;
  remaining: number;
  resolve: (seenAt: number[]) => void;
}

/** K clients subscribed to notes:list({channel}); records when each first holds a result matching a predicate. */
class SubscriberGroup {
  private readonly latest: Array<Note[] | undefined>;
  private waiter: Waiter | null = null;
  private failure: Error | null = null;

  constructor(clients: ConvexClient[], channel: string) {
    this.latest = clients.map(() => undefined);
    clients.forEach((client, index) => {
      client.onUpdate(
        api.notes.list,
        { channel },
        (notes: Note[]) => {
          this.latest[index] = notes;
          this.check(index, performance.now());
        },
        (error: Error) => {
          this.failure = error;
        },
      );
    });
  }

  /** Resolves with, per subscriber, the `performance.now()` at which its result first satisfied `predicate`. */
  waitAll(predicate: (notes: Note[]) => boolean, what: string): Promise<number[]> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const done = new Promise<number[]>((resolve) => {
      const waiter: Waiter = { predicate, seenAt: this.latest.map(() => null), remaining: this.latest.length, resolve };
      this.waiter = waiter;
      const now = performance.now();
      for (let index = 0; index < this.latest.length; index++) this.check(index, now);
    });
    return withTimeout(done, what).finally(() => {
      this.waiter = null;
    });
  }

  private check(index: number, now: number) {
    const waiter = this.waiter;
    const notes = this.latest[index];
    if (waiter === null || notes === undefined || waiter.seenAt[index] !== null || !waiter.predicate(notes)) return;
    waiter.seenAt[index] = now;
    waiter.remaining -= 1;
    if (waiter.remaining === 0) waiter.resolve(waiter.seenAt as number[]);
  }
}

interface LatencyRow {
  docs: number;
  subscribers: number;
  /** Until the slowest subscriber saw the note. */
  allSeen: Summary;
  /** Every subscriber's own arrival time. */
  perSubscriber: Summary;
  /** Until the writer's `mutation()` promise resolved. */
  ack: Summary;
}

async function measureLatency(url: string, docs: number, subscriberCount: number): Promise<LatencyRow> {
  const subscribers = Array.from({ length: subscriberCount }, () => newClient(url));
  const writer = newClient(url);
  try {
    const group = new SubscriberGroup(subscribers, BENCH_CHANNEL);
    await group.waitAll((notes) => notes.length === BENCH_CHANNEL_DOCS, "initial subscription results");
    const allSeen: number[] = [];
    const perSubscriber: number[] = [];
    const ack: number[] = [];
    for (let i = 0; i < WARMUP_MUTATIONS + MEASURED_MUTATIONS; i++) {
      const body = `latency-${docs}-${subscriberCount}-${i}`;
      // Register before the call: an update may arrive before the writer's own acknowledgement.
      const seen = group.waitAll((notes) => notes.some((note) => note.body === body), `subscribers to see ${body}`);
      let ackAt = 0;
      const start = performance.now();
      const added = writer.mutation(api.notes.add, { channel: BENCH_CHANNEL, body }).then((id: string) => {
        ackAt = performance.now();
        return id;
      });
      const [id, seenAt] = await Promise.all([withTimeout(added, `notes:add ${body}`), seen]);
      if (i >= WARMUP_MUTATIONS) {
        allSeen.push(Math.max(...seenAt) - start);
        for (const at of seenAt) perSubscriber.push(at - start);
        ack.push(ackAt - start);
      }
      // Untimed: delete the note again so the subscribed result stays BENCH_CHANNEL_DOCS long.
      const gone = group.waitAll((notes) => !notes.some((note) => note.body === body), `subscribers to lose ${body}`);
      await Promise.all([withTimeout(writer.mutation(api.bench.remove, { id }), `bench:remove ${body}`), gone]);
    }
    return {
      docs,
      subscribers: subscriberCount,
      allSeen: summarize(allSeen),
      perSubscriber: summarize(perSubscriber),
      ack: summarize(ack),
    };
  } finally {
    await closeAll([...subscribers, writer]);
  }
}

// ---- 2. mutation throughput ----

interface ThroughputRow {
  walSync: WalSync;
  docs: number;
  clients: number;
  completed: number;
  seconds: number;
  perSecond: number;
  roundTrip: Summary;
}

/** Each client runs awaited notes:add calls back to back for THROUGHPUT_MS; no subscriptions are open. */
async function measureThroughput(url: string, docs: number, clientCount: number, walSync: WalSync): Promise<ThroughputRow> {
  const clients = Array.from({ length: clientCount }, () => newClient(url));
  try {
    // One untimed call each, so connecting is not part of the figure.
    await Promise.all(
      clients.map((client, index) =>
        withTimeout(client.mutation(api.notes.add, { channel: `throughput-${index}`, body: "warm-up" }), "throughput warm-up"),
      ),
    );
    const roundTrips: number[] = [];
    const start = performance.now();
    const deadline = start + THROUGHPUT_MS;
    let end = start;
    await Promise.all(
      clients.map(async (client, index) => {
        for (let n = 0; n < THROUGHPUT_MAX_PER_CLIENT && performance.now() < deadline; n++) {
          const sent = performance.now();
          await withTimeout(client.mutation(api.notes.add, { channel: `throughput-${index}`, body: `t-${n}` }), "throughput notes:add");
          const received = performance.now();
          roundTrips.push(received - sent);
          if (received > end) end = received;
        }
      }),
    );
    const seconds = (end - start) / 1000;
    return { walSync, docs, clients: clientCount, completed: roundTrips.length, seconds, perSecond: roundTrips.length / seconds, roundTrip: summarize(roundTrips) };
  } finally {
    await closeAll(clients);
  }
}

// ---- output ----

function ms(value: number): string {
  return Number.isNaN(value) ? "-" : value.toFixed(1);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join("  ");
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

interface RssSample {
  docs: number;
  when: string;
  mib: number | null;
}

interface RunInfo {
  seedMs: Map<number, number>;
  wallMs: number;
  /** CPU seconds over the run: the backends, this process, and everything else on the machine (null without /proc). */
  cpu: { backend: number; bench: number; others: number | null };
}

function report(latency: LatencyRow[], throughput: ThroughputRow[], rss: RssSample[], run: RunInfo, disk: DiskSyncRate[]): string {
  const cpus = os.cpus();
  const out: string[] = [];
  out.push("Offline Convex backend benchmark (tools/local-backend)");
  out.push(
    `machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? "unknown CPU"}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
      `${os.type()} ${os.release()}, node ${process.version}`,
  );
  const others = run.cpu.others === null ? "n/a" : `${run.cpu.others.toFixed(1)} s (${((100 * run.cpu.others) / (run.wallMs / 1000)).toFixed(0)}% of one core)`;
  out.push(
    `CPU used during the run: backend ${run.cpu.backend.toFixed(1)} s, clients (this process) ${run.cpu.bench.toFixed(1)} s, other processes ${others}; ` +
      "if others is more than a few %, something else shared the cores and the figures are pessimistic.",
  );
  out.push(
    "setup: backend = separate process (node --import tsx tools/local-backend/cli.ts) on 127.0.0.1, fresh data dir per database size, " +
      "fixture app tests/fixtures/conformance/convex; all clients (convex ConvexClient over WebSocket) share this one process, " +
      "so backend and clients compete for the same cores.",
  );
  out.push(
    `database: N notes = ${BENCH_CHANNEL_DOCS} in channel "${BENCH_CHANNEL}" + the rest in channels of ${OTHER_CHANNEL_DOCS}; ` +
      `seeding took ${[...run.seedMs].map(([docs, time]) => `${(time / 1000).toFixed(1)} s for ${docs}`).join(", ")}.`,
  );
  out.push("");
  out.push("1. Mutation -> subscriber update latency (ms)");
  out.push(
    `   K clients subscribe to notes:list({channel:"${BENCH_CHANNEL}"}); a separate writer client calls notes:add ` +
      `${MEASURED_MUTATIONS} times, one after another (after ${WARMUP_MUTATIONS} warm-up calls).`,
  );
  out.push("   all-seen = from just before writer.mutation() until the LAST of the K subscribers received a result holding the new note");
  out.push("   per-sub  = the same, measured to each subscriber's own arrival (K samples per mutation)");
  out.push("   ack      = until the writer's mutation() promise resolved");
  out.push(`   Each note is deleted again (untimed) so the subscribed result stays ${BENCH_CHANNEL_DOCS} notes. Percentiles are nearest-rank.`);
  out.push("");
  out.push(
    table(
      ["docs", "subscribers", "samples", "all-seen p50", "all-seen p99", "all-seen max", "per-sub p50", "per-sub p99", "ack p50", "target"],
      latency.map((row) => {
        const targeted = row.docs === TARGET.docs && row.subscribers === TARGET.subscribers;
        const verdict = row.allSeen.p99 < TARGET.p99Ms ? "PASS" : "MISS";
        return [
          String(row.docs),
          String(row.subscribers),
          String(row.allSeen.count),
          ms(row.allSeen.p50),
          ms(row.allSeen.p99),
          ms(row.allSeen.max),
          ms(row.perSubscriber.p50),
          ms(row.perSubscriber.p99),
          ms(row.ack.p50),
          targeted ? `p99 < ${TARGET.p99Ms} ms: ${verdict}` : "",
        ];
      }),
    ),
  );
  out.push("");
  out.push(`2. Mutation throughput over ${THROUGHPUT_DOCS} docs (no subscriptions open)`);
  out.push(
    `   Each client runs awaited notes:add calls back to back for ~${THROUGHPUT_MS / 1000} s; ` +
      "mut/s = all completed calls / time until the last one completed; round trip = mutation() call to its promise resolving (ms).",
  );
  out.push(
    '   WAL sync "each" = one fdatasync per commit, in the commit (before: MAESTRO_WAL_SYNC=each); "group" = group commit ' +
      "(after, the default): commits go on while the disk syncs, one fdatasync covers every commit written before it; " +
      "a write is acknowledged only once a sync covers it, in both.",
  );
  for (const [i, rate] of disk.entries()) {
    out.push(
      `   the disk's own rate (${i === 0 ? "before" : "after"} the throughput runs; append ~300 bytes + fdatasync, back to back, same tmp folder): ` +
        `${rate.perSecond.toFixed(0)} syncs/s, p50 ${ms(rate.latency.p50)} ms, p99 ${ms(rate.latency.p99)} ms`,
    );
  }
  const byMode = (mode: WalSync, clients: number) => throughput.find((row) => row.walSync === mode && row.clients === clients);
  for (const clients of THROUGHPUT_CLIENTS) {
    const before = byMode("each", clients);
    const after = byMode("group", clients);
    if (before !== undefined && after !== undefined) {
      out.push(`   ${clients} client(s): group/each = ${(after.perSecond / before.perSecond).toFixed(2)}x`);
    }
  }
  out.push("");
  out.push(
    table(
      ["WAL sync", "docs", "clients", "completed", "seconds", "mut/s", "round-trip p50", "round-trip p99", "round-trip max"],
      throughput.map((row) => [
        row.walSync,
        String(row.docs),
        String(row.clients),
        String(row.completed),
        row.seconds.toFixed(2),
        row.perSecond.toFixed(0),
        ms(row.roundTrip.p50),
        ms(row.roundTrip.p99),
        ms(row.roundTrip.max),
      ]),
    ),
  );
  out.push("");
  out.push("3. Backend process memory (VmRSS of the node process running cli.ts)");
  for (const sample of rss) {
    out.push(`   ${String(sample.docs).padStart(6)} docs, ${sample.when}: ${sample.mib === null ? "n/a" : `${sample.mib.toFixed(0)} MiB`}`);
  }
  out.push("");
  out.push(`wall time: ${(run.wallMs / 1000).toFixed(1)} s`);
  return out.join("\n");
}

// ---- main ----

async function main(): Promise<void> {
  const started = performance.now();
  const busyBefore = machineBusySeconds();
  const cpuBefore = process.cpuUsage();
  const latency: LatencyRow[] = [];
  const throughput: ThroughputRow[] = [];
  const rss: RssSample[] = [];
  const seedMs = new Map<number, number>();
  const disk: DiskSyncRate[] = [];
  for (const docs of DB_SIZES) {
    progress(`starting backend for ${docs} documents`);
    const server = await startServer();
    try {
      seedMs.set(docs, await seed(server, docs));
      rss.push({ docs, when: "after seeding", mib: rssMiB(server.serverPid) });
      for (const subscribers of SUBSCRIBER_COUNTS) {
        progress(`latency: ${docs} docs, ${subscribers} subscribers`);
        latency.push(await measureLatency(server.backend.url, docs, subscribers));
      }
      rss.push({ docs, when: "after latency runs", mib: rssMiB(server.serverPid) });
      if (docs === THROUGHPUT_DOCS) {
        progress("measuring the disk's own fdatasync rate");
        disk.push(measureDiskSync());
        for (const clients of THROUGHPUT_CLIENTS) {
          progress(`throughput: ${clients} clients, WAL sync group`);
          throughput.push(await measureThroughput(server.backend.url, docs, clients, "group"));
        }
        rss.push({ docs, when: "after throughput runs", mib: rssMiB(server.serverPid) });
      }
    } catch (error) {
      progress(`backend output (last lines):\n${server.backend.output.join("").split("\n").slice(-30).join("\n")}`);
      throw error;
    } finally {
      await stopServer(server);
    }
  }
  // Before group commit: the same throughput runs on a backend that syncs every commit on its own.
  progress(`starting a backend with MAESTRO_WAL_SYNC=each for ${THROUGHPUT_DOCS} documents`);
  const each = await startServer("each");
  try {
    await seed(each, THROUGHPUT_DOCS);
    for (const clients of THROUGHPUT_CLIENTS) {
      progress(`throughput: ${clients} clients, WAL sync each`);
      throughput.push(await measureThroughput(each.backend.url, THROUGHPUT_DOCS, clients, "each"));
    }
  } finally {
    await stopServer(each);
  }
  disk.push(measureDiskSync());
  const wallMs = performance.now() - started;
  const benchCpu = process.cpuUsage(cpuBefore);
  const bench = (benchCpu.user + benchCpu.system) / 1e6;
  const busyAfter = machineBusySeconds();
  const others = busyBefore === null || busyAfter === null ? null : Math.max(0, busyAfter - busyBefore - bench - backendCpuSeconds);
  const run: RunInfo = { seedMs, wallMs, cpu: { backend: backendCpuSeconds, bench, others } };
  console.log(report(latency, throughput, rss, run, disk));
}

function abort(reason: string, code: number) {
  progress(reason);
  void cleanup().finally(() => process.exit(code));
}

const watchdog = setTimeout(() => abort(`overall limit of ${TOTAL_TIMEOUT_MS / 60_000} min reached; stopping`, 2), TOTAL_TIMEOUT_MS);
watchdog.unref();
process.once("SIGINT", () => abort("interrupted; stopping the backend", 130));

let exitCode = 0;
try {
  await main();
} catch (error) {
  exitCode = 1;
  progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await cleanup();
}
// Client sockets and timers are closed; exit explicitly anyway so nothing left over keeps the run alive.
process.exit(exitCode);
