/**
 * Rules for files attached to messages that need no database: the size
 * limit, the content types we accept, and file names.
 */
import { env } from "../_generated/server";
import { MaestroError } from "./errors";

/** Where files are uploaded: the deployment's own route (convex/uploadApi.ts), with the grant's token. */
export const UPLOAD_PATH = "/api/upload";

/** The upload URL a grant's token opens, on the deployment's HTTP actions site (CONVEX_SITE_URL, which Convex sets). */
export function uploadUrl(token: string, siteUrl: string | undefined = env.CONVEX_SITE_URL): string {
  if (siteUrl === undefined || siteUrl === "") throw new Error("CONVEX_SITE_URL is not set: the deployment's HTTP actions URL is needed for uploads.");
  return `${siteUrl.replace(/\/$/, "")}${UPLOAD_PATH}?grant=${token}`;
}

export const FILE_LIMITS = {
  /**
   * Largest file a message may carry: 8 MiB, what the upload route's request takes (the offline
   * backend's MAX_REQUEST_BYTES), so the app's own check, with its clear message, refuses first.
   */
  maxBytes: 8 * 1024 * 1024,
  nameChars: 200,
  /** Text files up to this size have their content secret-scanned before they are accepted. */
  scanTextBytes: 1024 * 1024,
  /** An upload not posted in a message within this long after it was uploaded is deleted (channelFiles.sweepUnposted). */
  unpostedTtlMs: 24 * 60 * 60 * 1000,
  /** How long an upload URL takes a file, as on Convex. */
  uploadUrlTtlMs: 60 * 60 * 1000,
} as const;

/** What may be attached: images, PDF, plain text formats and zip archives (Windows browsers name zip files their own way). */
export const ALLOWED_FILE_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
  "text/plain",
  "text/markdown",
  "text/csv",
  "application/json",
  "application/zip",
  "application/x-zip-compressed",
] as const;

/** Types whose content is text, and so is secret-scanned. */
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/csv", "application/json"]);

/** "Text/Plain; charset=utf-8" → "text/plain". */
export function baseContentType(raw: string | null | undefined): string {
  return (raw ?? "").split(";")[0].trim().toLowerCase();
}

export function isImageType(contentType: string): boolean {
  return baseContentType(contentType).startsWith("image/");
}

export function isTextType(contentType: string): boolean {
  return TEXT_TYPES.has(baseContentType(contentType));
}

/** Why a stored file may not be attached, or null: checked on what storage recorded, never on what the client said. */
export function fileRefusal(stored: { size: number; contentType?: string | null }): string | null {
  const type = baseContentType(stored.contentType);
  if (stored.size === 0) return "The file is empty.";
  if (stored.size > FILE_LIMITS.maxBytes) {
    return `The file is ${formatBytes(stored.size)}; the limit is ${formatBytes(FILE_LIMITS.maxBytes)}.`;
  }
  if (!(ALLOWED_FILE_TYPES as readonly string[]).includes(type)) {
    return `Files of type ${type === "" ? "(none given)" : type} cannot be attached: images (PNG, JPEG, GIF, WebP), PDF, text, Markdown, CSV, JSON and zip can.`;
  }
  return null;
}

/** A file name as shown: the last path segment, control characters dropped, bounded. */
export function cleanFileName(raw: string): string {
  const name = (raw.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (name === "" || name === "." || name === "..") throw new MaestroError("INVALID_ARGUMENT", "A file needs a name.");
  if (name.length > FILE_LIMITS.nameChars) {
    throw new MaestroError("INVALID_ARGUMENT", `A file name is at most ${FILE_LIMITS.nameChars} characters.`);
  }
  return name;
}

/** 1536 → "1.5 KB" (binary units, as file managers show sizes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

const TYPE_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
};

/** The type a browser gave a picked file, or one guessed from its extension when it gave none (e.g. `.md` on some systems). */
export function contentTypeForUpload(name: string, browserType: string): string {
  if (browserType !== "") return browserType;
  const extension = name.toLowerCase().split(".").pop() ?? "";
  return TYPE_BY_EXTENSION[extension] ?? "application/octet-stream";
}

/** `body` with one line per attached file, as an agent reads a thread message: `[attached file: “plan.md” (text/markdown, 1.2 KB)]`. */
export function withAttachedFiles(body: string, files: ReadonlyArray<{ name: string; contentType: string; size: number }>): string {
  if (files.length === 0) return body;
  return [body, ...files.map((file) => `[attached file: “${file.name}” (${file.contentType}, ${formatBytes(file.size)})]`)].join("\n");
}

/** A file search's answer from its two indexes: name matches first, then text matches, each file once, at most `limit`. */
export function nameMatchesFirst<T extends { _id: string }>(byName: readonly T[], byText: readonly T[], limit: number): T[] {
  const seen = new Set<string>();
  return [...byName, ...byText].filter((f) => !seen.has(f._id) && seen.add(f._id) !== undefined).slice(0, limit);
}
