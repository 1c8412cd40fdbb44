import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, expect, test } from "vitest";
import type { DocumentChange } from "../../tools/local-backend/readSets";
import { scanLogFile } from "../../tools/local-backend/storage";
import { FIXTURE_CONVEX_DIR, startTestBackend, tempDataDir, waitFor } from "./helpers";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test("a scheduled mutation's write reaches a subscriber", async () => {
  const backend = await startTestBackend();
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  const seen: Array<Array<{ body: string }>> = [];
  client.onUpdate(anyApi.notes.list, { channel: "later" }, (v: Array<{ body: string }>) => seen.push(v));
  await waitFor(() => seen.length === 1);
  await client.mutation(anyApi.notes.addLater, { channel: "later", body: "scheduled", delayMs: 200 });
  expect(seen.at(-1)).toEqual([]);
  await waitFor(() => seen.at(-1)?.length === 1, 10_000, "scheduled write pushed");
  expect(seen.at(-1)![0].body).toBe("scheduled");
});

type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;

/** A backend whose commits are kept, each as its list of changes. */
async function recordingBackend() {
  const backend = await startTestBackend();
  cleanups.push(() => backend.stop());
  const commits: DocumentChange[][] = [];
  const notify = backend.engine.onCommit;
  backend.engine.onCommit = (changes, ts) => {
    commits.push(changes);
    notify(changes, ts);
  };
  return { backend, commits, http: new ConvexHttpClient(backend.url) };
}

function findJob(backend: TestBackend, jobId: string): Record<string, unknown> | undefined {
  return backend.engine.documents("", "_scheduled_functions").find((doc) => doc._id === jobId);
}

function jobDocument(backend: TestBackend, jobId: string): Record<string, unknown> {
  const job = findJob(backend, jobId);
  if (job === undefined) throw new Error(`no job ${jobId}`);
  return job;
}

function jobState(backend: TestBackend, jobId: string): string | undefined {
  return (findJob(backend, jobId)?.state as { kind: string } | undefined)?.kind;
}

/** The job's state after each commit that wrote it, with the other tables that commit wrote. */
function jobCommits(commits: DocumentChange[][], jobId: string) {
  return commits
    .filter((changes) => changes.some((change) => change.id === jobId))
    .map((changes) => ({
      state: (changes.find((change) => change.id === jobId)!.after!.state as { kind: string }).kind,
      tables: [...new Set(changes.filter((change) => change.id !== jobId).map((change) => change.table))].sort(),
    }));
}

test("a scheduled mutation's writes and its job's success are one commit and one log record", async () => {
  const { backend, commits, http } = await recordingBackend();
  const jobId = (await http.mutation(anyApi.notes.addLater, { channel: "one", body: "once", delayMs: 0 })) as string;
  await waitFor(() => jobState(backend, jobId) === "success", 10_000, "the job's success");
  expect(await http.query(anyApi.notes.list, { channel: "one" })).toMatchObject([{ body: "once" }]);
  expect(jobDocument(backend, jobId).completedTime).toEqual(expect.any(Number));
  // No inProgress commit of its own: scheduled (with the call that scheduled it), then run and marked in one.
  expect(jobCommits(commits, jobId)).toEqual([
    { state: "pending", tables: [] },
    { state: "success", tables: ["notes"] },
  ]);
  const records: Array<Array<[string, Record<string, unknown> | null]>> = [];
  scanLogFile(path.join(backend.dataDir, "wal.jsonl"), (entry) => {
    if (entry.type === "commit" && entry.writes.some(([id]) => id === jobId)) records.push(entry.writes as never);
  });
  expect(records).toHaveLength(2);
  const ran = records[1].map(([, doc]) => doc);
  expect(ran).toHaveLength(2);
  expect(ran).toEqual(expect.arrayContaining([expect.objectContaining({ body: "once" }), expect.objectContaining({ state: { kind: "success" } })]));
});

