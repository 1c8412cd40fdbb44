/**
 * Uploads for files on messages (convex/http.ts lists the routes):
 *
 *   POST /api/upload?grant=<token>   the file as the body, its type as Content-Type; answers {"storageId": "..."}
 *
 * The URL comes from `channelMessages.generateUploadUrl` or
 * `taskFiles.generateUploadUrl`, which issue the grant for one person and
 * one conversation or task; it takes one file before it expires, and the
 * stored file is bound to the grant, so only that person may add it
 * (`channelFiles.add`, `taskFiles.add`), and only there. 403 for a used, expired
 * or unknown grant, 413 for a file over the limit. Browsers may call it
 * from the app's origins only (SITE_URL, MAESTRO_CORS_ORIGINS).
 */
import { internal } from "./_generated/api";
import type { ActionCtx } from "./_generated/server";
import { appOriginsFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { FILE_LIMITS, formatBytes, UPLOAD_PATH } from "./lib/files";
import { corsFrom, json, preflightFrom, refuseForeignOrigin, type HttpRoute } from "./lib/httpJson";

const TOO_BIG = `The file is over the ${formatBytes(FILE_LIMITS.maxBytes)} limit.`;
const NO_GRANT = "This upload URL was used already, has expired or is unknown; ask for a new one.";

async function upload(ctx: ActionCtx, request: Request): Promise<Response> {
  refuseForeignOrigin(request, appOriginsFromEnv());
  const token = new URL(request.url).searchParams.get("grant") ?? "";
  if (!/^[0-9a-f]{64}$/.test(token)) throw new MaestroError("FORBIDDEN", NO_GRANT);
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > FILE_LIMITS.maxBytes) throw new MaestroError("TOO_LARGE", TOO_BIG);
  // Nothing is stored for a URL that cannot take it.
  if (!(await ctx.runQuery(internal.channelFiles.uploadGrantOpen, { token, now: Date.now() }))) throw new MaestroError("FORBIDDEN", NO_GRANT);
  const blob = await request.blob();
  if (blob.size > FILE_LIMITS.maxBytes) throw new MaestroError("TOO_LARGE", TOO_BIG);
  const storageId = await ctx.storage.store(blob);
  if (!(await ctx.runMutation(internal.channelFiles.claimUpload, { token, storageId }))) {
    // Two uploads raced for one URL: the later one is not kept.
    await ctx.storage.delete(storageId);
    throw new MaestroError("FORBIDDEN", NO_GRANT);
  }
  return json(200, { storageId });
}

export const UPLOAD_ROUTES: HttpRoute[] = [
  { path: UPLOAD_PATH, method: "OPTIONS", challenge: null, handler: preflightFrom(appOriginsFromEnv, "POST") },
  { path: UPLOAD_PATH, method: "POST", challenge: null, handler: upload, cors: corsFrom(appOriginsFromEnv) },
];
