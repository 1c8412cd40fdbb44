import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { expect, test } from "vitest";
import { FileStore } from "../../tools/local-backend/fileStorage";
import { waitFor } from "./helpers";
import { spawnedBackends, startedBackends } from "./lifecycle";
import { killHard, stopGracefully } from "./process";

const files = anyApi.files;
const processes = spawnedBackends();
const backend = startedBackends();

async function upload(client: ConvexHttpClient, body: string | Uint8Array<ArrayBuffer>, contentType: string): Promise<{ status: number; storageId?: string; url: string }> {
  const url = (await client.mutation(files.generateUploadUrl, {})) as string;
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": contentType }, body });
  const json = (await response.json()) as { storageId?: string };
  return { status: response.status, storageId: json.storageId, url };
}

test("storage ids are random, as Convex's are: the next upload's id cannot be guessed from the last", async () => {
  const b = await backend();
  const client = new ConvexHttpClient(b.url);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await upload(client, `file ${i}`, "text/plain")).storageId!);
  for (const id of ids) expect(id).toMatch(/^1[0-9]{30}_storage$/);
  const numbers = ids.map((id) => BigInt(id.replace("_storage", "")));
  // A counter would make them neighbours; random ones lie far apart.
  for (let i = 1; i < numbers.length; i++) {
    const gap = numbers[i] > numbers[i - 1] ? numbers[i] - numbers[i - 1] : numbers[i - 1] - numbers[i];
    expect(gap > 1_000_000n).toBe(true);
  }
  // Still read back, served and listed as any id.
  expect(await client.query(files.metadata, { storageId: ids[0] })).toMatchObject({ size: 6 });
});

test("an upload URL takes a file once; its metadata, URL and bytes are Convex's", async () => {
  const b = await backend();
  const client = new ConvexHttpClient(b.url);
  const first = await upload(client, "hello, file", "text/plain");
  expect(first.status).toBe(200);
  expect(first.url.startsWith(`${b.url}/api/storage/upload?token=`)).toBe(true);
  const storageId = first.storageId!;

  const sha256 = createHash("sha256").update("hello, file").digest("base64");
  expect(await client.query(files.metadata, { storageId })).toEqual({ size: 11, sha256, contentType: "text/plain" });
  expect(await client.query(files.legacyMetadata, { storageId })).toEqual({ storageId, size: 11, sha256, contentType: "text/plain" });

  const fileUrl = (await client.query(files.url, { storageId })) as string;
  expect(fileUrl.startsWith(`${b.url}/api/storage/${storageId}?token=`)).toBe(true);
  const served = await fetch(fileUrl);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("text/plain");
  expect(served.headers.get("x-content-type-options")).toBe("nosniff");
  expect(await served.text()).toBe("hello, file");

  // Single use: the same URL refuses a second body, and nothing more is stored.
  const again = await fetch(first.url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "second" });
  expect(again.status).toBe(403);
  expect(readdirSync(path.join(b.dataDir, "storage"))).toEqual([storageId]);

  // On disk: owner-only folder and file.
  expect(statSync(path.join(b.dataDir, "storage")).mode & 0o777).toBe(0o700);
  expect(statSync(path.join(b.dataDir, "storage", storageId)).mode & 0o777).toBe(0o600);
});

test("actions store and read blobs; delete removes the row, the URL and the file", async () => {
  const b = await backend();
  const client = new ConvexHttpClient(b.url);
  const storageId = (await client.action(files.storeText, { text: "# notes", contentType: "text/markdown" })) as string;
  expect(await client.action(files.readText, { storageId })).toEqual({ text: "# notes", type: "text/markdown" });
  const fileUrl = (await client.query(files.url, { storageId })) as string;
  expect((await fetch(fileUrl)).status).toBe(200);

  await client.mutation(files.remove, { storageId });
  expect(await client.query(files.url, { storageId })).toBeNull();
  expect(await client.query(files.metadata, { storageId })).toBeNull();
  expect(await client.action(files.readText, { storageId })).toBeNull();
  expect((await fetch(fileUrl)).status).toBe(404);
  await waitFor(() => !existsSync(path.join(b.dataDir, "storage", storageId)), 10_000, "the deleted blob to go");
});

test("over the size cap an upload gets 413 and stores nothing", async () => {
  const b = await backend({ maxUploadBytes: 1024 });
  const client = new ConvexHttpClient(b.url);
  const tooBig = await upload(client, new Uint8Array(4096).fill(7), "application/octet-stream");
  expect(tooBig.status).toBe(413);
  expect(readdirSync(path.join(b.dataDir, "storage"))).toEqual([]);
  const fits = await upload(client, new Uint8Array(1024).fill(7), "application/octet-stream");
  expect(fits.status).toBe(200);
});

