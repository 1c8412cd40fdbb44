/**
 * The steps every added upload goes through, wherever it is added (a
 * conversation: channelFiles.add, a task's thread: taskFiles.add): the
 * place's own checks, the content of a text file through the secret
 * scanner, then the record. A file refused for what it is (too big, a type
 * not allowed, a secret) has its blob deleted and the caller gets the
 * reason; a refusal for who the caller is is thrown by the checks and
 * leaves the blob alone (it is none of their business).
 */
import type { Id } from "../_generated/dataModel";
import { MaestroError } from "./errors";
import { FILE_LIMITS } from "./files";
import { scanUserText } from "./secrets/userText";

/** Characters of a text file kept for search (searchFiles). */
export const SEARCHED_TEXT_CHARS = 20_000;

/** Characters scanned at once (the scanner refuses texts past its hard cap); windows overlap so no secret is cut in two. */
const SCAN_WINDOW_CHARS = 200_000;
const SCAN_OVERLAP_CHARS = 4_096;

/** What the place's checks answer before the blob is read: a refusal, or whether (and how) to scan it. */
export type PreparedUpload = { ok: false; message: string } | { ok: true; text: boolean; scan: null | { timeoutMs: number } };

/** What recording answers: a refusal (checked again, the world may have moved), or what was recorded. */
export type RecordedUpload<T> = { ok: false; message: string } | { ok: true; artifact: T };

/** The storage an action holds (ctx.storage). */
type Storage = { get(storageId: Id<"_storage">): Promise<Blob | null>; delete(storageId: Id<"_storage">): Promise<void> };

/** Checks, scans and records one upload; `record` gets a text file's content (small enough to scan), else undefined. */
export async function addUpload<T>(
  storage: Storage,
  storageId: Id<"_storage">,
  prepare: () => Promise<PreparedUpload>,
  record: (text: string | undefined) => Promise<RecordedUpload<T>>,
): Promise<T> {
  const refuse = async (message: string): Promise<never> => {
    await storage.delete(storageId);
    throw new MaestroError("INVALID_ARGUMENT", message);
  };
  const prepared = await prepare();
  if (!prepared.ok) return await refuse(prepared.message);
  let text: string | undefined;
  if (prepared.text) {
    const blob = await storage.get(storageId);
    if (blob === null) throw new MaestroError("NOT_FOUND", "That upload is gone; upload the file again.");
    if (blob.size <= FILE_LIMITS.scanTextBytes) {
      text = await blob.text();
      if (prepared.scan !== null && holdsSecret(text, prepared.scan.timeoutMs)) {
        return await refuse("The file looks like it holds a secret (a key, token or password): remove it and upload the file again.");
      }
    }
  }
  const recorded = await record(text);
  if (!recorded.ok) return await refuse(recorded.message);
  return recorded.artifact;
}

/** True when the secret scanner finds anything in `text` (scanned in overlapping windows). */
function holdsSecret(text: string, timeoutMs: number): boolean {
  for (let start = 0; start < text.length; start += SCAN_WINDOW_CHARS) {
    const window = text.slice(start, start + SCAN_WINDOW_CHARS + SCAN_OVERLAP_CHARS);
    if (scanUserText(window, { maxChars: window.length, enabled: true, timeoutMs, source: "file" }).redacted) return true;
  }
  return false;
}
