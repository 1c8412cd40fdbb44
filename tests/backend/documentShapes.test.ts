/**
 * The backend keeps every document in memory for weeks: one written at run
 * time must cost what the same document loaded from disk costs. V8 gave
 * most documents convex-test's insert built (`{ ...value, _id,
 * _creationTime }`) a hidden class of their own, ~440 bytes each, kept with
 * the document (documentShapes.ts).
 */
import v8 from "node:v8";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { expect, test } from "vitest";
import { DocumentShapes } from "../../tools/local-backend/documentShapes";
import { startedBackends } from "./lifecycle";
import { tempDataDir } from "./helpers";

v8.setFlagsFromString("--allow-natives-syntax");
// Whether two objects have the same hidden class (V8's map): what a shared shape is.
const sameShape = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

const backend = startedBackends();

/** The app's committed documents of `table`, oldest first. */
function committedDocuments(engine: unknown, table: string): Array<Record<string, unknown>> {
  const documents = (engine as { components: { root: { db: { _documents: Record<string, Record<string, unknown>> } } } }).components.root.db._documents;
  return Object.values(documents)
    .filter((doc) => String(doc._id).endsWith(table))
    .sort((a, b) => (a._creationTime as number) - (b._creationTime as number));
}

test("documents written after a restart share one shape per key list, inserted or patched", async () => {
  const dataDir = tempDataDir();
  const first = await backend({ dataDir });
  const client = new ConvexHttpClient(first.url);
  for (let i = 0; i < 20; i++) await client.mutation(anyApi.notes.add, { channel: "soak", body: `note ${i}` });
  await client.mutation(anyApi.ranked.seed, { docs: [1, 2, 3, 4].map((n) => ({ group: "g", n, tag: "old" })) });
  await first.stop();

  const second = await backend({ dataDir });
  const again = new ConvexHttpClient(second.url);
  for (let i = 0; i < 6; i++) await again.mutation(anyApi.notes.add, { channel: "soak", body: `after restart ${i}` });
  const notes = committedDocuments(second.engine, "notes");
  const written = notes.slice(-6);
  expect(written.map((note) => note.body)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `after restart ${i}`));
  for (const note of written.slice(1)) expect(sameShape(written[0], note)).toBe(true);

  for (const doc of committedDocuments(second.engine, "ranked")) await again.mutation(anyApi.ranked.patchThenRead, { id: doc._id, tag: "new" });
  const patched = committedDocuments(second.engine, "ranked");
  expect(patched.map((doc) => doc.tag)).toEqual(["new", "new", "new", "new"]);
  for (const doc of patched.slice(1)) expect(sameShape(patched[0], doc)).toBe(true);
});

test("settle keeps every field and value, and shares a short string with the version it replaces or the document it names", () => {
  const shapes = new DocumentShapes();
  const department = { _id: "000000000000000010000departments", _creationTime: 1, name: "Launch" };
  const committed = (id: string) => (id === department._id ? department : undefined);
  const previous = { _id: "000000000000000000000000042tasks", _creationTime: 2, status: "inbox", title: "Ship it", departmentId: department._id };
  // Copies made as a function's write arrives: equal strings, other objects.
  const write = JSON.parse(JSON.stringify({ ...previous, status: "in_progress", tags: ["a"], "a \"quoted\" field": 1 }));
  const kept = shapes.settle(write, previous, committed);
  expect(kept).toEqual(write);
  expect(Object.keys(kept)).toEqual(Object.keys(write));
  expect(kept).not.toBe(write);
  const another = shapes.settle(JSON.parse(JSON.stringify(write)), kept, committed);
  expect(sameShape(kept, another)).toBe(true);
  // A document whose fields include "__proto__" is kept as it came (a literal would set its prototype instead).
  const odd = JSON.parse('{"_id":"x","__proto__":"data"}');
  expect(shapes.settle(odd, null, committed)).toBe(odd);
  expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
});
