/**
 * The secret scanner needs nothing but the language: bundled for a neutral
 * platform (as Convex bundles its default-runtime modules, any Node built-in
 * refused) and evaluated in a bare `vm` context — no `process`, `require`,
 * `Buffer`, `performance`, `atob` or `TextEncoder` — it redacts exactly as it
 * does in Node, also with Convex's frozen `Date.now()`.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { build } from "esbuild";
import { beforeAll, expect, test } from "vitest";
import { redactSecrets, ruleScanner, type RedactionResult } from "../../convex/lib/secrets/index";
import { parseNegatives, parsePositives } from "../fixtures/secrets/corpus";
import { PROJECT_ROOT } from "./helpers";

const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const fixture = (name: string) => readFileSync(path.join(PROJECT_ROOT, "tests/fixtures/secrets", name), "utf8");

let bundle = "";

beforeAll(async () => {
  const result = await build({
    entryPoints: [path.join(PROJECT_ROOT, "convex/lib/secrets/index.ts")],
    bundle: true,
    write: false,
    platform: "neutral",
    format: "iife",
    globalName: "MaestroSecrets",
    target: "es2022",
    logLevel: "silent",
    plugins: [
      {
        name: "refuse-node-builtins",
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => (NODE_BUILTINS.has(args.path) ? { errors: [{ text: `imports the Node built-in "${args.path}"` }] } : undefined));
        },
      },
    ],
  });
  bundle = result.outputFiles[0].text;
});

/** A fresh bare context with the scanner loaded; `prelude` runs first (to patch globals). */
function bareContext(prelude = ""): vm.Context {
  const context = vm.createContext({});
  vm.runInContext(prelude, context);
  vm.runInContext(bundle, context, { filename: "secrets.bundle.js" });
  return context;
}

/** Redactions of `texts` computed inside `context`, copied out as plain data. */
function redactInside(context: vm.Context, texts: readonly string[]): RedactionResult[] {
  context.input = JSON.stringify(texts);
  const output = vm.runInContext(
    "JSON.stringify(JSON.parse(input).map((text) => MaestroSecrets.redactSecrets(text, MaestroSecrets.ruleScanner, { timeoutMs: 800 })))",
    context,
  ) as string;
  return JSON.parse(output) as RedactionResult[];
}

test("the bundle imports nothing and the bare context has no host globals", () => {
  expect(bundle.length).toBeGreaterThan(0);
  expect(bundle).not.toMatch(/\brequire\(|\bimport\s*\(|^import\s/m);
  const context = bareContext();
  const globals = vm.runInContext(
    "JSON.stringify(['process', 'require', 'Buffer', 'performance', 'atob', 'TextEncoder', 'setTimeout'].map((name) => [name, typeof globalThis[name]]))",
    context,
  ) as string;
  expect(Object.fromEntries(JSON.parse(globals) as Array<[string, string]>)).toEqual({
    process: "undefined",
    require: "undefined",
    Buffer: "undefined",
    performance: "undefined",
    atob: "undefined",
    TextEncoder: "undefined",
    setTimeout: "undefined",
  });
});

test("inside the bare context a message with several secrets is redacted, the note appended once", () => {
  const text =
    "keys: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY and " +
    "postgres://app:N8v!q2Zr7xLp@db.internal/app, token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJlLWZha2U";
  const [inside] = redactInside(bareContext(), [text]);
  expect(inside).toEqual({
    text: "keys: [redacted] / [redacted] and postgres://app:[redacted]@db.internal/app, token [redacted] (Note: content redacted by scanner)",
    redacted: true,
    scannerError: false,
  });
});

test("inside the bare context the whole corpus redacts exactly as in Node", () => {
  const texts = [...parsePositives(fixture("positives.jsonl")), ...parseNegatives(fixture("negatives.jsonl"))].map((row) => row.text);
  const inside = redactInside(bareContext(), texts);
  const outside = texts.map((text) => redactSecrets(text, ruleScanner, { timeoutMs: 800 }));
  expect(inside).toEqual(outside);
  expect(inside.some((result) => result.redacted)).toBe(true);
});

test("with Convex's frozen Date.now() and no performance, a scan never times out and still redacts", () => {
  const context = bareContext("const frozen = Date.now(); Date.now = () => frozen;");
  const [result] = redactInside(context, ["npm token npm_FAKE0123456789abcdefghijklmnopqrstuv"]);
  expect(result).toEqual({ text: "npm token [redacted] (Note: content redacted by scanner)", redacted: true, scannerError: false });
});

test("inside the bare context scanUserText cuts, redacts disguised secrets and fails open without a console", () => {
  const context = bareContext("const frozen = Date.now(); Date.now = () => frozen;");
  context.input = JSON.stringify(["pass\u200bword=hunter2 and %41KIAIOSFODNN7EXAMPLE " + "x".repeat(200)]);
  const output = vm.runInContext(
    `const text = JSON.parse(input)[0];
     const broken = { name: "broken", scan: () => { throw new Error("boom"); } };
     JSON.stringify([
       MaestroSecrets.scanUserText(text, { maxChars: 100, enabled: true, timeoutMs: 800 }),
       MaestroSecrets.scanUserText("short", { maxChars: 100, enabled: true, timeoutMs: 800, scanner: broken }),
     ])`,
    context,
  ) as string;
  expect(JSON.parse(output)).toEqual([
    {
      text: `pass\u200bword=[redacted] and [redacted] ${"x".repeat(100 - 14 - 45)} … [truncated] (Note: content redacted by scanner)`,
      truncated: true,
      redacted: true,
      scannerError: false,
    },
    { text: "short", truncated: false, redacted: false, scannerError: true, error: "Error: boom" },
  ]);
});
