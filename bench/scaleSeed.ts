/**
 * The department `npm run bench:scale` and `npm run bench:restart` measure:
 * at BENCH_SCALE=1, 200 agents, 20,000 tasks, 200,000 task-thread messages,
 * 100,000 channel messages and 20,000 finished runs with their events.
 * Agents are created through agents.create; the rest through the documented
 * bulk path (convex/seedScale.ts: the same records, checks and secret scan
 * as the public functions, 500 rows a transaction).
 */
import { anyApi } from "convex/server";
import type { JSONValue } from "convex/values";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import { seedDemoSquad } from "../tests/backend/helpers";
import type { BackendProcess } from "../tests/backend/process";
import { tableOf } from "../tools/local-backend/componentState";
import { DurableStore, type StoredDocument } from "../tools/local-backend/storage";
import { inParallel, log, seedAgents } from "./harness";

export const AGENTS = 200;
export const MESSAGES_PER_TASK = 10;
/** Rows per bulk call (convex/seedScale.ts MAX_SEED_BATCH). */
const BATCH = 500;
/** Bulk calls in flight at once. */
const SEEDERS = 2;

/** How many rows of each kind `scale` (1 = the full size) seeds. */
export function scaleSizes(scale: number) {
  return { tasks: Math.round(20_000 * scale), channelMessages: Math.round(100_000 * scale), runs: Math.round(20_000 * scale) };
}

/** Documents the seeded department holds, about (tasks, thread messages, channel messages, runs with 5 events and an agent_start row each). */
export function seededDocuments(scale: number): number {
  const { tasks, channelMessages, runs } = scaleSizes(scale);
  return tasks * (1 + MESSAGES_PER_TASK) + channelMessages + runs * 7;
}

/** Seeds the demo squad (its owner signed up as "BenchAdmin") and the department at `scale` on `backend`. */
export async function seedScaleDepartment(backend: BackendProcess, scale: number) {
  const { tasks: TASKS, channelMessages: CHANNEL_MESSAGES, runs: RUNS } = scaleSizes(scale);
  const { admin, member: http, departmentId, email } = await seedDemoSquad(backend, "BenchAdmin");
  const seedStart = performance.now();
  log(`seeding ${AGENTS} agents`);
  await seedAgents(http, departmentId, AGENTS, "You are careful and brief.");
  const agents = await http.query(api.agents.list, { departmentId });
  const specialists = agents.filter((a) => !a.isSquadLead).map((a) => a.sessionKey);

  log(`seeding ${TASKS} tasks`);
  const taskIds: Array<Id<"tasks">> = [];
  await inParallel(TASKS / BATCH, SEEDERS, async (b) => {
    const ids = (await admin.mutation(anyApi.seedScale.tasks, { departmentId, startIndex: b * BATCH, count: BATCH, assignees: specialists })) as Array<Id<"tasks">>;
    taskIds.push(...ids);
  });
  log(`seeding ${TASKS * MESSAGES_PER_TASK} thread messages`);
  const tasksPerCall = BATCH / MESSAGES_PER_TASK;
  await inParallel(Math.ceil(taskIds.length / tasksPerCall), SEEDERS, async (b) => {
    await admin.mutation(anyApi.seedScale.messages, { taskIds: taskIds.slice(b * tasksPerCall, (b + 1) * tasksPerCall), perTask: MESSAGES_PER_TASK, startIndex: 0 });
  });
  log(`seeding ${CHANNEL_MESSAGES} channel messages`);
  const channelId = await http.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
  const me = (await http.query(api.users.me, {})) as { _id: string; name?: string } | null;
  await inParallel(CHANNEL_MESSAGES / BATCH, SEEDERS, async (b) => {
    await admin.mutation(anyApi.seedScale.channelMessages, {
      channelId,
      senderKey: `member:${me?._id}`,
      senderName: "BenchAdmin",
      count: BATCH,
      startIndex: b * BATCH,
    });
  });
  log(`seeding ${RUNS} runs with their events`);
  const pairsPerCall = BATCH / 5;
  await inParallel(RUNS / pairsPerCall, SEEDERS, async (b) => {
    const pairs = Array.from({ length: pairsPerCall }, (_, i) => {
      const n = b * pairsPerCall + i;
      return { agentId: agents[n % agents.length]._id, taskId: taskIds[n % taskIds.length] };
    });
    await admin.mutation(anyApi.seedScale.runs, { pairs });
  });
  const seedSeconds = (performance.now() - seedStart) / 1000;
  return { admin, http, departmentId, email, agents, taskIds, seedSeconds };
}

/**
 * Multiplies a seeded department's bulk rows `factor` times, straight in its
 * data folder (the backend stopped): each copy of the rows of `tables` gets
 * fresh ids, and every field naming a copied row names its copy, so a copied
 * message belongs to its copied task and a copied event to its copied run.
 * The folder then holds `factor` times the rows in the same shapes, and is
 * folded into one snapshot by the storage's own compaction. For when seeding
 * everything through convex/seedScale.ts would take hours (a busy machine
 * writes a 500-row batch in tens of seconds); bench:restart says which it did.
 */
export async function amplifyDataDir(dataDir: string, factor: number, tables: readonly string[]): Promise<{ before: number; after: number }> {
  const store = new DurableStore(dataDir, { compactLogBytes: 1 });
  const state = store.open();
  const before = state.documents.size;
  const copied = [...state.documents.values()].filter((doc) => !("_component" in doc) && tables.includes(tableOf(doc._id)));
  for (let copy = 1; copy < factor; copy++) {
    const ids = new Map<string, string>();
    for (const doc of copied) ids.set(doc._id, `${state.nextDocId++}${tableOf(doc._id)}`);
    const rename = (value: JSONValue): JSONValue => {
      if (typeof value === "string") return ids.get(value) ?? value;
      if (Array.isArray(value)) return value.map(rename);
      if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, rename(field)]));
      return value;
    };
    for (const doc of copied) {
      const twin = rename(doc) as StoredDocument;
      state.documents.set(twin._id, twin);
    }
  }
  await store.compactInBackground({
    *chunks() {
      let chunk: StoredDocument[] = [];
      for (const doc of state.documents.values()) {
        chunk.push(doc);
        if (chunk.length === 1_000) {
          yield chunk;
          chunk = [];
        }
      }
      yield chunk;
    },
    trailer: () => ({ ts: state.ts, nextDocId: state.nextDocId, mutationResults: state.mutationResults }),
  });
  store.close();
  if (store.compactions !== 1) throw new Error(`Folding the copies into ${dataDir}'s snapshot failed.`);
  return { before, after: state.documents.size };
}
