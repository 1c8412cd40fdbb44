/**
 * One greedy socket against everyone else in its department
 * (tools/local-backend/sync.ts SocketLimits). A first client asks for 1,000
 * distinct board subscriptions (`tasks.list`, one tag filter each, all of
 * which every new task touches) and keeps what the backend grants; a second
 * client on its own socket then creates tasks one after another, and each
 * write is timed until the client's promise settles (the Transition that
 * reaches its commit, so after every affected subscription re-ran). Target:
 * the second client's write p99 < 100 ms.
 *
 *   npm run bench:sockets                      this checkout
 *   npm run bench:sockets -- --baseline <dir>  the same on another checkout first (e.g. /work/main, before the limits)
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexClient } from "convex/browser";
import { anyApi } from "convex/server";
import { PROJECT_ROOT, seedDemoSquad } from "../tests/backend/helpers";
import { spawnBackend } from "../tests/backend/process";
import { log, sleep, stopBackend, table } from "./harness";
import { summarize, type Summary } from "./stats";

const api = anyApi;
const ASKED = 1_000;
/** Writes timed beside the greedy socket; a baseline without the limits takes seconds each, so it gets fewer. */
const WRITES = 200;
const BASELINE_WRITES = 20;
const TARGET_P99_MS = 100;

interface Result {
  granted: number;
  refused: number;
  writes: Summary;
  alone: Summary;
}

/** Times `count` task creations by `client`, one after another. */
async function timeWrites(client: ConvexClient, departmentId: string, count: number, label: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await client.mutation(api.tasks.create, { departmentId, title: `${label} ${i}` });
    times.push(performance.now() - started);
  }
  return times;
}

async function run(root: string, writeCount: number): Promise<Result> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-sockets-"));
  const backend = await spawnBackend({ dataDir, convexDir: path.join(root, "convex"), projectRoot: root });
  const clients: ConvexClient[] = [];
  try {
    const { departmentId, token } = await seedDemoSquad(backend, "BenchOwner");
    const open = () => {
      const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
      client.setAuth(async () => token);
      clients.push(client);
      return client;
    };
    const writer = open();
    // Warm up, and the figure without the greedy socket.
    await timeWrites(writer, departmentId, 20, "warm-up");
    const alone = await timeWrites(writer, departmentId, Math.min(100, writeCount), "alone");

    log(`${root}: the greedy socket asks for ${ASKED} subscriptions`);
    const greedy = open();
    let granted = 0;
    let refused = 0;
    // Each subscription answers once, with a value or a refusal; count them.
    const answered = new Set<number>();
    for (let i = 0; i < ASKED; i++) {
      greedy.onUpdate(
        api.tasks.list,
        { departmentId, tag: `bench-${i}` },
        () => {
          if (!answered.has(i)) granted += 1;
          answered.add(i);
        },
        () => {
          if (!answered.has(i)) refused += 1;
          answered.add(i);
        },
      );
    }
    const deadline = Date.now() + 120_000;
    while (answered.size < ASKED && Date.now() < deadline) await sleep(100);
    log(`${root}: ${granted} granted, ${refused} refused; timing ${writeCount} writes by a second client`);
    const writes = await timeWrites(writer, departmentId, writeCount, "beside the greedy socket");
    return { granted, refused, writes: summarize(writes), alone: summarize(alone) };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await stopBackend(backend);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const sides: Array<[string, string, number]> = [];
  const baseline = process.argv.indexOf("--baseline");
  if (baseline !== -1) {
    const root = process.argv[baseline + 1];
    if (root === undefined) throw new Error("--baseline needs the path of a checkout to compare with.");
    sides.push(["baseline", path.resolve(root), BASELINE_WRITES]);
  }
  sides.push(["this checkout", PROJECT_ROOT, WRITES]);
  const { head, row } = table(58);
  const lines = [`One greedy socket (${ASKED} tasks.list subscriptions asked) and a second client's tasks.create in the same department`, head];
  let mine: Result | null = null;
  for (const [name, root, writeCount] of sides) {
    const result = await run(root, writeCount);
    lines.push(row(`${name}: writes, no greedy socket`, result.alone));
    lines.push(row(`${name}: writes, greedy socket holding ${result.granted} (${result.refused} refused)`, result.writes));
    if (name === "this checkout") mine = result;
  }
  const p99 = mine!.writes.p99;
  lines.push(`second client's write p99 ${p99.toFixed(1)} ms, target < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? "met" : "NOT met"} (load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
  console.log(lines.join("\n"));
}

await main();
