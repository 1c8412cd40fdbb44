/**
 * Disk a backend leaves behind: its functions' build folder (and `npm
 * start`'s built app) goes at a clean stop, and what a `kill -9` left goes
 * at the next start; the folders of backends still running stay, whoever
 * started them.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterEach, expect, test } from "vitest";
import { BUILD_PREFIX, buildsFolder } from "../../tools/local-backend/functionCode";
import { freePort } from "../browser/stack";
import { FIXTURE_CONVEX_DIR, PROJECT_ROOT, startTestBackend } from "./helpers";
import { spawnedBackends } from "./lifecycle";
import { killHard, stopGracefully } from "./process";

const backends = spawnedBackends();
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const builds = buildsFolder(PROJECT_ROOT);

/** Entries of `folder` that process `pid` owns under `prefix`. */
function ownedBy(folder: string, prefix: string, pid: number | undefined): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).filter((name) => name.startsWith(`${prefix}${pid}-`));
}

/** The id of a process that has exited (so no process runs under it, until the system reuses it). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid!;
}

/** A folder as a backend builds it, with a file inside; removed after the test whatever happens. */
function plantFolder(parent: string, name: string): string {
  const dir = path.join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "tasks.mjs"), "export {};\n");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the backend: its build goes at a clean stop; a kill -9 leaves it, and the next start prunes it; a running process's build stays", async () => {
  mkdirSync(builds, { recursive: true });
  const orphan = plantFolder(builds, `${BUILD_PREFIX}${deadPid()}-0rphan00`);
  // This test's own process runs: its folder is not an orphan, whatever it holds.
  const alive = plantFolder(builds, `${BUILD_PREFIX}${process.pid}-a1ive000`);

  const first = await backends.spawn({ dataDir: backends.dataDir() });
  expect(ownedBy(builds, BUILD_PREFIX, first.child.pid)).toHaveLength(1);
  expect(existsSync(orphan)).toBe(false);
  expect(existsSync(alive)).toBe(true);

  await killHard(first);
  expect(ownedBy(builds, BUILD_PREFIX, first.child.pid)).toHaveLength(1);

  const second = await backends.spawn({ dataDir: backends.dataDir() });
  expect(ownedBy(builds, BUILD_PREFIX, first.child.pid)).toEqual([]);
  expect(ownedBy(builds, BUILD_PREFIX, second.child.pid)).toHaveLength(1);
  expect(existsSync(alive)).toBe(true);

  await stopGracefully(second);
  expect([second.child.exitCode, second.child.signalCode]).toEqual([0, null]);
  expect(ownedBy(builds, BUILD_PREFIX, second.child.pid)).toEqual([]);
});

/** `npm start`'s server (node itself, tsx only as a loader, so a signal reaches it directly) with its temporary folder at `tmp`; resolves once it serves. */
async function startApp(tmp: string, dataDir: string): Promise<ChildProcess> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TMPDIR: tmp,
    MAESTRO_API_PORT: String(await freePort()),
    MAESTRO_SITE_PORT: String(await freePort()),
    MAESTRO_WEBUI_PORT: String(await freePort()),
    MAESTRO_DATA_DIR: dataDir,
    MAESTRO_WATCH: "0",
    MAESTRO_WEBUI_PASSWORD: "build-folders-password",
    MAESTRO_CONFIG: path.join(dataDir, "none.json"),
    VITE_CLERK_PUBLISHABLE_KEY: "",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    NO_COLOR: "1",
  };
  const child = spawn(process.execPath, ["--import", "tsx", "tools/start.ts"], { cwd: PROJECT_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => void child.kill("SIGKILL"));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not serve:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("MAESTRO_READY")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return child;
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

test("npm start: kill -9 leaves the built app and the functions' build; the next start prunes both, and its SIGTERM leaves nothing", { timeout: 240_000 }, async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "maestro-build-folders-"));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-build-folders-data-"));
  cleanups.push(() => {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const appBuilds = (pid: number | undefined) => ownedBy(tmp, "maestro-app-", pid);

  const first = await startApp(tmp, dataDir);
  expect(appBuilds(first.pid)).toHaveLength(1);
  expect(ownedBy(builds, BUILD_PREFIX, first.pid)).toHaveLength(1);
  await exited(first, "SIGKILL");
  expect(appBuilds(first.pid)).toHaveLength(1);

  const second = await startApp(tmp, dataDir);
  expect(appBuilds(first.pid)).toEqual([]);
  expect(ownedBy(builds, BUILD_PREFIX, first.pid)).toEqual([]);
  expect(appBuilds(second.pid)).toHaveLength(1);

  // SIGTERM, as a service manager or a container stops it (Vite's own handler exits the process at once).
  await exited(second, "SIGTERM");
  expect(readdirSync(tmp).filter((name) => name.startsWith("maestro-"))).toEqual([]);
  expect(ownedBy(builds, BUILD_PREFIX, second.pid)).toEqual([]);
});

test("hot reload: each build of convex/ that takes over removes the one it supersedes, a refused build leaves at once, and the new functions run", { timeout: 120_000 }, async () => {
  const convexDir = path.join(mkdtempSync(path.join(os.tmpdir(), "maestro-reload-builds-")), "convex");
  cpSync(FIXTURE_CONVEX_DIR, convexDir, { recursive: true });
  cleanups.push(() => rmSync(path.dirname(convexDir), { recursive: true, force: true }));
  const backend = await startTestBackend({ convexDir });
  cleanups.push(() => backend.stop());
  const folder = backend.engine.buildFolder;
  const generations = () => readdirSync(folder).filter((name) => /^[0-9]+$/.test(name));
  expect(generations()).toEqual(["1"]);

  const notesFile = path.join(convexDir, "notes.ts");
  const original = readFileSync(notesFile, "utf8");
  for (let edit = 1; edit <= 4; edit++) {
    writeFileSync(notesFile, original.replace("(await ctx.db.query(\"notes\").collect()).length", `\`edit ${edit}: \${(await ctx.db.query("notes").collect()).length}\``));
    expect(await backend.engine.reload()).toBeNull();
    expect(generations()).toEqual([String(edit + 1)]);
  }
  const client = new ConvexHttpClient(backend.url);
  expect(await client.query(anyApi.notes.countAll, {})).toBe("edit 4: 0");

  // A build that does not compile, and one whose schema the data breaks: neither runs, neither stays.
  writeFileSync(notesFile, `${original}\nexport const broken = ;\n`);
  expect(await backend.engine.reload()).toMatch(/^Build failed/);
  expect(generations()).toEqual(["5"]);
  writeFileSync(notesFile, original);
  await client.mutation(anyApi.notes.add, { channel: "reload", body: "a string" });
  const schemaFile = path.join(convexDir, "schema.ts");
  writeFileSync(schemaFile, readFileSync(schemaFile, "utf8").replace("body: v.string()", "body: v.number()"));
  expect(await backend.engine.reload()).toMatch(/^Schema validation failed/);
  expect(generations()).toEqual(["5"]);
  expect(await client.query(anyApi.notes.countAll, {})).toBe("edit 4: 1");
  // Nothing else piles up beside the builds: convex.config's evaluations go once read.
  expect(readdirSync(folder).filter((name) => !/^[0-9]+$/.test(name) && name !== "components")).toEqual([]);
});