test("a scheduled mutation canceled before it runs writes nothing", async () => {
  const { backend, commits, http } = await recordingBackend();
  const jobId = (await http.mutation(anyApi.notes.addLater, { channel: "canceled", body: "never", delayMs: 300 })) as string;
  await http.mutation(anyApi.notes.cancelLater, { id: jobId });
  // A job due after it has run once this one's time is past.
  const laterId = (await http.mutation(anyApi.notes.addLater, { channel: "after", body: "ran", delayMs: 400 })) as string;
  await waitFor(() => jobState(backend, laterId) === "success", 10_000, "the later job");
  expect(await http.query(anyApi.notes.list, { channel: "canceled" })).toEqual([]);
  expect(jobCommits(commits, jobId).map((commit) => commit.state)).toEqual(["pending", "canceled"]);
});

test("a scheduled mutation that throws leaves none of its writes and its job failed", async () => {
  const { backend, commits, http } = await recordingBackend();
  const jobId = (await http.mutation(anyApi.notes.addThenFailLater, { channel: "thrown", body: "undone", delayMs: 0 })) as string;
  await waitFor(() => jobState(backend, jobId) === "failed", 10_000, "the job's failure");
  expect(await http.query(anyApi.notes.list, { channel: "thrown" })).toEqual([]);
  expect(jobCommits(commits, jobId)).toEqual([
    { state: "pending", tables: [] },
    { state: "failed", tables: [] },
  ]);
  expect((jobDocument(backend, jobId).state as { error: string }).error).toContain("failed after writing");
});

test("a scheduled mutation whose return value its validator refuses commits none of its writes, and its job fails with the error", async () => {
  const { backend, commits, http } = await recordingBackend();
  const jobId = (await http.mutation(anyApi.notes.callBadReturn, { channel: "bad-return", how: "scheduled" })) as string;
  await waitFor(() => jobState(backend, jobId) === "failed", 10_000, "the job's failure");
  expect(await http.query(anyApi.notes.list, { channel: "bad-return" })).toEqual([]);
  expect(jobCommits(commits, jobId)).toEqual([
    { state: "pending", tables: [] },
    { state: "failed", tables: [] },
  ]);
  const job = jobDocument(backend, jobId);
  expect((job.state as { error: string }).error).toContain('Return value validation failed for mutation "notes:addWithBadReturn"');
  expect(job.completedTime).toEqual(expect.any(Number));
});

test("a scheduled action's job is inProgress while it runs, its mutations commit on their own, and it ends in success", async () => {
  const { backend, commits, http } = await recordingBackend();
  const jobId = (await http.mutation(anyApi.ticks.burstLater, { source: "action", count: 3 })) as string;
  await waitFor(() => jobState(backend, jobId) === "success", 10_000, "the action's success");
  expect(jobDocument(backend, jobId).completedTime).toEqual(expect.any(Number));
  expect(jobCommits(commits, jobId)).toEqual([
    { state: "pending", tables: [] },
    { state: "inProgress", tables: [] },
    { state: "success", tables: [] },
  ]);
  // Its three mutations committed between inProgress and success.
  const started = commits.findIndex((changes) => changes.some((change) => change.id === jobId && (change.after!.state as { kind: string }).kind === "inProgress"));
  const ended = commits.findIndex((changes) => changes.some((change) => change.id === jobId && (change.after!.state as { kind: string }).kind === "success"));
  const ticks = commits.flatMap((changes, i) => (changes.some((change) => change.table === "ticks" && change.after?.source === "action") ? [i] : []));
  expect(ticks).toHaveLength(3);
  for (const i of ticks) expect(i > started && i < ended).toBe(true);
});

