/**
 * File writes from actions and HTTP actions that arrive at the same moment
 * as each other and as other functions' transactions: each is answered and
 * each file is stored, with its own bytes. An action's storage write used to
 * join whatever transaction another call had open (or fail with "Write
 * outside of transaction" when that one ended first): one of two uploads
 * sent at once got a 500 without CORS headers, which a browser reports as a
 * CORS error.
 */
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { PROJECT_ROOT, seedDemoSquad } from "./helpers";
import { spawnedBackends, startedBackends } from "./lifecycle";

const files = anyApi.files;
const backend = startedBackends();
const processes = spawnedBackends();

/** The bytes the backend keeps for `storageId`, as text; null when no committed row or blob names it. */
function storedText(b: Awaited<ReturnType<typeof backend>>, storageId: string): string | null {
  const bytes = b.engine.storedFile(storageId) === null ? null : b.engine.files.read(storageId);
  return bytes === null ? null : bytes.toString("utf8");
}

test("HTTP actions and actions storing files at once, among mutations: every call answered, every file stored with its bytes", async () => {
  const b = await backend();
  const client = new ConvexHttpClient(b.url);
  const N = 12;
  const bodies = Array.from({ length: N }, (_, i) => `file ${i} `.repeat(2_000 + i));
  const [viaHttpAction, viaAction] = await Promise.all([
    Promise.all(
      bodies.map(async (body) => {
        const response = await fetch(`${b.siteUrl}/store`, { method: "POST", headers: { "Content-Type": "text/plain" }, body });
        return { status: response.status, storageId: ((await response.json()) as { storageId?: string }).storageId };
      }),
    ),
    Promise.all(bodies.map(async (text) => (await client.action(files.storeText, { text, contentType: "text/plain" })) as string)),
    // Other transactions open and close meanwhile.
    Promise.all(bodies.map(() => client.mutation(files.generateUploadUrl, {}))),
  ]);
  expect(viaHttpAction.map((r) => r.status)).toEqual(bodies.map(() => 200));
  const ids = [...viaHttpAction.map((r) => r.storageId!), ...viaAction];
  expect(new Set(ids).size).toBe(2 * N);
  expect(ids.map((id) => storedText(b, id))).toEqual([...bodies, ...bodies]);
});

test("five files uploaded to /api/upload at once: five answers the app may read, five stored files, all added to the channel", async () => {
  const b = await backend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  const { member, departmentId } = await seedDemoSquad(b);
  const channelId = await member.mutation(api.channels.create, { departmentId, name: "files", visibility: "project" });
  // The app's origin, as the browser sends it (the route answers it with CORS headers).
  const origin = process.env.SITE_URL!;
  const N = 5;
  const bodies = Array.from({ length: N }, (_, i) => `notes ${i}\n`.repeat(100_000 + i));
  const urls = await Promise.all(bodies.map(() => member.mutation(api.channelMessages.generateUploadUrl, { channelId })));
  const answers = await Promise.all(
    urls.map(async (url, i) => {
      const response = await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain", Origin: origin }, body: bodies[i] });
      return { status: response.status, allowOrigin: response.headers.get("Access-Control-Allow-Origin"), body: (await response.json()) as { storageId?: Id<"_storage"> } };
    }),
  );
  expect(answers.map((a) => [a.status, a.allowOrigin])).toEqual(bodies.map(() => [200, origin]));
  const ids = answers.map((a) => a.body.storageId!);
  expect(new Set(ids).size).toBe(N);
  expect(ids.map((id) => storedText(b, id))).toEqual(bodies);
  // The app then adds them to the conversation, also at once.
  const artifacts = await Promise.all(ids.map((storageId, i) => member.action(api.channelFiles.add, { channelId, storageId, name: `notes-${i}.txt` })));
  expect(artifacts.map((a) => a.name)).toEqual(bodies.map((_, i) => `notes-${i}.txt`));
});

test("20 files sent at once to a backend in its own process, 20 to upload URLs and 20 to an HTTP action: 40 answers, 40 files, each with its bytes", async () => {
  // Its own process, as a browser meets it: the uploads' bodies arrive while other requests' run, not between this test's awaits.
  const b = await processes.spawn({ dataDir: processes.dataDir() });
  const client = new ConvexHttpClient(b.url);
  const N = 20;
  const bodies = Array.from({ length: N }, (_, i) => `upload ${i} `.repeat(20_000 + 97 * i));
  const urls = (await Promise.all(bodies.map(() => client.mutation(files.generateUploadUrl, {})))) as string[];
  const send = async (url: string, body: string) => {
    const response = await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body });
    const text = await response.text();
    return { status: response.status, storageId: response.ok ? (JSON.parse(text) as { storageId: string }).storageId : text };
  };
  const [viaUrl, viaHttpAction] = await Promise.all([
    Promise.all(urls.map((url, i) => send(url, bodies[i]))),
    Promise.all(bodies.map((body) => send(`${b.siteUrl}/store`, body))),
  ]);
  expect([...viaUrl, ...viaHttpAction].map((answer) => answer.status)).toEqual([...bodies, ...bodies].map(() => 200));
  const ids = [...viaUrl, ...viaHttpAction].map((answer) => answer.storageId);
  expect(new Set(ids).size).toBe(2 * N);
  // Every file is there, through the URL the app would be handed for it.
  const served = await Promise.all(
    ids.map(async (storageId) => {
      const url = (await client.query(files.url, { storageId })) as string | null;
      return url === null ? null : await (await fetch(url)).text();
    }),
  );
  expect(served).toEqual([...bodies, ...bodies]);
});
