/**
 * Convex file storage on convex-test's own storage syscalls, extended rather
 * than replaced: convex-test inserts the `_storage` row (size, sha256) and
 * keeps the blob in memory with fake URLs; here the blob goes to disk
 * (fileStorage.ts) inside the row's transaction, the row also keeps the
 * content type, URLs point at this backend, and `getMetadata` answers.
 */
import { convexToJson, type Value } from "convex/values";
import type { ConvexTestInternals } from "./convexTestInternals.js";
import type { FileStore } from "./fileStorage.js";
import { ContextSlot } from "./contextSlots.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals are untyped */

/** A blob on its way into storage: its temp file waits for the `_storage` insert to name it. */
interface PendingBlob {
  files: FileStore;
  tempFile: string;
  contentType: string | undefined;
  placed: boolean;
}
const pendingBlob = new ContextSlot<PendingBlob>();

/** Marks a database (the app's or a component's) whose blobs live in `files`. */
export function attachFileStore(db: any, files: FileStore) {
  db.__maestroFiles = files;
}

/** The syscalls answered here (the rest go on to convex-test). */
const STORAGE_SYSCALLS = new Set(["1.0/storageGenerateUploadUrl", "1.0/storageGetUrl", "1.0/storageGetMetadata"]);

/** Wraps the deployment's storage syscalls (convex-test's "Convex" global) to use `files`. */
export function installStorageSyscalls(internals: ConvexTestInternals, global: any, files: FileStore) {
  patchDatabase(internals);
  const currentDb = () => global.components[internals.executionContextStorage.getStore()?.componentPath ?? ""].db;

  const asyncSyscall = global.asyncSyscall as (op: string, jsonArgs: string) => Promise<string>;
  const storageSyscall = async (op: string, jsonArgs: string): Promise<string> => {
    switch (op) {
      case "1.0/storageGenerateUploadUrl":
        return JSON.stringify(files.newUploadUrl());
      case "1.0/storageGetUrl": {
        const result = await asyncSyscall(op, jsonArgs);
        if (JSON.parse(result) === null) return result;
        return JSON.stringify(files.urlFor((JSON.parse(jsonArgs) as { storageId: string }).storageId));
      }
      case "1.0/storageGetMetadata": {
        const { storageId } = JSON.parse(jsonArgs) as { storageId: string };
        const row = currentDb().get("_storage", storageId);
        const metadata =
          row === null ? null : { storageId: row._id, sha256: row.sha256, size: row.size, contentType: row.contentType ?? null };
        return JSON.stringify(convexToJson(metadata as Value));
      }
      default:
        return await asyncSyscall(op, jsonArgs);
    }
  };
  // Every other syscall (each database call) is handed on as it is: no async frame of its own.
  global.asyncSyscall = (op: string, jsonArgs: string): Promise<string> => (STORAGE_SYSCALLS.has(op) ? storageSyscall(op, jsonArgs) : asyncSyscall(op, jsonArgs));

  const jsSyscall = global.jsSyscall as (op: string, args: any) => Promise<any>;
  global.jsSyscall = async (op: string, args: any) => {
    if (op !== "storage/storeBlob") return await jsSyscall(op, args);
    const blob = args.blob as Blob;
    const tempFile = files.writeTemp(new Uint8Array(await blob.arrayBuffer()));
    const pending: PendingBlob = { files, tempFile, contentType: blob.type === "" ? undefined : blob.type, placed: false };
    try {
      return await pendingBlob.run(pending, () => jsSyscall(op, args));
    } finally {
      if (!pending.placed) files.removeTemp(tempFile);
    }
  };
}

let patched = false;

function patchDatabase(internals: ConvexTestInternals) {
  if (patched) return;
  patched = true;
  const proto = internals.DatabaseFake.prototype;
  // The `_storage` row is inserted with its content type, and its blob named on disk before the row can commit.
  const originalInsert = proto.insert;
  proto.insert = function (this: any, table: string, value: any) {
    const pending = pendingBlob.getStore();
    if (table !== "_storage" || pending === undefined || pending.placed || this.__maestroFiles === undefined) {
      return originalInsert.call(this, table, value);
    }
    const id = originalInsert.call(this, table, pending.contentType === undefined ? value : { ...value, contentType: pending.contentType }) as string;
    pending.files.place(pending.tempFile, id);
    pending.placed = true;
    return id;
  };
  // The blob is on disk already; convex-test would keep a second copy in memory.
  const originalStore = proto.storeFile;
  proto.storeFile = function (this: any, storageId: string, blob: Blob) {
    if (this.__maestroFiles === undefined) return originalStore.call(this, storageId, blob);
  };
  const originalGetFile = proto.getFile;
  proto.getFile = function (this: any, storageId: string) {
    const files: FileStore | undefined = this.__maestroFiles;
    if (files === undefined) return originalGetFile.call(this, storageId);
    const row = this.get("_storage", storageId);
    if (row === null) return null;
    const bytes = files.read(storageId);
    return bytes === null ? null : new Blob([new Uint8Array(bytes)], { type: row.contentType ?? "" });
  };
}
