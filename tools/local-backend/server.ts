/**
 * The offline Convex backend: the project's `convex/` functions behind
 * Convex's own client protocol (WebSocket sync and the HTTP API) on the API
 * port, HTTP actions from `convex/http.ts` on the site port, local sign-in,
 * the scheduler and crons, and data kept on disk.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, watch, writeFileSync, type FSWatcher } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { UserIdentity } from "convex/server";
import { WebSocketServer } from "ws";
import { ADMIN_KEY, mintedKeyBytes, mintKey } from "../../convex/lib/secrets/minted";
import { allowedHostnames, appOrigins, DEFAULT_CONFIG, envList } from "../config.js";
import { AuthFailure, isJwtShaped, loadAuthProviders, loadOrCreateAuthKeys, ProviderVerifier, type TokenVerifier } from "./auth.js";
import { CronRunner } from "./crons.js";
import { Engine, type Caller, type FunctionOutcome, type FunctionType, type HttpActionRequest } from "./engine.js";
import { applyHeapSizing } from "./heapSizing.js";
import { HttpError, hostAllowed, normalizeOrigin, readBody, readJsonObject, sameSecret, sendFailure } from "./httpGuard.js";
import { walSyncModeFromEnv, type WalSyncMode } from "./storage.js";
import { responseBytes } from "./responseBody.js";
import { handleStorage, STORAGE_PREFIX } from "./storageHttp.js";
import { SyncServer, type SocketLimits } from "./sync.js";
import { createTurnGate } from "./turns.js";

export interface BackendOptions {
  projectRoot: string;
  /** Defaults to `<projectRoot>/convex`. */
  convexDir?: string;
  /** Defaults to `<projectRoot>/.maestro/data`. */
  dataDir?: string;
  host?: string;
  /** API port (Convex's local default 3210); 0 picks a free one. */
  port?: number;
  /** HTTP actions port (Convex's local default 3211); 0 picks a free one. */
  sitePort?: number;
  /** WebUI password: it authorises the first-run owner setup and /api/chat's Basic auth; null is logged as a security warning. */
  password: string | null;
  /** The app's URL (Convex Auth's SITE_URL); defaults to SITE_URL from the environment, else the API URL. */
  appUrl?: string;
  /** Rebuild and reload `convex/` when its files change. */
  watch?: boolean;
  /** How long a finished scheduled job's row is kept; default from MAESTRO_SCHEDULED_JOB_RETENTION_MS, else Convex's 7 days (scheduling.ts). */
  scheduledJobRetentionMs?: number;
  /**
   * Browser origins allowed to call the API port (CORS), besides
   * MAESTRO_CORS_ORIGINS. Defaults to the app at the default WebUI port
   * (http://127.0.0.1:8080, http://localhost:8080); npm start passes its own.
   */
  allowedOrigins?: string[];
  /**
   * Host names the servers answer to besides 127.0.0.1, localhost, [::1],
   * `host` and MAESTRO_ALLOWED_HOSTS; any other Host header gets 403.
   */
  allowedHosts?: string[];
  /** Queries one WebSocket may hold (default MAX_SUBSCRIPTIONS_PER_SOCKET). */
  maxSubscriptionsPerSocket?: number;
  /** What one WebSocket may cost others (sync.ts SocketLimits; defaults DEFAULT_SOCKET_LIMITS). */
  socketLimits?: Partial<SocketLimits>;
  /** How the write-ahead log syncs; default from MAESTRO_WAL_SYNC, else "group" (storage.ts). */
  walSync?: WalSyncMode;
  /** Largest file an upload URL accepts; default from MAESTRO_MAX_UPLOAD_BYTES, else fileStorage.ts's DEFAULT_MAX_UPLOAD_BYTES. */
  maxUploadBytes?: number;
  log?: (line: string) => void;
}

export interface Backend {
  url: string;
  siteUrl: string;
  /** For in-process callers only; never print it. */
  adminKey: string;
  /** The file holding the admin key (mode 0600): what logs and the READY line name instead of the key. */
  adminKeyFile: string;
  engine: Engine;
  sync: SyncServer;
  /** Verifies tokens against convex/auth.config.ts's providers. */
  auth: TokenVerifier;
  close(): Promise<void>;
}

