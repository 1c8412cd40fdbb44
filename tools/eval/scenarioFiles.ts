/**
 * The scenario files as the CLI and the tests read them: every *.json of
 * tools/eval/scenarios/, from the disk (Node only; the app reads the same
 * files bundled, tools/eval/bundled.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseScenario, pickScenarios, type Scenario } from "./scenario";

export const SCENARIO_DIR = path.resolve(import.meta.dirname, "scenarios");

/** Every scenario in `dir` (default tools/eval/scenarios), by file name; `only` keeps the ids or kinds it names. */
export function loadScenarios(dir = SCENARIO_DIR, only: readonly string[] = []): Scenario[] {
  const files = readdirSync(dir).filter((file) => file.endsWith(".json")).sort();
  return pickScenarios(
    files.map((file) => parseScenario(file.replace(/\.json$/, ""), JSON.parse(readFileSync(path.join(dir, file), "utf8")))),
    only,
  );
}
