import { DEFAULT_SUMMARY_TIMEOUT_MS, summariserProblems } from "../../convex/lib/summariser";
import type { SummariserSetting } from "../../convex/validators";

/** The PII rules (convex/lib/pii), with the words the settings use for them (`noun`: within a sentence). */
export const PII_RULES = [
  { key: "email", label: "E-mail addresses", noun: "e-mail addresses", hint: "name@example.com becomes [email]." },
  { key: "phone", label: "Phone numbers", noun: "phone numbers", hint: "With a country or area code, or 9 digits or more." },
  { key: "card", label: "Card numbers", noun: "card numbers", hint: "13 to 19 digits that pass the Luhn check." },
  { key: "iban", label: "IBANs", noun: "IBANs", hint: "Account numbers that pass the IBAN check." },
] as const;

export type PiiRuleKey = (typeof PII_RULES)[number]["key"];

/** The summariser form's fields as typed (the timeout as text). */
export type SummariserFields = { kind: SummariserSetting["kind"]; baseUrl: string; model: string; timeoutMs: string };

/** The form's fields for a saved setting; a model's fields start empty (with the default timeout) while extractive. */
export function summariserFields(setting: SummariserSetting): SummariserFields {
  return setting.kind === "model"
    ? { kind: "model", baseUrl: setting.baseUrl, model: setting.model, timeoutMs: String(setting.timeoutMs) }
    : { kind: "extractive", baseUrl: "", model: "", timeoutMs: String(DEFAULT_SUMMARY_TIMEOUT_MS) };
}

/** The setting the fields say, or what is wrong with each field, by the server's own rules (lib/summariser). */
export function summariserFromFields(fields: SummariserFields): { summariser: SummariserSetting } | { errors: Partial<Record<keyof SummariserFields, string>> } {
  if (fields.kind === "extractive") return { summariser: { kind: "extractive" } };
  const text = fields.timeoutMs.trim();
  const setting = { kind: "model" as const, baseUrl: fields.baseUrl, model: fields.model, timeoutMs: /^\d+$/.test(text) ? Number(text) : Number.NaN };
  const errors = summariserProblems(setting);
  return Object.keys(errors).length > 0 ? { errors } : { summariser: setting };
}