/** Largest request body the HTTP API accepts. */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** The warning for an open first-run setup with no WebUI password to guard it; null once an owner exists or a password is set. */
export function ownerSetupWarning(passwordSet: boolean, needsOwner: boolean): string | null {
  if (passwordSet || !needsOwner) return null;
  return "SECURITY WARNING: no WebUI password is set (webui.password or MAESTRO_WEBUI_PASSWORD) and there is no owner yet: until the owner account exists, anyone who can reach the app can create it.";
}

/** `npm start`'s "WebUI password" line: what the password (or its absence) means now, with or without an owner. */
export function webuiPasswordLine(passwordSet: boolean, needsOwner: boolean): string {
  if (passwordSet) return needsOwner ? "set (webui.password / MAESTRO_WEBUI_PASSWORD): the owner setup asks for it" : "set (webui.password / MAESTRO_WEBUI_PASSWORD): /api/chat takes it";
  return needsOwner
    ? "NOT SET and no owner yet: until the owner account exists, anyone who can reach the app can create it (set MAESTRO_WEBUI_PASSWORD)"
    : "not set: the owner account exists, so the setup is closed; /api/chat takes signed-in sessions only";
}

/**
 * Whether the deployment still has no owner (its first-run setup is open),
 * as the functions' `setup:status` says; true where they cannot say (a
 * deployment without that function), so the warning errs on the safe side.
 */
export async function ownerMissing(engine: Engine): Promise<boolean> {
  const outcome = await engine.runQuery("setup:status", {}, { kind: "admin" }).catch(() => null);
  if (outcome === null || !outcome.ok) return true;
  return (outcome.value as { needsOwner?: unknown }).needsOwner !== false;
}

export async function startBackend(options: BackendOptions): Promise<Backend> {
  const log = options.log ?? ((line: string) => console.log(`[backend] ${line}`));
  const convexDir = options.convexDir ?? path.join(options.projectRoot, "convex");
  const dataDir = options.dataDir ?? path.join(options.projectRoot, ".maestro", "data");
  const host = options.host ?? "127.0.0.1";

  const hosts = new Set(allowedHostnames([host, ...(options.allowedHosts ?? [])]));
  const origins = new Set(
    [...(options.allowedOrigins ?? appOrigins(DEFAULT_CONFIG.webui.port)), ...envList(process.env.MAESTRO_CORS_ORIGINS)].map(normalizeOrigin),
  );

  const walSync = options.walSync ?? walSyncModeFromEnv();
  // Resident memory a steady multiple of the data it holds (heapSizing.ts).
  applyHeapSizing();
  const maxUploadBytes = options.maxUploadBytes ?? (process.env.MAESTRO_MAX_UPLOAD_BYTES ? Number(process.env.MAESTRO_MAX_UPLOAD_BYTES) : undefined);
  const engine = await Engine.create({
    projectRoot: options.projectRoot,
    convexDir,
    dataDir,
    log,
    walSync,
    maxUploadBytes,
    scheduledJobRetentionMs: options.scheduledJobRetentionMs,
  });
  const adminKeyFile = path.join(dataDir, "admin-key");
  const adminKey = loadOrCreateAdminKey(adminKeyFile);
  // Convex Auth signs its tokens inside the functions with these, as a deployment's environment holds them.
  const authKeys = loadOrCreateAuthKeys(path.join(dataDir, "auth-keys.json"));
  process.env.JWT_PRIVATE_KEY ??= authKeys.privateKey;
  process.env.JWKS ??= authKeys.jwks;
  // The functions read the WebUI password from their environment (owner setup, /api/chat's Basic auth).
  if (options.password === null) delete process.env.MAESTRO_WEBUI_PASSWORD;
  else process.env.MAESTRO_WEBUI_PASSWORD = options.password;
  let providers: Awaited<ReturnType<typeof loadAuthProviders>> = [];
  const auth = new ProviderVerifier(() => providers);
  // Only while the setup is open: once an owner exists, nobody can take it over, and a restart says nothing of it.
  const warning = ownerSetupWarning(options.password !== null, await ownerMissing(engine));
  if (warning !== null) log(warning);
  // Requests and socket messages start in fair turns of the event loop, and actions' calls pause at them (turns.ts).
  const turns = createTurnGate();
  engine.turns = turns;
  const sync = new SyncServer(engine, auth, adminKey, log, { maxSubscriptions: options.maxSubscriptionsPerSocket, ...options.socketLimits }, turns);
  engine.onCommit = (changes) => sync.notifyCommit(changes);
  const crons = new CronRunner(engine, log);
  crons.reset();

  const api = createServer((req, res) => {
    turns
      .take()
      .then(() => handleApi(req, res, { engine, auth, adminKey, hosts, origins }))
      .catch((error: unknown) => sendFailure(req, res, error, log, "HTTP"));
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_REQUEST_BYTES });
  api.on("upgrade", (req, socket, head) => {
    // Browsers do not apply CORS to WebSockets, so the same Host and Origin rules are checked here.
    if (!hostAllowed(req, hosts) || (req.headers.origin !== undefined && !origins.has(req.headers.origin))) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!/^\/api(\/[^/]+)?\/sync$/.test(pathname)) {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => sync.accept(ws));
  });
  const site = createServer((req, res) => {
    turns
      .take()
      .then(() => handleSite(req, res, engine, auth, hosts))
      .catch((error: unknown) => sendFailure(req, res, error, log, "HTTP action"));
  });
  await listen(api, options.port ?? 3210, host);
  await listen(site, options.sitePort ?? 3211, host);
  const url = `http://${host}:${(api.address() as AddressInfo).port}`;
  const siteUrl = `http://${host}:${(site.address() as AddressInfo).port}`;
  engine.files.baseUrl = url;
  // The deployment's own addresses, known once the ports are: the issuer of Convex Auth's tokens and the app's URL.
  process.env.CONVEX_SITE_URL = siteUrl;
  process.env.SITE_URL = options.appUrl ?? process.env.SITE_URL ?? url;
  providers = await loadAuthProviders(convexDir);

  let watcher: FSWatcher | null = null;
  if (options.watch) {
    let timer: NodeJS.Timeout | null = null;
    let reloading = Promise.resolve();
    watcher = watch(convexDir, { recursive: true }, () => {
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading.then(async () => {
          const error = await engine.reload();
          if (error !== null) {
            log(`convex/ changed but was not loaded: ${error}`);
            return;
          }
          log("convex/ changed: functions reloaded");
          crons.reset();
          sync.refreshAll();
        });
      }, 150);
    });
  }

  return {
    url,
    siteUrl,
    adminKey,
    adminKeyFile,
    engine,
    sync,
    auth,
    async close() {
      watcher?.close();
      crons.stop();
      sync.close();
      sockets.close();
      await Promise.all([closeServer(api), closeServer(site)]);
      engine.close();
    },
  };
}

