/**
 * Maestro's JSON configuration: defaults, overridden by `maestro.config.json`
 * at the project root (or the file named by MAESTRO_CONFIG), overridden by
 * environment variables.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export interface MaestroConfig {
  chat: {
    enabled: boolean;
    limits: { maxMessageChars: number };
    scanner: { enabled: boolean; timeoutMs: number };
  };
  webui: { enabled: boolean; host: string; port: number; password: string };
}

export const DEFAULT_CONFIG: MaestroConfig = {
  chat: { enabled: true, limits: { maxMessageChars: 4096 }, scanner: { enabled: true, timeoutMs: 800 } },
  webui: { enabled: true, host: "localhost", port: 8080, password: "" },
};

/** Reads the configuration; a malformed file is an error, never silently ignored. */
export function loadConfig(projectRoot: string, env: NodeJS.ProcessEnv = process.env): MaestroConfig {
  const file = env.MAESTRO_CONFIG ?? path.join(projectRoot, "maestro.config.json");
  let fromFile: unknown = {};
  if (existsSync(file)) {
    try {
      fromFile = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const config = deepMerge(structuredClone(DEFAULT_CONFIG), fromFile) as MaestroConfig;
  // `webui.password` empty → MAESTRO_WEBUI_PASSWORD, as the chat spec says.
  if (config.webui.password === "" && env.MAESTRO_WEBUI_PASSWORD) config.webui.password = env.MAESTRO_WEBUI_PASSWORD;
  return config;
}

/** The WebUI password, or null when none is configured. */
export function webuiPassword(config: MaestroConfig): string | null {
  return config.webui.password === "" ? null : config.webui.password;
}

function deepMerge(target: unknown, source: unknown): unknown {
  if (!isPlainObject(target) || !isPlainObject(source)) return source === undefined ? target : source;
  for (const [key, value] of Object.entries(source)) {
    target[key] = key in target ? deepMerge(target[key], value) : value;
  }
  return target;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Names a browser may use for this machine without any configuration. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** A comma-separated environment list (MAESTRO_ALLOWED_HOSTS, MAESTRO_CORS_ORIGINS), blanks dropped. */
export function envList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * The host names the servers answer to: loopback, the configured bind host,
 * and MAESTRO_ALLOWED_HOSTS. A request naming any other host is refused, so a
 * web page cannot reach the servers through a DNS name rebound to 127.0.0.1.
 */
export function allowedHostnames(configured: Array<string | undefined>, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = [...LOOPBACK_HOSTS, ...configured, ...envList(env.MAESTRO_ALLOWED_HOSTS)];
  return [...new Set(names.filter((name): name is string => name !== undefined && name !== "").map(normalizeHostname))];
}

/** The hostname part of a Host header or list entry, lower-cased, port dropped, IPv6 in brackets. */
export function normalizeHostname(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  // A bare IPv6 address has more than one colon; `name:port` has one.
  if (value.split(":").length > 2) return `[${value}]`;
  return value.split(":")[0];
}

/** The origins the app is served from on `port`, allowed to call the API from a browser. */
export function appOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * The one line `npm start` prints when one of its ports is taken, naming the
 * variable that moves it (`ports` maps each variable to its port); null for
 * any other error.
 */
export function portInUseMessage(error: unknown, ports: Record<string, number>): string | null {
  if (!(error instanceof Error)) return null;
  const { code, port } = error as Error & { code?: unknown; port?: unknown };
  const taken = code === "EADDRINUSE" && typeof port === "number" ? port : Number(/Port (\d+) is already in use/.exec(error.message)?.[1] ?? NaN);
  if (!Number.isInteger(taken)) return null;
  const variable = Object.entries(ports).find(([, value]) => value === taken)?.[0];
  return variable === undefined
    ? `Port ${taken} is already in use (another Maestro, or another program): stop it or choose other ports.`
    : `Port ${taken} is already in use (another Maestro, or another program): stop it, or set ${variable} to a free port.`;
}
