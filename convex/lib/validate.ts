import { MaestroError } from "./errors";
import { LIMITS } from "./limits";

/** Trims `value` and checks it is non-empty (unless `allowEmpty`) and within `max` characters. */
export function cleanText(field: string, value: string, max: number, { allowEmpty = false } = {}): string {
  const trimmed = value.trim();
  if (!allowEmpty && trimmed === "") throw new MaestroError("INVALID_ARGUMENT", `${field} must not be empty.`);
  if (trimmed.length > max) {
    throw new MaestroError("INVALID_ARGUMENT", `${field} is ${trimmed.length} characters; the limit is ${max}.`);
  }
  return trimmed;
}

/** Trimmed, de-duplicated (case-insensitively), non-empty tags within the limits. */
export function cleanTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const tag of tags) {
    const clean = cleanText("A tag", tag, LIMITS.tagChars);
    if (seen.has(clean.toLowerCase())) continue;
    seen.add(clean.toLowerCase());
    result.push(clean);
  }
  if (result.length > LIMITS.tagsPerTask) {
    throw new MaestroError("INVALID_ARGUMENT", `A task has at most ${LIMITS.tagsPerTask} tags.`);
  }
  return result;
}

/** Checks a page size asked for by a client. */
export function checkPageSize(numItems: number): void {
  if (!Number.isInteger(numItems) || numItems < 1 || numItems > LIMITS.pageSize) {
    throw new MaestroError("INVALID_ARGUMENT", `Page size must be between 1 and ${LIMITS.pageSize}.`);
  }
}
