import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { FIXTURE_CONVEX_DIR, PROJECT_ROOT } from "./helpers";

export interface BackendProcess {
  child: ChildProcess;
  url: string;
  siteUrl: string;
  /** Read from the file the READY line names (the key itself is never printed). */
  adminKey: string;
  adminKeyFile: string;
  output: string[];
}

/** Starts the backend CLI as its own process (so a test can SIGKILL it) and waits until it serves. */
export function spawnBackend(options: {
  dataDir: string;
  port?: number;
  /** Defaults to the conformance fixture app. */
  convexDir?: string;
  /** Extra environment for the backend (its functions read process.env). */
  env?: Record<string, string>;
  /** The checkout whose backend runs (default this one): a benchmark compares another, e.g. main's, with it. */
  projectRoot?: string;
  /** How long to wait for it to serve (default 60 s): a benchmark starting it from a big data folder on a busy machine waits longer. */
  readyTimeoutMs?: number;
}): Promise<BackendProcess> {
  // Node itself runs the server (tsx only as a loader), so SIGKILL hits the server, not a wrapper.
  const child = spawn(
    process.execPath,
    [
      // e.g. MAESTRO_BACKEND_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the backend during a bench.
      ...(process.env.MAESTRO_BACKEND_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== ""),
      "--import",
      "tsx",
      "tools/local-backend/cli.ts",
      "--port",
      String(options.port ?? 0),
      "--site-port",
      "0",
      "--data-dir",
      options.dataDir,
      "--convex-dir",
      options.convexDir ?? FIXTURE_CONVEX_DIR,
      "--no-watch",
    ],
    { cwd: options.projectRoot ?? PROJECT_ROOT, env: { ...process.env, MAESTRO_WEBUI_PASSWORD: "test-password", ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Backend did not start:\n${output.join("")}`)), options.readyTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      const match = /MAESTRO_BACKEND_READY (.*)/.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        const ready = JSON.parse(match[1]) as { url: string; siteUrl: string; adminKeyFile: string };
        resolve({ child, output, ...ready, adminKey: readFileSync(ready.adminKeyFile, "utf8").trim() });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Backend exited (${code ?? signal}) before it was ready:\n${output.join("")}`));
    });
  });
}

export function killHard(backend: BackendProcess): Promise<void> {
  return new Promise((resolve) => {
    if (backend.child.exitCode !== null || backend.child.signalCode !== null) return resolve();
    backend.child.once("exit", () => resolve());
    backend.child.kill("SIGKILL");
  });
}

export function stopGracefully(backend: BackendProcess): Promise<void> {
  return new Promise((resolve) => {
    if (backend.child.exitCode !== null || backend.child.signalCode !== null) return resolve();
    backend.child.once("exit", () => resolve());
    backend.child.kill("SIGTERM");
  });
}