test("a job scheduled to run now starts after its commit's update was sent, also when a timer would have run first", async () => {
  const { backend } = await recordingBackend();
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  const seen: string[][] = [];
  client.onUpdate(anyApi.notes.list, { channel: "soon" }, (notes: Array<{ body: string }>) => seen.push(notes.map((note) => note.body)));
  await waitFor(() => seen.length === 1);
  // The commit lands where a busy action's does: in a setImmediate callback (the loop's check phase), with more
  // than a millisecond of work after it. A 1 ms timer armed by the mutation then fired before the commit's flush.
  const notify = backend.engine.onCommit;
  backend.engine.onCommit = (changes, ts) => {
    notify(changes, ts);
    if (!changes.some((change) => change.table === "notes" && (change.after as { body?: string } | null)?.body === "first")) return;
    const until = performance.now() + 3;
    while (performance.now() < until);
  };
  try {
    await new Promise<void>((resolve, reject) =>
      setImmediate(() => void backend.engine.runMutation("notes:addThenSoon", { channel: "soon", body: "first", soon: "second" }, { kind: "admin" }).then(() => resolve(), reject)),
    );
    await waitFor(() => seen.at(-1)?.length === 2, 10_000, "both notes");
  } finally {
    backend.engine.onCommit = notify;
  }
  // The subscriber heard of the first commit on its own, before the job it scheduled ran.
  expect(seen).toEqual([[], ["first"], ["first", "second"]]);
});

test("crons from convex/crons.ts run on their own and their writes reach a subscriber", async () => {
  const backend = await startTestBackend();
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  const counts: number[] = [];
  client.onUpdate(anyApi.ticks.count, { source: "cron" }, (n: number) => counts.push(n));
  await waitFor(() => (counts.at(-1) ?? 0) >= 2, 10_000, "two cron runs");
});

test("a scheduled function pending at shutdown runs after a restart", async () => {
  const dataDir = tempDataDir();
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestBackend({ dataDir });
  await new ConvexHttpClient(first.url).mutation(anyApi.notes.addLater, { channel: "resume", body: "survived", delayMs: 1_500 });
  await first.stop();
  const second = await startTestBackend({ dataDir });
  cleanups.push(() => second.stop());
  const http = new ConvexHttpClient(second.url);
  await waitFor(async () => ((await http.query(anyApi.notes.list, { channel: "resume" })) as unknown[]).length === 1, 10_000, "resumed job");
});

test("an older backend's data with jobs caught inProgress: the mutation is run, the action marked failed", async () => {
  const dataDir = tempDataDir();
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestBackend({ dataDir });
  const http = new ConvexHttpClient(first.url);
  const mutationJob = (await http.mutation(anyApi.notes.addLater, { channel: "old", body: "retried", delayMs: 60_000 })) as string;
  const actionJob = (await http.mutation(anyApi.ticks.burstLater, { source: "old", count: 1, delayMs: 60_000 })) as string;
  const jobs = first.engine.documents("", "_scheduled_functions").filter((job) => job._id === mutationJob || job._id === actionJob);
  // The log as a kill -9 leaves it, plus the record an older backend committed as each job started (a bare line, from before checksums).
  const oldData = tempDataDir();
  cleanups.push(() => rmSync(oldData, { recursive: true, force: true }));
  cpSync(dataDir, oldData, { recursive: true });
  await first.stop();
  const log = path.join(oldData, "wal.jsonl");
  const last = JSON.parse(readFileSync(log, "utf8").trim().split("\n").at(-1)!) as { rec: { nextDocId: number } };
  const started = jobs.map((job) => [job._id, { ...job, scheduledTime: Date.now(), state: { kind: "inProgress" } }]);
  appendFileSync(log, JSON.stringify({ type: "commit", ts: (BigInt(Date.now()) * 1_000_000n).toString(), nextDocId: last.rec.nextDocId, writes: started }) + "\n");

  const second = await startTestBackend({ dataDir: oldData });
  cleanups.push(() => second.stop());
  await waitFor(() => jobState(second, mutationJob) === "success", 10_000, "the retried mutation");
  expect(jobState(second, actionJob)).toBe("failed");
  const again = new ConvexHttpClient(second.url);
  expect(await again.query(anyApi.notes.list, { channel: "old" })).toMatchObject([{ body: "retried" }]);
  expect(await again.query(anyApi.ticks.count, { source: "old" })).toBe(0);
});