interface ApiContext {
  engine: Engine;
  auth: TokenVerifier;
  adminKey: string;
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

const FUNCTION_ENDPOINTS: Record<string, FunctionType | "any"> = {
  "/api/query": "query",
  "/api/query_at_ts": "query",
  "/api/mutation": "mutation",
  "/api/action": "action",
  "/api/function": "any",
};

async function handleApi(req: IncomingMessage, res: ServerResponse, context: ApiContext) {
  checkHost(req, context.hosts);
  if (!setCors(req, res, context.origins)) {
    // Refused outright, not just left without CORS headers: a bearer-less request could still act.
    throw new HttpError(403, "Forbidden", "Origin not allowed");
  }
  if (req.method === "OPTIONS") {
    res.writeHead(204).end();
    return;
  }
  const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
  if (pathname === "/api/query_ts") {
    sendJson(res, 200, { ts: Number(context.engine.lastCommitTs) });
    return;
  }
  if (pathname === "/version") {
    res.writeHead(200, { "Content-Type": "text/plain" }).end("maestro-local-backend");
    return;
  }
  if (pathname.startsWith(STORAGE_PREFIX)) {
    await handleStorage(req, res, context.engine);
    return;
  }
  const endpoint = FUNCTION_ENDPOINTS[pathname];
  if (endpoint === undefined) {
    sendJson(res, 404, { code: "NotFound", message: `No route for ${pathname}` });
    return;
  }
  if (req.method !== "POST") {
    sendJson(res, 405, { code: "MethodNotAllowed", message: "Use POST" });
    return;
  }
  let caller: Caller;
  try {
    caller = await callerFromHeader(req.headers.authorization, context);
  } catch (error) {
    if (!(error instanceof AuthFailure)) throw error;
    sendJson(res, 401, { code: "Unauthenticated", message: error.message });
    return;
  }
  const body = await readJsonObject(req, MAX_REQUEST_BYTES);
  if (typeof body.path !== "string") {
    sendJson(res, 400, { code: "BadRequest", message: "Expected a JSON body with `path` and `args`" });
    return;
  }
  const { path: udfPath, args: rawArgs } = body as { path: string; args?: unknown };
  const args = (Array.isArray(rawArgs) ? (rawArgs[0] ?? {}) : (rawArgs ?? {})) as never;
  const type = endpoint === "any" ? context.engine.functionInfo(udfPath)?.type : endpoint;
  let outcome: FunctionOutcome;
  if (type === "mutation") outcome = await context.engine.runMutation(udfPath, args, caller);
  else if (type === "action") outcome = await context.engine.runAction(udfPath, args, caller);
  else {
    outcome = await context.engine.runQuery(udfPath, args, caller);
    // A result may show commits still on their way to disk: answer once they are there.
    await context.engine.whenDurable();
  }
  if (outcome.ok) {
    sendJson(res, 200, { status: "success", value: outcome.value ?? null, logLines: outcome.logLines });
  } else {
    sendJson(res, 560, {
      status: "error",
      errorMessage: outcome.errorMessage,
      logLines: outcome.logLines,
      ...(outcome.errorData === undefined ? {} : { errorData: outcome.errorData }),
    });
  }
}

async function handleSite(req: IncomingMessage, res: ServerResponse, engine: Engine, auth: TokenVerifier, hosts: ReadonlySet<string>) {
  // CORS here is the HTTP actions' own business; only the Host is checked.
  checkHost(req, hosts);
  let identity: UserIdentity | null = null;
  const token = bearerToken(req.headers.authorization);
  // Agents send their API keys here as bearer tokens: not JWTs, so no identity, without building the error that says so.
  if (token !== null && isJwtShaped(token)) {
    try {
      identity = (await auth.verify(token)).identity;
    } catch (error) {
      if (!(error instanceof AuthFailure)) throw error;
      // An unverifiable token is treated as no identity; the action decides what that means.
    }
  }
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(await readBody(req, MAX_REQUEST_BYTES));
  // Nothing sits in front of this server, so the client's own forwarding
  // headers are lies it chose; X-Forwarded-For is set to the socket's peer,
  // the one address http actions can trust (e.g. to rate-limit per IP).
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "x-real-ip" || name === "forwarded" || name === "x-forwarded-for") continue;
    headers.push([name, Array.isArray(value) ? value.join(", ") : value]);
  }
  headers.push(["x-forwarded-for", peerAddress(req)]);
  // The action's Request is built once, by the engine, from these parts (building one here too cost a post ~5% more CPU).
  // The Host was checked above: the action's request.url is on the origin the client called (this server speaks plain HTTP).
  const origin = req.headers.host === undefined ? undefined : `http://${req.headers.host}`;
  const request: HttpActionRequest = { pathAndQuery: req.url ?? "/", method: req.method ?? "GET", headers, body, origin };
  const response = await engine.runHttpAction(request, identity);
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  res.writeHead(response.status, responseHeaders);
  res.end(await responseBytes(response));
}

