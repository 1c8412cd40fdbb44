import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { codegen, writeComponents } from "../../tools/codegen";
import { discoverComponents } from "../../tools/local-backend/modules";
import { COMPONENT_PATHS } from "../convex/components";
import { PROJECT_ROOT } from "./helpers";

const GENERATED = path.join(PROJECT_ROOT, "convex", "_generated");
const CACHE = path.join(PROJECT_ROOT, "node_modules", ".cache");

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(CACHE, prefix));
  dirs.push(dir);
  return dir;
}

const RATE_LIMITER_TYPE =
  '"rateLimiter": import("@convex-dev/rate-limiter/_generated/component.js").ComponentApi<"rateLimiter">;';
const PRESENCE_TYPE = '"presence": import("@convex-dev/presence/_generated/component.js").ComponentApi<"presence">;';

test("codegen exports the installed components, the same on every run", async () => {
  const installed = await codegen(PROJECT_ROOT);
  expect(installed.map((c) => c.name)).toEqual(["rateLimiter", "presence"]);
  const js = readFileSync(path.join(GENERATED, "api.js"), "utf8");
  const dts = readFileSync(path.join(GENERATED, "api.d.ts"), "utf8");
  expect(js).toContain('import { anyApi, componentsGeneric } from "convex/server";');
  expect(js.match(/export const components = componentsGeneric\(\);/g)).toHaveLength(1);
  expect(dts).toContain(`export declare const components: {\n  ${RATE_LIMITER_TYPE}\n  ${PRESENCE_TYPE}\n};`);

  await codegen(PROJECT_ROOT);
  expect(readFileSync(path.join(GENERATED, "api.js"), "utf8")).toBe(js);
  expect(readFileSync(path.join(GENERATED, "api.d.ts"), "utf8")).toBe(dts);
}, 120_000);

test("convex-test registers the components the offline backend finds in convex.config.ts", async () => {
  const found = await discoverComponents(path.join(PROJECT_ROOT, "convex"), scratchDir("maestro-discover-"));
  expect(found.map((c) => c.path)).toEqual([...COMPONENT_PATHS]);
});

test("writeComponents replaces a previous components export and removes it when none is installed", () => {
  const dir = scratchDir("maestro-generated-");
  const plainJs = 'import { anyApi } from "convex/server";\n\nexport const api = anyApi;\nexport const internal = anyApi;\n';
  const plainDts = "export declare const api: any;\n";
  writeFileSync(path.join(dir, "api.js"), plainJs);
  writeFileSync(path.join(dir, "api.d.ts"), plainDts);
  const component = (name: string) => ({
    path: name,
    name,
    dir: `/x/node_modules/@acme/${name}/dist/component`,
    specifier: `@acme/${name}/convex.config`,
    parent: "",
  });

  writeComponents(dir, [component("first")]);
  writeComponents(dir, [component("second")]);
  const dts = readFileSync(path.join(dir, "api.d.ts"), "utf8");
  expect(dts).not.toContain("first");
  expect(dts).toContain('"second": import("@acme/second/_generated/component.js").ComponentApi<"second">;');

  writeComponents(dir, []);
  expect(readFileSync(path.join(dir, "api.js"), "utf8").trim()).toBe(plainJs.trim());
  expect(readFileSync(path.join(dir, "api.d.ts"), "utf8").trim()).toBe(plainDts.trim());
});

test("convex/ typechecks a use of components.rateLimiter, and a misuse fails", async () => {
  await codegen(PROJECT_ROOT);
  const dir = scratchDir("maestro-typecheck-");
  const api = path.relative(dir, path.join(GENERATED, "api")).split(path.sep).join("/");
  const typecheck = (body: string) => {
    writeFileSync(
      path.join(dir, "use.ts"),
      `import { RateLimiter } from "@convex-dev/rate-limiter";\nimport { components } from "${api}";\n${body}\n`,
    );
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: path.join(PROJECT_ROOT, "convex", "tsconfig.json"), include: ["./use.ts"], exclude: [] }),
    );
    try {
      execFileSync(path.join(PROJECT_ROOT, "node_modules", ".bin", "tsc"), ["-p", dir, "--noEmit"], { encoding: "utf8" });
      return "";
    } catch (error) {
      return String((error as { stdout?: string }).stdout);
    }
  };
  expect(typecheck('export const limiter = new RateLimiter(components.rateLimiter, { a: { kind: "token bucket", rate: 1, period: 1000 } });')).toBe("");
  expect(typecheck("export const wrong = components.notInstalled;")).toContain("notInstalled");
}, 180_000);
