// TEMPORARY probe (deleted after use): time series of update latency, server GC trace.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi as api } from "convex/server";
import { spawnBackend, stopGracefully } from "../tests/backend/process";

const K = Number(process.env.K ?? 20);
const DOCS = Number(process.env.DOCS ?? 10000);
const M = Number(process.env.M ?? 300);
const serverOpts = process.env.SERVER_NODE_OPTIONS;
const clientGc: Array<{ at: number; ms: number }> = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) clientGc.push({ at: e.startTime, ms: e.duration }); }).observe({ entryTypes: ["gc"] });

const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-bench-probe-"));
if (serverOpts) process.env.NODE_OPTIONS = serverOpts;
const b = await spawnBackend({ dataDir });
delete process.env.NODE_OPTIONS;
const clients: ConvexClient[] = [];
try {
  const http = new ConvexHttpClient(b.url, { logger: false });
  (http as unknown as { setAdminAuth(k: string): void }).setAdminAuth(b.adminKey);
  await http.mutation(api.bench.seedBulk, { channel: "bench", count: 20, startIndex: 0 });
  for (let i = 20, c = 0; i < DOCS; i += 100, c++) await http.mutation(api.bench.seedBulk, { channel: `o${c}`, count: Math.min(100, DOCS - i), startIndex: i });
  const latest: unknown[][] = [];
  let target = ""; let remaining = 0; let seenAll: (() => void) | null = null; const seen: number[] = [];
  for (let i = 0; i < K; i++) {
    const c = new ConvexClient(b.url, { unsavedChangesWarning: false, logger: false }); clients.push(c);
    c.onUpdate(api.notes.list, { channel: "bench" }, (v: Array<{ body: string }>) => {
      latest[i] = v;
      if (target !== "" && seen[i] === 0 && v.some((n) => n.body === target)) { seen[i] = performance.now(); if (--remaining === 0) seenAll?.(); }
    });
  }
  while (latest.filter(Boolean).length < K) await new Promise((r) => setTimeout(r, 20));
  const writer = new ConvexClient(b.url, { unsavedChangesWarning: false, logger: false }); clients.push(writer);
  const t0 = performance.now();
  const rows: string[] = [];
  for (let i = 0; i < M; i++) {
    target = `p${i}`; remaining = K; seen.fill(0, 0, K); seen.length = K; for (let j = 0; j < K; j++) seen[j] = 0;
    const done = new Promise<void>((r) => { seenAll = r; });
    const start = performance.now();
    let ack = 0;
    const id = await writer.mutation(api.notes.add, { channel: "bench", body: target }).then((x: string) => { ack = performance.now(); return x; });
    await done;
    const first = Math.min(...seen), last = Math.max(...seen);
    rows.push(`${(start - t0).toFixed(0)}\t${(ack - start).toFixed(1)}\t${(first - start).toFixed(1)}\t${(last - start).toFixed(1)}`);
    target = "";
    await writer.mutation(api.bench.remove, { id });
    if (process.env.SLEEP !== "0") await new Promise((r) => setTimeout(r, 5));
  }
  console.log("t_ms\tack\tfirst\tlast");
  console.log(rows.join("\n"));
  console.log("client GC > 5ms:", clientGc.filter((g) => g.ms > 5).map((g) => `${(g.at - t0).toFixed(0)}:${g.ms.toFixed(1)}`).join(" "));
} finally {
  await Promise.allSettled(clients.map((c) => c.close()));
  await stopGracefully(b);
  console.log("SERVER OUTPUT GC lines:\n" + b.output.join("").split("\n").filter((l) => /Mark|Scavenge|ms: /.test(l)).slice(-400).join("\n"));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