async function callerFromHeader(header: string | undefined, context: ApiContext): Promise<Caller> {
  if (header === undefined || header === "") return { kind: "user", identity: null };
  if (header.startsWith("Convex ")) {
    if (!sameSecret(header.slice("Convex ".length), context.adminKey)) throw new AuthFailure("Invalid admin key.");
    return { kind: "admin" };
  }
  const token = bearerToken(header);
  if (token === null) throw new AuthFailure("Unsupported Authorization header.");
  return { kind: "user", identity: (await context.auth.verify(token)).identity };
}

function bearerToken(header: string | undefined): string | null {
  return header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : null;
}

function checkHost(req: IncomingMessage, hosts: ReadonlySet<string>) {
  if (!hostAllowed(req, hosts)) throw new HttpError(403, "Forbidden", "Host not allowed");
}

/** CORS headers for an allowed Origin; false for a disallowed one. Requests without Origin (curl, servers) pass. */
function setCors(req: IncomingMessage, res: ServerResponse, origins: ReadonlySet<string>): boolean {
  res.setHeader("Vary", "Origin");
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (!origins.has(origin)) return false;
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "Content-Type, Authorization, Convex-Client");
  res.setHeader("Access-Control-Max-Age", "86400");
  return true;
}

/** The socket's remote address, IPv4-mapped IPv6 shown as plain IPv4. */
function peerAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function loadOrCreateAdminKey(file: string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  // Minted in a format the secret scanner knows, so a pasted admin key is redacted like any other secret.
  const key = mintKey(ADMIN_KEY, randomBytes(mintedKeyBytes(ADMIN_KEY)));
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
