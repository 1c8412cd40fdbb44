/**
 * A board column on the offline backend over the real convex/: its first
 * page reads that page's rows (its count comes from the column's counter),
 * not the whole column, however long the column is; a longer page reads
 * only as many more.
 */
import path from "node:path";
import type { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { TASK_STATUSES } from "../../convex/validators";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend } from "./helpers";

let backend: Awaited<ReturnType<typeof startTestBackend>>;
let member: ConvexHttpClient;
let departmentId: Id<"departments">;
/** Cards seeded, spread over the columns (seedScale.tasks). */
const SEEDED = 1_000;

beforeAll(async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  const squad = await seedDemoSquad(backend);
  member = squad.member;
  departmentId = squad.departmentId;
  for (let start = 0; start < SEEDED; start += 500) {
    await squad.admin.mutation(anyApi.seedScale.tasks, { departmentId, startIndex: start, count: 500, assignees: [] });
  }
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

/** Rows the backend read from its indexes while `read` ran. */
async function rowsRead<T>(read: () => Promise<T>): Promise<{ result: T; rows: number }> {
  const before = backend.engine.indexRowsRead;
  const result = await read();
  return { result, rows: backend.engine.indexRowsRead - before };
}

test("a column's first page reads about that page's rows, with the whole column's count", async () => {
  const inbox = await member.query(api.tasks.listColumn, { departmentId, status: "inbox" });
  expect(inbox.tasks.length, "a column several pages long").toBeGreaterThan(150);
  // What the sign-in and the department check read, beside the column's own rows.
  const { rows: overhead } = await rowsRead(() => member.query(api.departments.listMine, {}));
  for (const status of TASK_STATUSES) {
    const whole = await member.query(api.tasks.listColumn, { departmentId, status });
    const { result, rows } = await rowsRead(() => member.query(api.tasks.listColumn, { departmentId, status, limit: 20 }));
    expect(result.tasks).toEqual(whole.tasks.slice(0, 20));
    if (whole.tasks.length > 20) expect(result.count).toBe(whole.tasks.length);
    // 20 cards and the counter (the old read took up to 501 rows to count the column).
    expect(rows, status).toBeLessThanOrEqual(20 + overhead + 3);
  }
  const { rows: longer } = await rowsRead(() => member.query(api.tasks.listColumn, { departmentId, status: "inbox", limit: 70 }));
  expect(longer).toBeGreaterThanOrEqual(70);
  expect(longer).toBeLessThanOrEqual(70 + overhead + 3);
});

test("after a new card and a move, the first page still reads only its rows and counts right", async () => {
  const before = await member.query(api.tasks.listColumn, { departmentId, status: "review", limit: 10 });
  const taskId = await member.mutation(api.tasks.create, { departmentId, title: "Fresh card" });
  await member.mutation(api.tasks.move, { taskId, status: "review", position: 0 });
  const { result, rows } = await rowsRead(() => member.query(api.tasks.listColumn, { departmentId, status: "review", limit: 10 }));
  expect(result.tasks[0].title).toBe("Fresh card");
  expect(result.count).toBe((before.count ?? before.tasks.length) + 1);
  const { rows: overhead } = await rowsRead(() => member.query(api.departments.listMine, {}));
  expect(rows).toBeLessThanOrEqual(10 + overhead + 3);
});
