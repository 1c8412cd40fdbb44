/**
 * Runs the whole `npm start` stack (offline backend, demo seed, Vite) as a
 * child process on free loopback ports and a throwaway data folder, for the
 * browser journeys. `npm test` runs `convex codegen` first, so this does not.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const READY_TIMEOUT_MS = 120_000;
const KILL_AFTER_MS = 5_000;

export interface Stack {
  /** The app (Vite) URL, e.g. http://127.0.0.1:41234/ */
  appUrl: string;
  /** The Convex API URL of the local backend. */
  url: string;
  /** HTTP actions URL of the local backend. */
  siteUrl: string;
  /** The throwaway data folder (holds `admin-key` once the backend is up); removed by `stop`. */
  dataDir: string;
  /** Everything the process printed so far (for failure messages). */
  output: () => string;
  /** SIGTERM (SIGKILL after 5 s), then removes the data folder. Safe to call twice. */
  stop: () => Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("Could not read a free port"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** Three distinct free ports (asked one after another, so the OS could repeat one). */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Signals the child's whole process group (tsx runs the script in a grandchild). */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    try {
      child.kill(sig);
    } catch {
      // Already gone.
    }
  }
}

/** Raised when a port picked as free was taken by someone else before the stack bound it. */
class PortTakenMeanwhile extends Error {}

const PORT_ATTEMPTS = 3;

/**
 * Ports are picked free and bound seconds later (the app's port only after the build), so on a
 * busy machine another test's connection can take one meanwhile: the stack then exits with its
 * "already in use" line, and it is started again on fresh ports.
 */
export async function startStack(options: { password: string; env?: Record<string, string> }): Promise<Stack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(options);
    } catch (error) {
      if (!(error instanceof PortTakenMeanwhile) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

async function startStackOnce(options: { password: string; env?: Record<string, string> }): Promise<Stack> {
  const [apiPort, sitePort, webuiPort] = await freePorts(3);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-browser-"));
  const chunks: string[] = [];
  const output = () => chunks.join("");

  const child = spawn(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), ["tools/start.ts"], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      MAESTRO_API_PORT: String(apiPort),
      MAESTRO_SITE_PORT: String(sitePort),
      MAESTRO_WEBUI_PORT: String(webuiPort),
      MAESTRO_DATA_DIR: dataDir,
      MAESTRO_WEBUI_PASSWORD: options.password,
      MAESTRO_WATCH: "0",
      // A developer's maestro.config.json (say, with its own password) must not leak in.
      MAESTRO_CONFIG: path.join(dataDir, "no-such-maestro.config.json"),
      // Vite reads these before .env files; never let a Clerk key switch the auth mode.
      VITE_CLERK_PUBLISHABLE_KEY: "",
      // A developer's own model settings must not leak in either: the journeys expect npm start's demo model.
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      NO_COLOR: "1",
      // The demo model answers at once in tests (npm start paces it so people can watch); a journey may pace it.
      MAESTRO_DEMO_PACE_MS: "0",
      // A journey that needs another model (a slow scripted one) names it here.
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stop() reaches tsx's child too
  });

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      if (!exited(child)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => signal(child, "SIGKILL"), KILL_AFTER_MS);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          signal(child, "SIGTERM");
        });
      }
      // Any straggler left in the group (if tsx died first) goes too.
      signal(child, "SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    const ready = await new Promise<{ appUrl: string; url: string; siteUrl: string }>((resolve, reject) => {
      let pending = "";
      const timer = setTimeout(
        () => reject(new Error(`npm start stack not ready within ${READY_TIMEOUT_MS / 1000} s. Output:\n${output()}`)),
        READY_TIMEOUT_MS,
      );
      child.stdout!.on("data", (chunk: Buffer) => {
        const text = chunk.toString();
        chunks.push(text);
        pending += text;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          const match = /^MAESTRO_READY (.*)$/.exec(line.trim());
          if (match === null) continue;
          clearTimeout(timer);
          try {
            resolve(JSON.parse(match[1]) as { appUrl: string; url: string; siteUrl: string });
          } catch (error) {
            reject(new Error(`Unreadable MAESTRO_READY line (${String(error)}). Output:\n${output()}`));
          }
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`Could not spawn the stack: ${error.message}`));
      });
      child.once("exit", async (code, sig) => {
        clearTimeout(timer);
        // The last lines may still be in the pipes when "exit" fires.
        await Promise.race([
          Promise.all([child.stdout!, child.stderr!].map((stream) => (stream.readableEnded ? null : new Promise((done) => stream.once("end", done))))),
          new Promise((done) => setTimeout(done, 1_000)),
        ]);
        const message = `npm start stack exited (${code ?? sig}) before it was ready. Output:\n${output()}`;
        reject(/is already in use/.test(output()) ? new PortTakenMeanwhile(message) : new Error(message));
      });
    });
    return { ...ready, dataDir, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