test("edited functions are reloaded and subscriptions re-run; a schema existing data breaks is refused", async () => {
  const convexDir = path.join(mkdtempSync(path.join(tmpdir(), "maestro-reload-")), "convex");
  cpSync(FIXTURE_CONVEX_DIR, convexDir, { recursive: true });
  cleanups.push(() => rmSync(path.dirname(convexDir), { recursive: true, force: true }));
  const logs: string[] = [];
  const backend = await startTestBackend({ convexDir, watch: true, log: (line) => logs.push(line) });
  cleanups.push(() => backend.stop());
  const client = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  cleanups.push(() => client.close());
  await client.mutation(anyApi.notes.add, { channel: "reload", body: "x" });
  const seen: unknown[] = [];
  client.onUpdate(anyApi.notes.countAll, {}, (v: unknown) => seen.push(v));
  await waitFor(() => seen.length === 1);

  const notesFile = path.join(convexDir, "notes.ts");
  const original = readFileSync(notesFile, "utf8");
  writeFileSync(notesFile, original.replace("(await ctx.db.query(\"notes\").collect()).length", "`count=${(await ctx.db.query(\"notes\").collect()).length}`"));
  await waitFor(() => seen.at(-1) === "count=1", 15_000, "reloaded query result");

  const schemaFile = path.join(convexDir, "schema.ts");
  writeFileSync(schemaFile, readFileSync(schemaFile, "utf8").replace("body: v.string()", "body: v.number()"));
  await waitFor(() => logs.some((l) => l.includes("Schema validation failed")), 15_000, "schema refusal");
  // The old schema stays in force: a string body is still accepted.
  await client.mutation(anyApi.notes.add, { channel: "reload", body: "still a string" });
});

test("finished jobs' rows are kept for the retention after they complete (Convex: 7 days), then deleted for good; a pending job's row stays", { timeout: 60_000 }, async () => {
  const retentionMs = 2_000;
  const dataDir = tempDataDir();
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const backend = await startTestBackend({ dataDir, scheduledJobRetentionMs: retentionMs });
  const http = new ConvexHttpClient(backend.url);
  const succeeded = (await http.mutation(anyApi.notes.addLater, { channel: "gc", body: "ran", delayMs: 0 })) as string;
  const failed = (await http.mutation(anyApi.notes.addThenFailLater, { channel: "gc", body: "undone", delayMs: 0 })) as string;
  const canceled = (await http.mutation(anyApi.notes.addLater, { channel: "gc", body: "never", delayMs: 60_000 })) as string;
  await http.mutation(anyApi.notes.cancelLater, { id: canceled });
  const pending = (await http.mutation(anyApi.notes.addLater, { channel: "gc", body: "later", delayMs: 600_000 })) as string;
  await waitFor(() => jobState(backend, succeeded) === "success" && jobState(backend, failed) === "failed", 10_000, "the jobs to finish");
  // Every finished job carries when it completed, a canceled one too, as on Convex.
  for (const id of [succeeded, failed, canceled]) expect(jobDocument(backend, id).completedTime).toEqual(expect.any(Number));
  const finishedAt = Date.now();
  // Kept through the retention: a caller may still read how its job ended.
  await new Promise((resolve) => setTimeout(resolve, retentionMs / 2));
  expect([succeeded, failed, canceled, pending].map((id) => jobState(backend, id))).toEqual(["success", "failed", "canceled", "pending"]);
  await waitFor(() => [succeeded, failed, canceled].every((id) => findJob(backend, id) === undefined), 15_000, "the finished jobs' rows to go");
  expect(Date.now() - finishedAt).toBeGreaterThanOrEqual(retentionMs - 100);
  expect(jobState(backend, pending)).toBe("pending");
  expect(backend.engine.prunedScheduledJobs).toBe(3);
  await backend.stop();

  // The deletes were commits like any other: a restart does not bring the rows back.
  const again = await startTestBackend({ dataDir });
  cleanups.push(() => again.stop());
  expect(again.engine.documents("", "_scheduled_functions").map((job) => job._id)).toEqual([pending]);
});
