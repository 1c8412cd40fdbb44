/**
 * Files on a task's thread messages on the real offline backend: a real
 * upload through the task's grant at /api/upload, attached to a message,
 * downloaded through the URL `taskFiles.urls` hands a reader; no grant,
 * a used grant, a signed-out caller and a path into the data folder are
 * refused; a day on, the sweep keeps the attached file and removes the
 * one never attached. The backend runs in this process, so moving `Date`
 * a day on moves its clock too.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
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

const NOTES = "# Launch notes\nship friday\n";

async function post(url: string, body: string): Promise<Response> {
  return await fetch(url, { method: "POST", headers: { "Content-Type": "text/markdown" }, body });
}

test("upload for a task, attach, download as a reader; refusals without a grant, signed out, or by path", async () => {
  backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
  const { admin, member, departmentId } = await seedDemoSquad(backend);
  const taskId = await member.mutation(api.tasks.create, { departmentId, title: "Launch notes" });

  const url = await member.mutation(api.taskFiles.generateUploadUrl, { taskId });
  const uploaded = await post(url, NOTES);
  expect(uploaded.status).toBe(200);
  const { storageId } = (await uploaded.json()) as { storageId: Id<"_storage"> };
  // The URL took its one file; a made-up grant takes none.
  expect((await post(url, "second")).status).toBe(403);
  expect((await post(url.replace(/grant=[0-9a-f]+/, `grant=${"0".repeat(64)}`), "stray")).status).toBe(403);

  const artifact = await member.action(api.taskFiles.add, { taskId, storageId, name: "notes.md" });
  expect(artifact).toEqual({ kind: "file", storageId, name: "notes.md", contentType: "text/markdown", size: NOTES.length });
  const messageId = await member.mutation(api.messages.create, { taskId, content: "notes attached", files: [storageId] });
  const [link] = await member.query(api.taskFiles.urls, { taskId, messageId });
  const served = await fetch(link.url!);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("text/markdown");
  expect(await served.text()).toBe(NOTES);

  // Signed out: no URL, no grant, no add.
  const anonymous = new ConvexHttpClient(backend.url);
  await expect(anonymous.query(api.taskFiles.urls, { taskId, messageId })).rejects.toThrow(/Sign in/);
  await expect(anonymous.mutation(api.taskFiles.generateUploadUrl, { taskId })).rejects.toThrow(/Sign in/);
  // The download URL is signed for its blob: another path, or the same with its token changed, serves nothing.
  const base = `${backend.url}/api/storage/`;
  const token = new URL(link.url!).searchParams.get("token")!;
  for (const probe of [`${base}..%2Fadmin-key?token=${token}`, `${base}../admin-key?token=${token}`, `${base}${storageId}?token=${token.slice(0, -2)}xx`, `${base}${storageId}`]) {
    const response = await fetch(probe);
    expect(response.status, probe).not.toBe(200);
    expect(await response.text()).not.toContain(backend.adminKey);
  }

  // A day on: the attached file stays on disk, the one never attached goes.
  const abandoned = (await (await post(await member.mutation(api.taskFiles.generateUploadUrl, { taskId }), "draft")).json()) as { storageId: Id<"_storage"> };
  await member.action(api.taskFiles.add, { taskId, storageId: abandoned.storageId, name: "draft.md" });
  const onDisk = () => readdirSync(path.join(backend!.dataDir, "storage")).sort();
  expect(onDisk()).toEqual([storageId, abandoned.storageId].sort());
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + FILE_LIMITS.unpostedTtlMs + 60_000);
  await admin.mutation(anyApi.sweeps.unpostedFiles, {});
  await waitFor(() => onDisk().length === 1, 10_000, "the abandoned blob to leave the disk");
  expect(onDisk()).toEqual([storageId]);
});
