/**
 * The delegation eval's result in the app: `npm run eval -- --report-to`
 * stores a run's result for a department with the deployment's admin key
 * (`record`, internal: no person or agent can call it), and everyone in
 * the department reads the newest on the Figures page (`latest`), as they
 * read its costs. The eval itself runs outside the deployment (tools/eval): it
 * needs throwaway departments on a backend of its own.
 */
import { v } from "convex/values";
import { internalMutation } from "./_generated/server";
import { departmentQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { evalResultProblem } from "./lib/evalResults";
import { departmentBySlug } from "./records/departments";
import { latestEvalResult, saveEvalResult } from "./records/evalResults";
import { redactForDepartment } from "./records/settings";
import { vEvalResult } from "./validators";

/** The department's newest eval result, or null before any. */
export const latest = departmentQuery({
  args: {},
  returns: v.union(vEvalResult, v.null()),
  handler: async (ctx, { departmentId }) => await latestEvalResult(ctx, departmentId),
});

/**
 * Stores an eval result as the department's newest (by slug, as the CLI
 * names it): bounded, and every text scanned for secrets under the
 * department's scanner setting, since models wrote the titles it quotes.
 */
export const record = internalMutation({
  args: { departmentSlug: v.string(), result: vEvalResult },
  returns: v.null(),
  handler: async (ctx, { departmentSlug, result }) => {
    const department = await departmentBySlug(ctx, departmentSlug);
    if (department === null) throw new MaestroError("NOT_FOUND", `No department has the slug ${departmentSlug}.`);
    const problem = evalResultProblem(result);
    if (problem !== null) throw new MaestroError("INVALID_ARGUMENT", problem);
    const scan = (text: string) => redactForDepartment(ctx, department._id, "eval result", text);
    const scenarios = [];
    for (const scenario of result.scenarios) {
      const verdicts = [];
      for (const verdict of scenario.verdicts) verdicts.push({ ...verdict, why: await Promise.all(verdict.why.map(scan)) });
      scenarios.push({ ...scenario, verdicts });
    }
    await saveEvalResult(ctx, department._id, { ...result, server: await scan(result.server), scenarios });
    return null;
  },
});
