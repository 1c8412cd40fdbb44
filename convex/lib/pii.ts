/**
 * PII rules for text injected into a model's prompt (messaging spec,
 * "Safety: Redact secrets/PII via rules"): e-mail addresses, phone numbers,
 * payment card numbers that pass the Luhn check, and IBANs that pass their
 * mod-97 check, each replaced by a marker naming what was there. Secrets are
 * redacted where text is written (lib/secrets); this runs on what is shown.
 * Pure.
 */

export const PII_KINDS = ["email", "phone", "card", "iban"] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/** Which rules apply; all by default. */
export type PiiRules = Partial<Record<PiiKind, boolean>>;

const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
// 13–19 digits, optionally grouped by spaces or dashes.
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
// Two letters, two check digits, then 11–30 letters or digits, optionally in groups of four.
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
// An optional +country code, then 7–15 digits with spaces, dots, dashes or one parenthesised area code.
const PHONE = /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d(?:[ .-]?\d){6,14}(?!\w)/g;

/** The Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

/** The IBAN check: the country and check digits moved to the end, letters as numbers, mod 97 is 1. */
export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const value = ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}

/** A number reads as a phone number with a +country code or (area code), or at 9 digits or more (not a date like 2026-05-01). */
function phoneLike(match: string): boolean {
  return /^[+(]/.test(match) || match.replace(/\D/g, "").length >= 9;
}

/** `text` with the PII the rules name replaced by `[email]`, `[phone]`, `[card]` and `[iban]`. */
export function redactPii(text: string, rules: PiiRules = {}): string {
  const on = (kind: PiiKind) => rules[kind] !== false;
  let out = text;
  if (on("email")) out = out.replace(EMAIL, "[email]");
  if (on("iban")) out = out.replace(IBAN, (match) => (ibanValid(match) ? "[iban]" : match));
  if (on("card")) out = out.replace(CARD, (match) => (luhnValid(match.replace(/[ -]/g, "")) ? "[card]" : match));
  if (on("phone")) out = out.replace(PHONE, (match) => (phoneLike(match) ? "[phone]" : match));
  return out;
}
