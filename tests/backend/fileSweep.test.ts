/**
 * The sweep of never-posted uploads (sweeps.unpostedFiles) on the real
 * offline backend: its walk over `_storage` by upload time and its deletes
 * reach the blobs on disk. The backend runs in this process, so moving
 * `Date` a day on moves its clock too.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { FILE_LIMITS } from "../../convex/lib/files";
import { PROJECT_ROOT, seedDemoSquad, startTestBackend, waitFor } from "./helpers";

let backend: Awaited<ReturnType<typeof startTestBackend>> | undefined;
afterAll(async () => {
  vi.useRealTimers();
  await backend?.stop();
});

async function upload(member: ConvexHttpClient, channelId: Id<"channels">, body: string): Promise<Id<"_storage">> {
  const url = await member.mutation(api.channelMessages.generateUploadUrl, { channelId });
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { storageId: Id<"_storage"> }).storageId;
}

test("a day on, uploads never posted are gone from disk; the posted file stays", async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  const { admin, member, departmentId } = await seedDemoSquad(backend);
  const channelId = await member.mutation(api.channels.create, { departmentId, name: "files", visibility: "project" });
  const neverAdded = await upload(member, channelId, "never added");
  const addedOnly = await upload(member, channelId, "added, never posted");
  await member.action(api.channelFiles.add, { channelId, storageId: addedOnly, name: "draft.txt" });
  const posted = await upload(member, channelId, "posted");
  const artifact = await member.action(api.channelFiles.add, { channelId, storageId: posted, name: "notes.txt" });
  await member.mutation(api.channelMessages.post, { channelId, body: "notes", artifacts: [artifact] });
  const onDisk = () => readdirSync(path.join(backend!.dataDir, "storage")).sort();
  expect(onDisk()).toEqual([neverAdded, addedOnly, posted].sort());

  // Within the window the sweep leaves them alone.
  expect(await admin.mutation(anyApi.sweeps.unpostedFiles, {})).toEqual({ files: 0, uploads: 0 });

  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + FILE_LIMITS.unpostedTtlMs + 60_000);
  // The hourly cron may have come first; either way, only the posted file is left.
  await admin.mutation(anyApi.sweeps.unpostedFiles, {});
  await waitFor(() => onDisk().length === 1, 10_000, "the swept blobs to leave the disk");
  expect(onDisk()).toEqual([posted]);
});
