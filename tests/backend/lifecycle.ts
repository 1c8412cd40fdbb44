/**
 * Set-up and clean-up the backend tests share that hook into vitest. Kept out
 * of helpers.ts, process.ts and scriptedModel.ts, which the benchmarks
 * import outside vitest.
 */
import { rmSync } from "node:fs";
import { afterEach, vi } from "vitest";
import { startTestBackend, tempDataDir } from "./helpers";
import { killHard, spawnBackend, type BackendProcess } from "./process";

/**
 * Backends run as their own processes (so a test can SIGKILL them) over
 * temporary data folders: after each test of the file (or describe) that
 * calls this, every backend `spawn` started is killed and every folder
 * `dataDir` made is removed.
 */
export function spawnedBackends() {
  const running: BackendProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map(killHard));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** A fresh data folder, removed after the test. */
    dataDir(): string {
      const dir = tempDataDir();
      dirs.push(dir);
      return dir;
    },
    /** `spawnBackend`, killed after the test. */
    async spawn(options: Parameters<typeof spawnBackend>[0]): Promise<BackendProcess> {
      const backend = await spawnBackend(options);
      running.push(backend);
      return backend;
    },
  };
}

/**
 * Backends in this process (`startTestBackend`): after each test of the file
 * (or describe) that calls this, every backend the returned function started
 * is stopped, the last first (with the data folder it made, as `stop` does).
 */
export function startedBackends() {
  const started: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    for (const backend of started.splice(0).reverse()) await backend.stop();
  });
  return async function backend(overrides: Parameters<typeof startTestBackend>[0] = {}) {
    const b = await startTestBackend(overrides);
    started.push(b);
    return b;
  };
}

/** Keeps each `console.log` line of this process (an in-process backend's function logs among them) in `lines`, and still prints it. */
export function recordConsoleLog(lines: string[]) {
  const realLog = console.log;
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
    realLog(...args);
  });
}
