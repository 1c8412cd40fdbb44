/**
 * The storage routes of the API port, as Convex serves them:
 * - `POST /api/storage/upload?token=…` takes a file body once per upload
 *   URL (its Content-Type kept), up to the size cap (413 past it), and
 *   answers `{ storageId }`;
 * - `GET /api/storage/<id>?token=…` serves a stored file to whoever holds
 *   the URL `ctx.storage.getUrl` made. Only blobs named by a committed
 *   `_storage` row are ever read; nothing else of the data folder is served.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Engine } from "./engine.js";
import { HttpError, readBody } from "./httpGuard.js";

export const STORAGE_PREFIX = "/api/storage/";

export async function handleStorage(req: IncomingMessage, res: ServerResponse, engine: Engine): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const name = url.pathname.slice(STORAGE_PREFIX.length);
  const token = url.searchParams.get("token") ?? "";
  if (name === "upload") {
    if (req.method !== "POST") throw new HttpError(405, "MethodNotAllowed", "Upload with POST.");
    if (!engine.files.claimUpload(token)) {
      throw new HttpError(403, "InvalidUploadUrl", "This upload URL is unknown, expired or used already: ask for a new one.");
    }
    const body = await readBody(req, engine.files.maxUploadBytes);
    const storageId = await engine.storeUpload(new Uint8Array(body), req.headers["content-type"] ?? "");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ storageId }));
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "MethodNotAllowed", "Files are read with GET.");
  const notFound = new HttpError(404, "NotFound", "No such file.");
  // The token check comes first: an id alone (a counter) says nothing, and reveals nothing.
  if (!engine.files.verifyUrlToken(name, token)) throw notFound;
  const row = engine.storedFile(name);
  const bytes = row === null ? null : engine.files.read(name);
  if (row === null || bytes === null) throw notFound;
  res.writeHead(200, {
    "Content-Type": row.contentType === undefined || row.contentType === "" ? "application/octet-stream" : row.contentType,
    "Content-Length": String(bytes.length),
    "Cache-Control": "private, max-age=3600",
    // Uploaded content is never run as a page of this origin, whatever type it claims.
    "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "cross-origin",
    // The URL is the capability (it carries its token); the app fetches it to save the file under its own name.
    "Access-Control-Allow-Origin": "*",
  });
  res.end(req.method === "HEAD" ? undefined : bytes);
}
