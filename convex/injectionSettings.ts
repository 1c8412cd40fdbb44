/**
 * What a department's prompts do with the messages they inject (messaging
 * spec, "Prompt Injection Policy"): how long threads are summarised
 * (`extractive`, the offline default, or an OpenAI-compatible model with the
 * extractive summary as fallback; lib/summariser) and which PII rules apply
 * (lib/pii; all on by default). Every member reads them; owners and admins
 * change them. The model's key is write-only: no function returns it.
 */
import { v } from "convex/values";
import { departmentMutation, departmentQuery } from "./functions";
import { PII_KINDS } from "./lib/pii";
import { checkSummariser, checkSummariserKey } from "./lib/summariser";
import { hasSummariserKey, piiRulesOf, saveInjectionSettings, saveSummariserKey, summariserOf } from "./records/settings";
import { vPiiRules, vSummariserSetting } from "./validators";

const vRulesInForce = v.object({ email: v.boolean(), phone: v.boolean(), card: v.boolean(), iban: v.boolean() });

/** The department's summariser and PII rules, every rule spelled out; whether a model key is saved, never the key. */
export const get = departmentQuery({
  args: {},
  returns: v.object({ summariser: vSummariserSetting, pii: vRulesInForce, hasKey: v.boolean() }),
  handler: async (ctx, { departmentId }) => {
    const rules = await piiRulesOf(ctx, departmentId);
    const pii = { email: true, phone: true, card: true, iban: true };
    for (const kind of PII_KINDS) pii[kind] = rules[kind] !== false;
    return { summariser: await summariserOf(ctx, departmentId), pii, hasKey: await hasSummariserKey(ctx, departmentId) };
  },
});

/**
 * Owners and admins: replaces the summariser and the PII rules. `apiKey`
 * sets the model's key (null removes it; absent keeps it). A key is never
 * sent to a server it was not saved for: changing the model's base URL
 * without a new key removes the old one.
 */
export const update = departmentMutation({
  role: "admin",
  args: { summariser: vSummariserSetting, pii: vPiiRules, apiKey: v.optional(v.union(v.string(), v.null())) },
  returns: v.null(),
  handler: async (ctx, { departmentId, summariser, pii, apiKey }) => {
    const checked = checkSummariser(summariser);
    const key = apiKey === undefined || apiKey === null ? apiKey : checkSummariserKey(apiKey);
    const before = await summariserOf(ctx, departmentId);
    const sameServer = before.kind === "model" && checked.kind === "model" && before.baseUrl === checked.baseUrl;
    await saveInjectionSettings(ctx, departmentId, { summariser: checked, pii });
    if (key !== undefined) await saveSummariserKey(ctx, departmentId, key);
    else if (!sameServer) await saveSummariserKey(ctx, departmentId, null);
    return null;
  },
});
