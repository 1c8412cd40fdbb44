import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync, rmSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_REQUEST_BYTES } from "../../tools/local-backend/server";
import { sameSecret, sendFailure } from "../../tools/local-backend/httpGuard";
import { startTestBackend, tempDataDir } from "./helpers";
import { spawnedBackends } from "./lifecycle";

type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request with full control of Host and the body (fetch forbids setting Host). */
function raw(url: string, options: { method?: string; path?: string; headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method: options.method ?? "GET", path: options.path ?? "/", headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

function wsStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/api/1.48.0/sync`, { headers });
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => resolve(-1));
  });
}

const query = JSON.stringify({ path: "notes:countAll", args: [{}] });

describe("Host, Origin and bodies on a running backend", () => {
  let backend: TestBackend;
  beforeAll(async () => {
    process.env.MAESTRO_ALLOWED_HOSTS = "maestro.lan, Board.Example:9000";
    process.env.MAESTRO_CORS_ORIGINS = "https://board.example";
    try {
      backend = await startTestBackend({ allowedOrigins: ["http://127.0.0.1:5173"] });
    } finally {
      delete process.env.MAESTRO_ALLOWED_HOSTS;
      delete process.env.MAESTRO_CORS_ORIGINS;
    }
  });
  afterAll(() => backend.stop());

  test("only loopback names and the allowed hosts reach the API and site ports (no DNS rebinding)", async () => {
    for (const url of [backend.url, backend.siteUrl]) {
      const at = url === backend.url ? "/version" : "/whoami";
      for (const host of ["evil.example", "evil.example:3210", "127.0.0.1.evil.example", "localhost.evil.example"]) {
        const refused = await raw(url, { path: at, headers: { Host: host } });
        expect(refused.status, host).toBe(403);
        expect(JSON.parse(refused.body)).toEqual({ code: "Forbidden", message: "Host not allowed" });
      }
      for (const host of ["127.0.0.1", "localhost:1234", "LOCALHOST", "[::1]:3210", "maestro.lan", "board.example:80"]) {
        expect((await raw(url, { path: at, headers: { Host: host } })).status, host).toBe(200);
      }
    }
    expect(await wsStatus(backend.url, { Host: "evil.example" })).toBe(403);
    expect(await wsStatus(backend.url, { Host: "localhost" })).toBe(101);
  });

  test("CORS answers only the app's origins; other origins get no CORS headers, and requests without Origin work", async () => {
    for (const origin of ["http://127.0.0.1:5173", "https://board.example"]) {
      const preflight = await raw(backend.url, {
        method: "OPTIONS",
        path: "/api/query",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe(origin);
    }
    for (const origin of ["http://evil.example", "http://127.0.0.1:8080", "null"]) {
      const preflight = await raw(backend.url, {
        method: "OPTIONS",
        path: "/api/query",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
      expect(preflight.status, origin).toBe(403);
      expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
      const post = await raw(backend.url, {
        method: "POST",
        path: "/api/query",
        headers: { Origin: origin, "Content-Type": "text/plain" },
        body: query,
      });
      expect(post.status).toBe(403);
      expect(post.headers["access-control-allow-origin"]).toBeUndefined();
      expect(await wsStatus(backend.url, { Origin: origin })).toBe(403);
    }
    const allowed = await raw(backend.url, {
      method: "POST",
      path: "/api/query",
      headers: { Origin: "http://127.0.0.1:5173", "Content-Type": "application/json" },
      body: query,
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("http://127.0.0.1:5173");
    const noOrigin = await raw(backend.url, { method: "POST", path: "/api/query", headers: { "Content-Type": "application/json" }, body: query });
    expect(noOrigin.status).toBe(200);
    expect(await wsStatus(backend.url, {})).toBe(101);
    expect(await wsStatus(backend.url, { Origin: "http://127.0.0.1:5173" })).toBe(101);
  });

  test("a body that is not a JSON object is a 400 with a clear JSON error, on every function route", async () => {
    for (const route of ["/api/query", "/api/mutation", "/api/action"]) {
      for (const [body, message] of [
        ["{not json", "Request body is not valid JSON."],
        ["null", "Request body must be a JSON object."],
        ["[]", "Request body must be a JSON object."],
        ["3", "Request body must be a JSON object."],
        ['"text"', "Request body must be a JSON object."],
        ["", "Request body is empty; expected a JSON object."],
      ]) {
        const response = await raw(backend.url, { method: "POST", path: route, headers: { "Content-Type": "application/json" }, body });
        expect(response.status, `${route} ${body}`).toBe(400);
        expect(response.headers["content-type"]).toBe("application/json");
        expect(JSON.parse(response.body)).toEqual({ code: "BadRequest", message });
      }
    }
  });

  test("a body over MAX_REQUEST_BYTES is refused with 413, whether declared or streamed", async () => {
    const big = Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x20);
    for (const url of [backend.url, backend.siteUrl]) {
      const route = url === backend.url ? "/api/mutation" : "/echo";
      const declared = await raw(url, { method: "POST", path: route, headers: { "Content-Type": "application/json" }, body: big });
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body).code).toBe("PayloadTooLarge");
      // Chunked: no Content-Length, so the limit is met while reading.
      const streamed = await raw(url, {
        method: "POST",
        path: route,
        headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
        body: big,
      });
      expect(streamed.status).toBe(413);
    }
    // The server is still fine afterwards.
    expect((await raw(backend.url, { method: "POST", path: "/api/query", body: query })).status).toBe(200);
  });

  test("http actions see the socket's address as X-Forwarded-For, never the client's own", async () => {
    const plain = await raw(backend.siteUrl, { path: "/forwarded" });
    expect(JSON.parse(plain.body)).toEqual({ forwardedFor: "127.0.0.1", realIp: null });
    const spoofed = await raw(backend.siteUrl, {
      path: "/forwarded",
      headers: { "X-Forwarded-For": "203.0.113.9, 10.0.0.1", "X-Real-IP": "203.0.113.9", Forwarded: "for=203.0.113.9" },
    });
    expect(JSON.parse(spoofed.body)).toEqual({ forwardedFor: "127.0.0.1", realIp: null });
  });

  test("the admin key is compared in constant time, and only the exact key is accepted", async () => {
    expect(sameSecret(backend.adminKey, backend.adminKey)).toBe(true);
    expect(sameSecret(`${backend.adminKey}x`, backend.adminKey)).toBe(false);
    expect(sameSecret(backend.adminKey.slice(0, -1), backend.adminKey)).toBe(false);
    expect(sameSecret("", backend.adminKey)).toBe(false);
    const call = (key: string) =>
      raw(backend.url, { method: "POST", path: "/api/query", headers: { Authorization: `Convex ${key}` }, body: query });
    expect((await call(backend.adminKey)).status).toBe(200);
    // One character off (never the same character: a key ending in "0" made this pass the real key 1 time in 16).
    const wrong = backend.adminKey.slice(0, -1) + (backend.adminKey.endsWith("0") ? "1" : "0");
    expect((await call(wrong)).status).toBe(401);
  });
});

test("an unexpected failure answers a bare 500 and logs the stack server-side", async () => {
  const logged: string[] = [];
  const server = createServer((req, res) => {
    Promise.reject(new Error("secret detail in /internal/path.ts")).catch((error: unknown) =>
      sendFailure(req, res, error, (line) => logged.push(line), "HTTP"),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await raw(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { path: "/x" });
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ code: "InternalServerError", message: "Internal server error" });
    expect(response.body).not.toContain("secret detail");
    expect(logged.join("\n")).toContain("secret detail in /internal/path.ts");
    expect(logged.join("\n")).toMatch(/at /);
  } finally {
    server.close();
  }
});

describe("the data folder", () => {
  const backends = spawnedBackends();

  test("the admin key is never printed; the READY line names its file", async () => {
    const dataDir = backends.dataDir();
    const backend = await backends.spawn({ dataDir });
    const output = backend.output.join("");
    const ready = JSON.parse(/MAESTRO_BACKEND_READY (.*)/.exec(output)![1]) as Record<string, unknown>;
    expect(Object.keys(ready).sort()).toEqual(["adminKeyFile", "siteUrl", "url"]);
    expect(ready.adminKeyFile).toBe(path.join(dataDir, "admin-key"));
    expect(backend.adminKey).toMatch(/^maestro-local\|[0-9a-f]{48}$/);
    expect(output).not.toContain(backend.adminKey);
    expect(output).not.toContain(backend.adminKey.split("|")[1]);
    expect(output).toContain(`admin key in ${path.join(dataDir, "admin-key")}`);
  });

  test("is owner-only: folder 0700, every file 0600, including ones left from before", async () => {
    const parent = backends.dataDir();
    const dataDir = path.join(parent, "data");
    const fresh = await startTestBackend({ dataDir });
    await fresh.stop();
    const mode = (file: string) => statSync(file).mode & 0o777;
    // Start-up serves from the log and writes no snapshot until a compaction: check every file there is.
    const files = () => readdirSync(dataDir, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
    expect(mode(dataDir)).toBe(0o700);
    expect(files()).toEqual(expect.arrayContaining(["wal.jsonl", "admin-key", "auth-keys.json"]));
    for (const name of files()) expect(mode(path.join(dataDir, name)), name).toBe(0o600);

    // A folder from an older version, readable by everyone, is tightened on start.
    chmodSync(dataDir, 0o755);
    for (const name of files()) chmodSync(path.join(dataDir, name), 0o644);
    writeFileSync(path.join(dataDir, "wal.jsonl.corrupt-old"), "x", { mode: 0o644 });
    mkdirSync(path.join(dataDir, "keep-subfolder"));
    const again = await startTestBackend({ dataDir });
    await again.stop();
    expect(mode(dataDir)).toBe(0o700);
    expect(files()).toContain("wal.jsonl.corrupt-old");
    for (const name of files()) expect(mode(path.join(dataDir, name)), name).toBe(0o600);
    expect(readFileSync(path.join(dataDir, "admin-key"), "utf8")).toBe(again.adminKey);
  });
});

test("a malformed allowed origin is a clear start-up error", async () => {
  const dataDir = tempDataDir();
  try {
    await expect(startTestBackend({ dataDir, allowedOrigins: ["127.0.0.1:8080"] })).rejects.toThrow(
      'Allowed origin "127.0.0.1:8080" (allowedOrigins / MAESTRO_CORS_ORIGINS) is not an http(s) origin',
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
