/**
 * `npm run eval -- [--model NAME]… [--only ID|KIND]… [--out FILE] [--concurrency N]
 *                  [--report-to URL --department SLUG [--admin-key-file FILE]]`
 *
 * Runs the delegation scenarios (tools/eval/scenarios/) against each model,
 * through the product's own run path (runner.ts), prints the table and
 * writes the JSON (default .maestro/eval/<date>-<models>.json). The model
 * server is the one the app uses: OPENAI_BASE_URL / OPENAI_API_KEY; with
 * neither set, the offline demo model. `--model` defaults to
 * MAESTRO_DEFAULT_MODEL (or the demo model). `--report-to` stores the
 * result in a running Maestro for the department's admins to see on its
 * Figures page (evals.record, called with that deployment's admin key).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { modelConfigFromEnv } from "../../convex/lib/modelConfig";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL, startDemoModel, type DemoModel } from "../demo-model/server";
import { loadScenarios } from "./scenarioFiles";
import { runSuite, type SuiteResult } from "./runner";
import { report, summarize } from "./score";
import { storeResult, type EvalResult } from "./result";

const { values } = parseArgs({
  options: {
    model: { type: "string", multiple: true },
    only: { type: "string", multiple: true },
    out: { type: "string" },
    concurrency: { type: "string" },
    "report-to": { type: "string" },
    department: { type: "string" },
    "admin-key-file": { type: "string" },
    quiet: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
  },
});

const projectRoot = path.resolve(import.meta.dirname, "../..");
// Functions run in this process (the backend is in-process, as in npm start) and read the model settings from process.env.
let demo: DemoModel | null = null;
let server: string;
if (modelConfigFromEnv(process.env) === null) {
  demo = await startDemoModel();
  Object.assign(process.env, { OPENAI_BASE_URL: demo.baseURL, OPENAI_API_KEY: "demo", MAESTRO_DEFAULT_MODEL: DEMO_MODEL_ID });
  server = DEMO_MODEL_LABEL;
} else {
  server = (process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/^(https?:\/\/)[^/@]*@/i, "$1");
}
const models = values.model ?? [modelConfigFromEnv(process.env)!.defaultModel];
const scenarios = loadScenarios(undefined, values.only ?? []);
if (scenarios.length === 0) {
  console.error(`No scenario matches ${values.only?.join(", ")}.`);
  process.exit(2);
}
const concurrency = Number(values.concurrency ?? 4);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
  console.error("--concurrency takes a whole number from 1 to 16 (scenarios run at once).");
  process.exit(2);
}
if (models.some((m) => m.trim() === "")) {
  console.error("--model takes a model's name, as the server knows it (e.g. gpt-4o-mini, llama3.1).");
  process.exit(2);
}
const log = values.quiet ? () => {} : (line: string) => console.error(`[eval] ${line}`);
log(`${scenarios.length} scenario(s) × ${models.length} model(s) at ${server}`);

// The backend runs in this process: what its functions log (each run's steps, sign-in) would bury the
// table, so while the suites run it is dropped (--verbose keeps it).
const quietFunctions = () => {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  if (!values.verbose) console.log = console.info = console.debug = () => {};
  return () => Object.assign(console, saved);
};

const started = Date.now();
const suites: SuiteResult[] = [];
const restoreConsole = quietFunctions();
try {
  for (const model of models) {
    suites.push(await runSuite({ scenarios, model, concurrency, log }));
  }
} finally {
  restoreConsole();
  await demo?.close();
}
const summaries = suites.map((s) => summarize(s.model, s.verdicts, s.wallMs));
const result: EvalResult = {
  ranAt: started,
  server,
  wallMs: Date.now() - started,
  models: summaries,
  scenarios: scenarios.map((scenario) => ({
    id: scenario.id,
    kind: scenario.kind,
    about: scenario.about,
    verdicts: suites.map((suite) => ({ model: suite.model, ...suite.verdicts.find((v) => v.id === scenario.id)! })),
  })),
};

console.log(report(summaries, new Map(suites.map((s) => [s.model, s.verdicts]))));
const date = new Date(started).toISOString().slice(0, 19).replace(/:/g, "-");
const out = path.resolve(values.out ?? path.join(projectRoot, ".maestro", "eval", `${date}-${models.map((m) => m.replace(/[^\w.-]+/g, "_")).join("+")}.json`));
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`\nWritten to ${path.relative(process.cwd(), out) || out} (${(result.wallMs / 1000).toFixed(1)} s in all).`);

if (values["report-to"] !== undefined) {
  if (values.department === undefined) {
    console.error("--report-to needs --department <slug>: the department whose admins see the result.");
    process.exit(2);
  }
  const keyFile = values["admin-key-file"] ?? path.join(projectRoot, ".maestro", "data", "admin-key");
  await storeResult(values["report-to"], process.env.MAESTRO_ADMIN_KEY ?? readFileSync(keyFile, "utf8").trim(), values.department, result);
  console.log(`Stored for the admins of ${values.department} at ${values["report-to"]} (Figures page).`);
}