test("only stored files are served: unknown ids, forged tokens and paths out of the folder get 404", async () => {
  const b = await backend();
  const client = new ConvexHttpClient(b.url);
  const { storageId } = await upload(client, "secret-free", "text/plain");
  const fileUrl = new URL((await client.query(files.url, { storageId: storageId! })) as string);
  const token = fileUrl.searchParams.get("token")!;
  const probes = [
    `/api/storage/99999_storage?token=${token}`,
    `/api/storage/${storageId}?token=forged`,
    `/api/storage/${storageId}`,
    `/api/storage/..%2Fwal.jsonl?token=${token}`,
    `/api/storage/..%2F..%2Fetc%2Fpasswd?token=${token}`,
    `/api/storage/storage-url-key?token=${token}`,
    `/api/storage/%2E%2E/snapshot.json?token=${token}`,
    `/api/storage/admin-key?token=${token}`,
  ];
  for (const probe of probes) {
    const response = await fetch(`${b.url}${probe}`);
    expect({ probe, status: response.status }).toEqual({ probe, status: 404 });
  }
  // A stored id whose row was never committed is not served either, even with a valid-looking file on disk.
  writeFileSync(path.join(b.dataDir, "storage", "88888_storage"), "planted");
  const planted = (await fetch(`${b.url}/api/storage/88888_storage?token=${token}`)).status;
  expect(planted).toBe(404);
});

test("files survive a restart and kill -9; orphans left by a crash are swept at start", async () => {
  const dataDir = processes.dataDir();
  const first = await processes.spawn({ dataDir });
  const client = new ConvexHttpClient(first.url);
  const acknowledged = new Map<string, string>();
  for (let i = 0; i < 5; i++) {
    const body = `file number ${i}`;
    const { status, storageId } = await upload(client, body, "text/plain");
    expect(status).toBe(200);
    acknowledged.set(storageId!, body);
  }
  await killHard(first);
  // What a crash between blob and log line leaves: a named blob without a row, and a temp file.
  writeFileSync(path.join(dataDir, "storage", "77777_storage"), "orphan");
  writeFileSync(path.join(dataDir, "storage", ".upload-deadbeef"), "half");

  const second = await processes.spawn({ dataDir });
  const again = new ConvexHttpClient(second.url);
  for (const [storageId, body] of acknowledged) {
    const url = (await again.query(files.url, { storageId })) as string;
    expect(await (await fetch(url)).text()).toBe(body);
  }
  expect(readdirSync(path.join(dataDir, "storage")).sort()).toEqual([...acknowledged.keys()].sort());
});

test("upload URLs expire, are single-use and signed; a new store on the same folder honours both", () => {
  const dataDir = processes.dataDir();
  let now = 1_000;
  const store = new FileStore({ dataDir, uploadTtlMs: 500, now: () => now });
  const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
  const fresh = tokenOf(store.newUploadUrl());
  const stale = tokenOf(store.newUploadUrl());
  const kept = tokenOf(store.newUploadUrl());
  expect(fresh).toMatch(/^1500\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}$/);
  expect(store.claimUpload(fresh)).toBe(true);
  expect(store.claimUpload(fresh)).toBe(false);
  // Forged: another expiry, another nonce, another signature, or none at all.
  const [, nonce, signature] = kept.split(".");
  expect(store.claimUpload(`999999.${nonce}.${signature}`)).toBe(false);
  expect(store.claimUpload(`1500.${"0".repeat(32)}.${signature}`)).toBe(false);
  expect(store.claimUpload(`1500.${nonce}.${"A".repeat(43)}`)).toBe(false);
  expect(store.claimUpload("never-issued")).toBe(false);

  // What a restart sees: the same folder, a new store. The used token stays used; the unused one works once.
  const restarted = new FileStore({ dataDir, uploadTtlMs: 500, now: () => now });
  expect(restarted.claimUpload(fresh)).toBe(false);
  expect(restarted.claimUpload(kept)).toBe(true);
  expect(restarted.claimUpload(kept)).toBe(false);
  expect(statSync(path.join(dataDir, "storage-upload-claims")).mode & 0o777).toBe(0o600);
  expect(statSync(path.join(dataDir, "storage-url-key")).mode & 0o777).toBe(0o600);

  now += 501;
  expect(restarted.claimUpload(stale)).toBe(false);
  // Expired claims are dropped from the file at the next start.
  new FileStore({ dataDir, uploadTtlMs: 500, now: () => now });
  expect(readFileSync(path.join(dataDir, "storage-upload-claims"), "utf8")).toBe("");
});

test("an upload URL issued before a restart works after it, once; one used before the restart stays used", async () => {
  const dataDir = processes.dataDir();
  const first = await processes.spawn({ dataDir });
  const client = new ConvexHttpClient(first.url);
  const pending = (await client.mutation(files.generateUploadUrl, {})) as string;
  const used = await upload(client, "before the restart", "text/plain");
  expect(used.status).toBe(200);
  await stopGracefully(first);

  // Same port, as a restarted `npm start` has: the URLs handed out before still point at it.
  const second = await processes.spawn({ dataDir, port: Number(new URL(first.url).port) });
  const post = (url: string, body: string) => fetch(url, { method: "POST", headers: { "Content-Type": "text/markdown" }, body });
  const after = await post(pending, "# after the restart");
  expect(after.status).toBe(200);
  const { storageId } = (await after.json()) as { storageId: string };
  const again = new ConvexHttpClient(second.url);
  const url = (await again.query(files.url, { storageId })) as string;
  expect(await (await fetch(url)).text()).toBe("# after the restart");
  expect((await post(pending, "twice")).status).toBe(403);
  expect((await post(used.url, "reused")).status).toBe(403);
});
