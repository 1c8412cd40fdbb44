import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, expect, test } from "vitest";
import { isServable, servedPaths, wantsAppPage } from "../../tools/vite-guard";
import { PROJECT_ROOT } from "./helpers";

let app: ViteDevServer;
let base: string;
// Real files at the paths under attack, so a 404 means "refused", not "absent"; only ones this test made are removed.
const SENTINEL = "sentinel-must-never-be-served";
const planted: string[] = [];
const plantedDir = path.join(PROJECT_ROOT, ".maestro");
let madeDir = false;
beforeAll(async () => {
  madeDir = !existsSync(plantedDir);
  for (const name of [".maestro/data/admin-key", ".maestro/data/auth-secret", ".maestro/data/wal.jsonl", ".env"]) {
    const file = path.join(PROJECT_ROOT, name);
    if (existsSync(file)) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, name === ".env" ? `MAESTRO_DEV_SERVER_TEST=${SENTINEL}\n` : SENTINEL);
    planted.push(file);
  }
  // As tools/start.ts starts it: the project's vite.config.ts, on loopback.
  app = await createServer({
    configFile: path.join(PROJECT_ROOT, "vite.config.ts"),
    server: { host: "127.0.0.1", port: 0, strictPort: true },
    clearScreen: false,
    logLevel: "silent",
  });
  await app.listen();
  base = `http://127.0.0.1:${(app.httpServer!.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  for (const file of planted) rmSync(file, { force: true });
  if (madeDir) rmSync(plantedDir, { recursive: true, force: true });
});

/** GET with the path sent exactly as written (fetch would normalise `..` and encoded slashes). */
function get(pathname: string, host?: string, accept?: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(host ? { Host: host } : {}), ...(accept ? { Accept: accept } : {}) };
    const req = request({ host: url.hostname, port: url.port, path: pathname, headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the dev server serves the app but nothing from the project root, the data folder or dotfiles", async () => {
  const index = await get("/");
  expect(index.status).toBe(200);
  expect(index.body).toContain('<div id="root"></div>');
  expect((await get("/favicon.svg")).status).toBe(200);
  // The app's own addresses (a department, a task, an agent) get the app's page, so links open in a new tab.
  for (const address of ["/d/product", "/d/product/tasks/abc123", "/d/product/agents/jarvis?x=1", "/d/product/channels", "/d/product/channels/c1", "/d/product/runs/r1", "/d/product/figures"]) {
    const page = await get(address);
    expect(page.status, address).toBe(200);
    expect(page.body, address).toContain('<div id="root"></div>');
  }

  const root = PROJECT_ROOT;
  for (const attack of [
    "/.maestro/data/admin-key",
    "/.maestro/data/auth-secret",
    "/.maestro/data/wal.jsonl",
    "/.env",
    "/.git/config",
    "/package.json",
    "/convex/schema.ts",
    "/tools/local-backend/server.ts",
    "/..%2f.maestro/data/admin-key",
    "/..%2fpackage.json",
    "/%2e%2e/package.json",
    "/../package.json",
    "/src/../.maestro/data/admin-key",
    `/@fs${root}/.maestro/data/admin-key`,
    `/@fs${root}/package.json`,
    `/@fs${root}/convex/schema.ts`,
    `/@fs${root}/node_modules/../.maestro/data/admin-key`,
    `/@fs${root}/node_modules/.cache/x`,
    `/@fs${root}/src/..%2f.maestro/data/admin-key`,
    `/@id/${root}/package.json`,
    "/@fs/etc/passwd",
    "/main.tsx/../../package.json",
    "/no-such-page",
    "/d/product/unknown/x",
    "/d/product/figures/x",
    "/d/.env",
    "/d/product/tasks/.git",
    "/d/../package.json",
  ]) {
    const response = await get(attack);
    expect(response.status, attack).toBe(404);
    expect(response.body).not.toContain(SENTINEL);
  }
});

test("every module the app loads in dev mode is still served", async () => {
  // Walk the import graph from index.html as a browser would.
  const seen = new Set<string>();
  const queue = ["/"];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const { status, body } = await get(next);
    expect(status, next).toBe(200);
    for (const match of body.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|src=)["'](\/[^"']+)["']/g)) {
      if (!seen.has(match[1])) queue.push(match[1]);
    }
  }
  const visited = [...seen];
  expect(visited).toContain("/main.tsx");
  expect(visited.some((u) => u.startsWith(`/@fs${PROJECT_ROOT}/convex/_generated/`))).toBe(true);
  expect(visited.some((u) => u.startsWith(`/@fs${PROJECT_ROOT}/node_modules/.vite/deps/`))).toBe(true);
});

test("a browser opening an unknown address gets the app's page with a 404 (its own Page not found); files and dot paths a plain 404", async () => {
  const html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
  for (const address of ["/no-such-page", "/d/product/unknown/x", "/d/product/figures/x"]) {
    const page = await get(address, undefined, html);
    expect(page.status, address).toBe(404);
    expect(page.body, address).toContain('<div id="root"></div>');
  }
  // The new addresses are the app's own pages.
  for (const address of ["/d/product/settings", "/d/product/settings/retention", "/d/product/members", "/d/product/account", "/account"]) {
    const page = await get(address);
    expect(page.status, address).toBe(200);
    expect(page.body, address).toContain('<div id="root"></div>');
  }
  for (const attack of ["/.env", "/package.json", "/.maestro/data/admin-key", "/%2e%2e/package.json", "/d/product/tasks/.git", "/..%2fpackage.json"]) {
    const response = await get(attack, undefined, html);
    expect(response.status, attack).toBe(404);
    expect(response.body, attack).not.toContain(SENTINEL);
    expect(response.body, attack).not.toContain('<div id="root">');
  }
  expect(wantsAppPage("GET", "/nowhere?x=1", html)).toBe(true);
  expect(wantsAppPage("POST", "/nowhere", html)).toBe(false);
  expect(wantsAppPage("GET", "/nowhere", "*/*")).toBe(false);
  expect(wantsAppPage("GET", "/@id/x", html)).toBe(false);
});

test("a Host outside the allowlist is refused by the dev server", async () => {
  expect((await get("/", "evil.example")).status).toBe(403);
  expect((await get("/", "localhost")).status).toBe(200);
});

test("the guard's rules on their own", () => {
  const paths = servedPaths("/p/.hidden/maestro");
  // The project may itself live under a dot folder: only the part inside the served folders counts.
  expect(isServable("/@fs/p/.hidden/maestro/src/main.tsx?t=1", paths)).toBe(true);
  expect(isServable("/@fs/p/.hidden/maestro/node_modules/.vite/deps/react.js?v=1", paths)).toBe(true);
  expect(isServable("/@fs/p/.hidden/maestro/node_modules/vite/dist/client/env.mjs", paths)).toBe(true);
  expect(isServable("/@fs/p/.hidden/maestro/.maestro/data/admin-key", paths)).toBe(false);
  expect(isServable("/@fs/p/.hidden/maestro/convex/http.ts", paths)).toBe(false);
  expect(isServable("/@fs/p/.hidden/maestro/node_modules/.bin/tsx", paths)).toBe(false);
  expect(isServable("/%E0%A4%A", paths)).toBe(false);
  expect(isServable("/a%00b", paths)).toBe(false);
  expect(isServable("/.well-known/x", paths)).toBe(false);
  expect(isServable("/assets/app.js", paths)).toBe(true);
});
