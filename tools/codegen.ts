/**
 * `npm run codegen`: Convex's own codegen, plus the `components` export it
 * leaves out when it runs offline. Typed component APIs normally come from a
 * deployment's analysis of `convex/convex.config.ts`; here the config is
 * evaluated locally (as the offline backend does) and `components` is written
 * in the form `npx convex dev` writes it, importing each installed
 * component's own `ComponentApi` type. It also bundles the global slash
 * commands (commands/*.md, tools/commandsModule.ts). Safe to run any number of times.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { discoverComponents, type InstalledComponent } from "./local-backend/modules.js";
import { writeCommandsModule } from "./commandsModule.js";

const COMPONENTS_JS = /\nexport const components = componentsGeneric\(\);\n?$/;
const COMPONENTS_DTS = /\nexport declare const components: \{[\s\S]*$/;

/** Runs Convex's codegen for `projectRoot`, then adds the components it installs. */
export async function codegen(projectRoot: string): Promise<InstalledComponent[]> {
  // First: the slash-command module is a convex/ source file like any other.
  writeCommandsModule(projectRoot);
  const convexBin = path.join(projectRoot, "node_modules", ".bin", "convex");
  execFileSync(convexBin, ["codegen", "--system-udfs", "--typecheck", "disable"], { cwd: projectRoot, stdio: "inherit" });
  const convexDir = path.join(projectRoot, "convex");
  const scratch = path.join(projectRoot, "node_modules", ".cache", `maestro-codegen-${process.pid}`);
  try {
    const installed = (await discoverComponents(convexDir, scratch)).filter((component) => component.parent === "");
    writeComponents(path.join(convexDir, "_generated"), installed);
    return installed;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Rewrites `api.js` / `api.d.ts` in `generatedDir` to export exactly `installed`. */
export function writeComponents(generatedDir: string, installed: InstalledComponent[]) {
  const jsFile = path.join(generatedDir, "api.js");
  const dtsFile = path.join(generatedDir, "api.d.ts");
  let js = readFileSync(jsFile, "utf8").replace(COMPONENTS_JS, "\n");
  let dts = readFileSync(dtsFile, "utf8").replace(COMPONENTS_DTS, "\n");
  if (installed.length > 0) {
    js = js.replace('import { anyApi } from "convex/server";', 'import { anyApi, componentsGeneric } from "convex/server";');
    if (!js.includes("componentsGeneric }")) throw new Error(`${jsFile} does not have the shape this script expects.`);
    js = `${js.trimEnd()}\nexport const components = componentsGeneric();\n`;
    const members = installed.map(
      (component) => `  ${JSON.stringify(component.name)}: import(${JSON.stringify(componentApiModule(generatedDir, component))}).ComponentApi<${JSON.stringify(component.name)}>;`,
    );
    dts = `${dts.trimEnd()}\n\nexport declare const components: {\n${members.join("\n")}\n};\n`;
  } else {
    js = js.replace('import { anyApi, componentsGeneric } from "convex/server";', 'import { anyApi } from "convex/server";');
  }
  writeIfChanged(jsFile, js);
  writeIfChanged(dtsFile, dts);
}

/**
 * Where a component's `ComponentApi` type lives: through the package's
 * `./_generated/component.js` export for an installed package, or by a
 * relative path for a component kept in the project.
 */
function componentApiModule(generatedDir: string, component: InstalledComponent): string {
  if (!component.specifier.startsWith(".") && !path.isAbsolute(component.specifier)) {
    return `${component.specifier.replace(/\/convex\.config(\.[jt]s)?$/, "")}/_generated/component.js`;
  }
  const relative = path.relative(generatedDir, path.join(component.dir, "_generated", "component.js")).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

function writeIfChanged(file: string, contents: string) {
  if (readFileSync(file, "utf8") !== contents) writeFileSync(file, contents);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const installed = await codegen(path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."));
  if (installed.length > 0) console.log(`codegen: components ${installed.map((c) => c.name).join(", ")}`);
}
