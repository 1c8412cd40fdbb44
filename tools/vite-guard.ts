/**
 * What the Vite dev server may serve. Its root is `src/`, so the project
 * root (the data folder with the admin key, `.env`, `package.json`,
 * `convex/`) is outside it; this plugin also answers 404, before Vite looks,
 * for any dot-segment path and for `/@fs/` paths outside the folders the app
 * really loads from. Vite's own `server.fs.allow` gets the same list.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";
import { isAppPath } from "../src/shell/addresses.ts";

export interface ServedPaths {
  /** Vite's root: the app's source, with index.html. */
  root: string;
  publicDir: string;
  /** Vite's dependency cache (`node_modules/.vite`), the one dot folder the browser loads from. */
  cacheDir: string;
  outDir: string;
  /** Everything `/@fs/` may reach. */
  allow: string[];
}

export function servedPaths(projectRoot: string): ServedPaths {
  const at = (...parts: string[]) => path.join(projectRoot, ...parts);
  // Vite names a linked node_modules (a shared install, a worktree) by its real path.
  const modules = [...new Set([at("node_modules"), realPath(at("node_modules"))])];
  return {
    root: at("src"),
    publicDir: at("public"),
    cacheDir: at("node_modules", ".vite"),
    outDir: at("dist"),
    // The app imports the generated API and a few pure helpers from convex/; nothing else there is served.
    allow: [at("src"), at("public"), ...modules, at("convex", "_generated"), at("convex", "lib")],
  };
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** Whether a dev-server request URL may reach Vite at all. */
export function isServable(url: string, paths: ServedPaths): boolean {
  const rawPath = url.split(/[?#]/, 1)[0];
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return false;
  }
  if (decoded.includes("\0")) return false;
  const segments = (p: string) => p.split(/[/\\]/).filter((s) => s !== "");
  // `.` and `..` are never needed; an encoded slash must not smuggle one in either.
  if (segments(decoded).some((s) => s === "." || s === "..")) return false;
  if (!decoded.startsWith("/@fs/")) return !segments(decoded).some((s) => s.startsWith("."));
  const file = path.resolve(decoded.slice("/@fs".length));
  const inside = (dir: string) => {
    const rel = path.relative(dir, file);
    return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : null;
  };
  const cached = inside(paths.cacheDir);
  if (cached !== null) return !segments(cached).some((s) => s.startsWith("."));
  for (const dir of paths.allow) {
    const rel = inside(dir);
    if (rel !== null) return !segments(rel).some((s) => s.startsWith("."));
  }
  return false;
}

/**
 * Whether a refused request is a person's browser opening an address (a GET
 * for HTML of a path that names no file): it gets the app's page with a 404,
 * so the app says "Page not found" with a way back instead of the browser's
 * bare error. Scripts, files and dot paths keep the plain 404.
 */
export function wantsAppPage(method: string | undefined, url: string, accept: string | undefined): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  if (!(accept ?? "").includes("text/html")) return false;
  const rawPath = url.split(/[?#]/, 1)[0];
  if (rawPath.startsWith("/@")) return false;
  const segments = rawPath.split("/").filter((segment) => segment !== "");
  return !segments.some((segment) => segment.startsWith(".") || segment.startsWith("%2")) && !(segments.at(-1) ?? "").includes(".");
}

type Request = { url?: string; method?: string; headers: Record<string, string | string[] | undefined> };
type Response = { statusCode: number; setHeader(n: string, v: string): void; end(b: string): void };

export function devServerGuard(paths: ServedPaths): Plugin {
  const guard = (req: Request, res: Response, next: () => void) => {
    // The app's own addresses (src/shell/addresses.ts) get the app's page; every other unknown path stays a 404.
    if (isAppPath((req.url ?? "/").split(/[?#]/, 1)[0])) {
      req.url = "/index.html";
      return next();
    }
    if (isServable(req.url ?? "/", paths)) return next();
    notFound(res);
  };
  // After Vite's own middlewares found no file: a browser opening an address gets the app's page, with a 404.
  const fallback = (appPage: (url: string) => Promise<string>) => (req: Request, res: Response, next: () => void) => {
    const url = req.url ?? "/";
    const pathname = url.split(/[?#]/, 1)[0];
    const accept = req.headers.accept;
    if (pathname === "/" || pathname === "/index.html" || !wantsAppPage(req.method, url, Array.isArray(accept) ? accept.join(",") : accept)) return next();
    appPage(url).then(
      (html) => {
        res.statusCode = 404;
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.end(html);
      },
      () => notFound(res),
    );
  };
  return {
    name: "maestro-dev-server-guard",
    // The guard is added here, not in a returned hook, so it runs before Vite's own middlewares; the fallback after them.
    configureServer(server) {
      server.middlewares.use(guard);
      return () => server.middlewares.use(fallback((url) => server.transformIndexHtml(url, readFileSync(path.join(paths.root, "index.html"), "utf8"))));
    },
    configurePreviewServer(server) {
      server.middlewares.use(guard);
      // npm start builds into a folder of its own: the page is wherever this preview serves from.
      const outDir = path.resolve(server.config.root, server.config.build.outDir);
      return () => server.middlewares.use(fallback(() => Promise.resolve(readFileSync(path.join(outDir, "index.html"), "utf8"))));
    },
  };
}

function notFound(res: Response): void {
  res.statusCode = 404;
  res.setHeader("Content-Type", "text/plain");
  res.end("Not found");
}
