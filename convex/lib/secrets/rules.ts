/**
 * Maestro's secret scanner: a table of rules as data, in the manner of
 * gitleaks — keywords, then one regular expression, then entropy,
 * allowlists and (for a few formats) a structural check. One pass finds every
 * keyword of every rule; a rule's pattern is then tried only where a match
 * could begin near one of its keywords (`startsAt`), not at every position.
 *
 * Every pattern uses bounded quantifiers only (no `*`, `+` or `{n,}`), never
 * repeats a group that itself repeats, and, where it starts at a token, has
 * a look-behind so a match can only begin at a token boundary. A failed
 * attempt therefore backtracks a bounded distance (repeated classes are
 * mostly disjoint from what follows them; where not, the bound caps it), and
 * a rejected match resumes one character later, so each rule stays linear
 * in the text with a small constant on the chat's 4,096-character messages
 * (checked by tests/convex/secrets.test.ts, statically and on crafted inputs).
 */
import { escapeRegExp, keyAlphabetPattern, MINTED_KEY_FORMATS, type MintedKeyFormat } from "./minted";
import { keywordAutomaton, KeywordHits, placeGate, type KeywordAutomaton } from "./keywords";
import { addViewFindings, normalizedView, VIEW_MARKS } from "./normalize";
import { byOffsets, codeAt, flatCopy, monotonicNow, ScannerTimeout, type SecretFinding, type SecretScanner } from "./scanner";

export interface SecretRule {
  id: string;
  /** What the rule finds, for logs and docs. */
  description: string;
  /** Lowercase substrings; the regex runs only when one occurs in the lowercased text. Empty: always run. */
  keywords: readonly string[];
  /** Bounded quantifiers only. Flags other than `i` are ignored (the scanner adds `g` and `d`). */
  pattern: RegExp;
  /** Capture group holding the secret; the whole match when absent. */
  secretGroup?: number;
  /**
   * Characters the match holds after the secret group (url-password's `@`);
   * 0 when absent: only look-arounds follow the group. The scanner places the
   * secret by it instead of asking the regex for group offsets.
   */
  afterSecret?: number;
  /** Characters stripped from the end of the secret (sentence punctuation after a free-form value). */
  trimTrailing?: string;
  /** Shortest secret reported (after trimming). */
  minLength?: number;
  /** Smallest Shannon entropy (bits per character) of the secret. */
  minEntropy?: number;
  /** A secret matching any of these is not reported. */
  allowlist?: readonly RegExp[];
  /** Last word on a candidate: false drops it. */
  validate?: (secret: string, match: RegExpExecArray) => boolean;
  /**
   * Where a match can begin, given a keyword found at `at`: `"keyword"` when
   * every match begins with one of the keywords, else a function naming the
   * possible starts. With it the pattern is tried only there (sticky) instead
   * of at every position of the text — the scanner's main cost. It must name
   * every start a match could have, or matches are lost.
   */
  startsAt?: "keyword" | ((text: string, at: number) => readonly number[]);
}

/** Shannon entropy of `text` in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= 0xffff) {
    const ascii = asciiEntropy(text);
    if (ascii >= 0) return ascii;
  }
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/** Per-character counts for ASCII text, reused: the entropy check runs on every candidate. */
const ASCII_COUNTS = new Uint16Array(128);
/** `c * log2(c)` for the counts a candidate usually has: a `Math.log2` per distinct character was most of the check's cost. */
const COUNT_LOG2 = Float64Array.from({ length: 1024 }, (_, count) => (count === 0 ? 0 : count * Math.log2(count)));

/**
 * -Σ p·log2(p) with p = c/n, computed as log2(n) - Σ c·log2(c) / n; -1 when
 * `text` is not ASCII (found while counting, so the text is read twice, not three times).
 */
function asciiEntropy(text: string): number {
  const length = text.length;
  let counted = 0;
  for (; counted < length; counted++) {
    const code = text.charCodeAt(counted);
    if (code > 0x7f) break;
    ASCII_COUNTS[code]++;
  }
  let sum = 0;
  for (let i = 0; i < counted; i++) {
    const code = text.charCodeAt(i);
    const count = ASCII_COUNTS[code];
    if (count === 0) continue; // already counted
    sum += count < COUNT_LOG2.length ? COUNT_LOG2[count] : count * Math.log2(count);
    ASCII_COUNTS[code] = 0;
  }
  return counted < length ? -1 : Math.log2(length) - sum / length;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Bytes of base64 or base64url `text` as a Latin-1 string, or null when it
 * is not base64. Written out because Convex's runtime and a bare context may
 * lack `atob`/`Buffer`.
 */
export function decodeBase64(text: string): string | null {
  let out = "";
  let buffer = 0;
  let bits = 0;
  let padding = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "=") {
      padding = true;
      continue;
    }
    if (padding) return null;
    const value = char === "-" ? 62 : char === "_" ? 63 : BASE64_ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return out;
}

// Character tests as loops: each runs on every candidate, and a regex call costs more than the loop.
function hasLetter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isLetterCode(text.charCodeAt(i))) return true;
  return false;
}
function hasNonLetter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isLetterCode(text.charCodeAt(i))) return true;
  return false;
}
function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isDigitCode(text.charCodeAt(i))) return true;
  return false;
}

/**
 * One test for "does any of `patterns` match": a list joined into one
 * alternation per flag set, so a candidate costs one or two regex calls
 * instead of one per pattern (the checks run on every candidate). Only for
 * patterns without the `g`/`y` flags (stateless `test`) or group references.
 */
export function anyOf(patterns: readonly RegExp[]): (text: string) => boolean {
  const byFlags = new Map<string, string[]>();
  for (const pattern of patterns) {
    if (/[gy]/.test(pattern.flags) || /\\[1-9k]/.test(pattern.source)) throw new Error(`anyOf: /${pattern.source}/${pattern.flags} cannot be joined`);
    byFlags.set(pattern.flags, [...(byFlags.get(pattern.flags) ?? []), `(?:${pattern.source})`]);
  }
  const joined = [...byFlags].map(([flags, sources]) => new RegExp(sources.join("|"), flags));
  if (joined.length === 1) {
    const only = joined[0];
    return (text) => only.test(text);
  }
  return (text) => {
    for (const regex of joined) if (regex.test(text)) return true;
    return false;
  };
}

/** Placeholders people write where a secret would go. */
const PLACEHOLDERS: readonly RegExp[] = [
  /^(?:<[^>]{0,200}>|\[[^\]]{0,200}\]|\{[^}]{0,200}\}|\{\{[^}]{0,200}\}\}|\(\w{0,100}\))$/,
  /^\$\{[^}]{0,200}\}?$/, // ${VAR}, ${{ secrets.X }}
  /^\$\(/, // $(command)
  /^\$[A-Za-z_][A-Za-z0-9_]{0,100}$/, // $VAR
  /^%[A-Za-z_][A-Za-z0-9_]{0,100}%$/, // %VAR%
  /^[*xX•#.…_-]{1,200}$/, // ******** xxxx ... ____
  /your|example|placeholder|changeme|change[_-]me|redacted|dummy|sample|fake|mock|xxxx|\*\*\*|<|>|\$\{|\{\{|%s|%\(/i,
];

const isPlaceholder = anyOf(PLACEHOLDERS);

/** Values that are code, configuration references, paths or URLs rather than secrets. */
const NOT_A_VALUE: readonly RegExp[] = [
  /\(/, // a call: getpass(), os.getenv("X"), String(x)
  /^[a-z_$][A-Za-z_$]{1,40}(?:\.[A-Za-z_$][\w$]{0,100}){1,10}(?:[.[]|$)/, // process.env.X, settings.SECRET_KEY, os.environ[
  /^[A-Z][A-Z0-9]{0,40}(?:_[A-Z0-9]{1,40}){1,10}$/, // ENV_VAR_NAME
  /^[A-Za-z_][\w.]{0,100}\[/, // Optional[str], os.environ[
  /^(?:~|\.{1,2})?\//, // paths
  /^[A-Za-z]:\\/, // Windows paths
  /:\/\//, // URLs
  /^![A-Za-z]/, // YAML tags: password: !vault |, key: !Ref Secret
  /^(?:true|false|null|none|nil|undefined|required|optional|string|number)$/i,
  /^(?:string|number|boolean|bigint|unknown|any|never|void|object)\b/, // type annotations: password: string): …
  /^[a-z]{1,40}(?:[-_][a-z]{1,40}){1,10}$/, // lowercase slugs: test-password, fake_user_token, dev-only
];
const isNotAValue = anyOf(NOT_A_VALUE);

/** Last segments of a key name that make it a secret's name. */
const SECRET_KEY_ENDINGS = [
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "secretkey",
  "token",
  "apikey",
  "accesskey",
  "accountkey",
  "privatekey",
  "credential",
  "credentials",
  "authkey",
  "signingkey",
  "encryptionkey",
  "masterkey",
];
/** Key names that end like a secret's but hold something else. */
const NON_SECRET_KEYS = ["pagetoken", "nextpagetoken", "continuationtoken", "synctoken", "cursortoken", "paginationtoken"];
/** Qualifiers after the secret word that keep it a secret's name: API_KEY_PROD, password2, secret_value. */
const KEY_QUALIFIER = /(?:prod|production|dev|development|test|staging|stage|live|local|value|val|str|string|raw|b64|base64|hex|plain|plaintext|[0-9]{1,3})$/;

/** Key names already judged: the same few (password, api_key, token) recur in every message. */
const keyNameVerdicts = new Map<string, boolean>();
const MAX_KEY_NAME_VERDICTS = 1024;

/** Whether `key` (as written before `=` or `:`) names a secret. */
export function isSecretKeyName(key: string): boolean {
  const known = keyNameVerdicts.get(key);
  if (known !== undefined) return known;
  const verdict = judgeKeyName(key);
  if (keyNameVerdicts.size >= MAX_KEY_NAME_VERDICTS) keyNameVerdicts.clear();
  keyNameVerdicts.set(key, verdict);
  return verdict;
}

function judgeKeyName(key: string): boolean {
  const lower = key.toLowerCase();
  let normalized = lower.replace(/[_.\s-]/g, "");
  if (NON_SECRET_KEYS.some((name) => normalized.endsWith(name))) return false;
  for (let i = 0; i < 2; i++) {
    if (SECRET_KEY_ENDINGS.some((ending) => normalized.endsWith(ending))) return true;
    const stripped = normalized.replace(KEY_QUALIFIER, "");
    if (stripped === normalized || stripped.length === 0) break;
    normalized = stripped;
  }
  // DB_PASS, smtp.pass — but not bypass or compass.
  return /(?:^|[_.-])pass$/.test(lower);
}

/** A free-form value looks like a credential: long enough, mixed, random enough, not a placeholder or code. */
function looksLikeCredential(value: string): boolean {
  if (!hasLetter(value) || !hasNonLetter(value)) return false;
  if (isPlaceholder(value) || isNotAValue(value)) return false;
  return shannonEntropy(value) >= (value.length < 16 ? 2.5 : 3.0);
}

/** Header of a JWT: base64url JSON naming an algorithm. */
function isJwt(token: string): boolean {
  const header = decodeBase64(token.slice(0, token.indexOf(".")));
  if (header === null) return false;
  // No "alg" in the text and no \u escape that could spell it: JSON.parse
  // cannot give the key, and its exception costs more than the rest of the
  // check (crafted text makes one per "eyJ").
  if (!header.includes("alg") && !header.includes("\\u")) return false;
  try {
    const parsed: unknown = JSON.parse(header);
    return typeof parsed === "object" && parsed !== null && typeof (parsed as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/** Passwords in documentation: user:password@, Basic base64("user:pass"). */
const PLACEHOLDER_PASSWORDS: readonly RegExp[] = [...PLACEHOLDERS, /^(?:password|passwd|pass|pwd|secret|pw|p|\*+)$/i];
const isPlaceholderPassword = anyOf(PLACEHOLDER_PASSWORDS);

/** Basic-auth credentials: base64 of printable `user:password`, the password not a placeholder. */
function isBasicCredentials(value: string): boolean {
  const decoded = decodeBase64(value);
  if (decoded === null || !/^[\x20-\x7e]{3,}$/.test(decoded)) return false;
  const colon = decoded.indexOf(":");
  if (colon < 0 || colon === decoded.length - 1) return false;
  const password = decoded.slice(colon + 1);
  return !isPlaceholderPassword(password);
}

/** Shortest value taken as a secret after `password=` / `token:` (hunter2 is seven). */
const MIN_ASSIGNED_SECRET = 6;
/** Shortest value taken as a secret after "password is" in prose. */
const MIN_PROSE_SECRET = 8;

/** The characters of base64 key material, without which a PEM "block" is only a mention. */
const KEY_MATERIAL = /[A-Za-z0-9+/]{40}/;

/** Start of the run of characters satisfying `inRun` that ends just before `end`, looking back at most `max`. */
function runStart(text: string, end: number, max: number, inRun: (code: number) => boolean): number {
  let start = end;
  const limit = Math.max(0, end - max);
  while (start > limit && inRun(text.charCodeAt(start - 1))) start--;
  return start;
}
const isDigitCode = (code: number) => code >= 48 && code <= 57;
const isLetterCode = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** Characters of a key name in generic-assignment: [A-Za-z0-9_.-]. */
const isKeyNameCode = (code: number) => isLetterCode(code) || isDigitCode(code) || code === 95 || code === 46 || code === 45;
/** A URL scheme's characters: [A-Za-z0-9+.-]. */
const isSchemeCode = (code: number) => isLetterCode(code) || isDigitCode(code) || code === 43 || code === 46 || code === 45;
/** Words generic-assignment accepts before a key name, as in "api key: …". */
const KEY_PREFIX_WORDS: readonly string[] = ["api", "access", "secret", "private", "auth", "client", "master", "signing", "encryption"];

/** The longest of them. */
const MAX_PREFIX_WORD = 10;

/**
 * Whether `text[start, end)` is one of `KEY_PREFIX_WORDS`, in any ASCII case.
 * Compared in place: asked on most keyword hits, where a lowercased copy cost more than the rest.
 */
function isKeyPrefixWord(text: string, start: number, end: number): boolean {
  for (const word of KEY_PREFIX_WORDS) if (word.length === end - start && wordAt(text, start, word)) return true;
  return false;
}

/** Longest key name generic-assignment accepts. */
const MAX_KEY_NAME = 60;

/**
 * Whether generic-assignment's operator can follow a key name ending at
 * `end`: an optional quote or bracket, then up to three spaces or tabs and
 * `=` or `:`, or one to three and "is" or "was".
 */
function assignmentAfter(text: string, end: number): boolean {
  const quote = codeAt(text, end);
  if (quote === 34 || quote === 39 || quote === 93) end++;
  let gap = 0;
  while (gap < 3 && (codeAt(text, end + gap) === 32 || codeAt(text, end + gap) === 9)) gap++;
  const next = codeAt(text, end + gap);
  if (next === 61 || next === 58) return true;
  if (gap === 0) return false;
  return wordAt(text, end + gap, "is") || wordAt(text, end + gap, "was");
}

/** End of the run of key-name characters from `at`, or -1 when it is longer than a key name starting at `start` can be. */
function keyNameEnd(text: string, start: number, at: number): number {
  let end = at;
  while (end < text.length && isKeyNameCode(text.charCodeAt(end))) {
    if (++end - start > MAX_KEY_NAME) return -1;
  }
  return end;
}

/**
 * generic-assignment: where a match holding the keyword at `at` can begin —
 * the start of its run of key-name characters, or a prefix word before it
 * ("api key: …") — or none. The pattern's key name can only end where the
 * run does (a key-name character cannot begin the operator), so unless the
 * operator follows the run there is no match, except when the run is itself
 * a prefix word of the next key name ("secret value: …"). This drops most
 * mentions of "key", "token" or "password" in prose before any regex runs.
 */
function assignmentStarts(text: string, at: number): number[] {
  // The run's end first: in prose the operator is usually missing, and then most hits stop here.
  let end = at;
  while (end < text.length && end - at <= MAX_KEY_NAME && isKeyNameCode(text.charCodeAt(end))) end++;
  const follows = assignmentAfter(text, end);
  if (!follows) {
    const gap = codeAt(text, end);
    if ((gap !== 32 && gap !== 9) || end - at > MAX_PREFIX_WORD) return [];
  }
  const start = runStart(text, at, MAX_KEY_NAME, isKeyNameCode);
  if (end - start > MAX_KEY_NAME) return [];
  if (!follows) {
    // The run may itself be the prefix word of the next key name ("secret value: …").
    if (!isKeyPrefixWord(text, start, end)) return [];
    const next = keyNameEnd(text, end + 1, end + 1);
    return next > end + 1 && assignmentAfter(text, next) ? [start] : [];
  }
  const gap = codeAt(text, start - 1);
  if (start < 2 || (gap !== 32 && gap !== 9)) return [start];
  const word = runStart(text, start - 1, 11, isLetterCode);
  return isKeyPrefixWord(text, word, start - 1) ? [word, start] : [start];
}

/** Whether `word` (lowercase letters) is written at `at`, in any ASCII case. */
function wordAt(text: string, at: number, word: string): boolean {
  if (at < 0 || at + word.length > text.length) return false;
  // `| 32` folds A–Z onto a–z and maps no other character onto a letter.
  for (let k = 0; k < word.length; k++) if ((text.charCodeAt(at + k) | 32) !== word.charCodeAt(k)) return false;
  return true;
}
/** aws-secret-access-key's separators: [ _.-]. */
const isAwsSeparator = (code: number) => code === 32 || code === 95 || code === 46 || code === 45;

/**
 * aws-secret-access-key: where a match holding the keyword "secret" at `at`
 * can begin — "aws" + separator, "aws", or the keyword itself — and none
 * unless `[ _.-]?(access[ _.-]?)?key` follows it, as the pattern requires
 * (each optional part starts with a character the next part cannot, so
 * taking it whenever it is there decides as the regex does). Most mentions
 * of "secret" are not a key's name, and each start tried is a regex call.
 */
function awsSecretStarts(text: string, at: number): number[] {
  let next = at + "secret".length;
  if (isAwsSeparator(codeAt(text, next))) next++;
  if (wordAt(text, next, "access")) {
    next += "access".length;
    if (isAwsSeparator(codeAt(text, next))) next++;
  }
  if (!wordAt(text, next, "key")) return [];
  if (wordAt(text, at - 4, "aws") && isAwsSeparator(codeAt(text, at - 1))) return [at - 4, at];
  return wordAt(text, at - 3, "aws") ? [at - 3, at] : [at];
}

/**
 * The rule for keys of a format Maestro mints (minted.ts): the prefix and at
 * least the format's length of its alphabet, standing as a whole token.
 */
export function mintedKeyRule(format: MintedKeyFormat): SecretRule {
  return {
    id: format.id,
    description: format.description,
    keywords: [format.prefix.toLowerCase()],
    pattern: new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(format.prefix)}[${keyAlphabetPattern(format)}]{${format.length},256}(?![A-Za-z0-9_])`, "i"),
    startsAt: "keyword",
  };
}

/** The rule table. Order does not matter: overlapping findings are merged. */
export const SECRET_RULES: readonly SecretRule[] = [
  // Maestro's own keys first: every format it mints is a rule (minted.ts).
  ...MINTED_KEY_FORMATS.map(mintedKeyRule),
  {
    id: "private-key",
    description: "PEM/OpenSSH/PGP private key block (to the END line, or to the end of the key material when cut off)",
    keywords: ["-----begin"],
    pattern:
      /-----BEGIN[ A-Z0-9]{0,40}PRIVATE[ \t\r\n]{1,3}KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,.()\\]|-(?!----)){0,12000}(?:-----END[ A-Z0-9]{0,40}PRIVATE[ \t\r\n]{1,3}KEY(?: BLOCK)?-----)?/,
    validate: (secret) => KEY_MATERIAL.test(secret),
    startsAt: "keyword",
  },
  {
    id: "aws-access-key-id",
    description: "AWS access key id (AKIA…, ASIA…)",
    keywords: ["akia", "asia", "abia", "acca", "a3t"],
    pattern: /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/,
    startsAt: "keyword",
  },
  {
    id: "aws-secret-access-key",
    description: "AWS secret access key after its name (aws_secret_access_key = …, SecretAccessKey: …)",
    keywords: ["secret"],
    pattern:
      /(?<![A-Za-z0-9])(?:aws[ _.-]?)?secret[ _.-]?(?:access[ _.-]?)?key["'\]]?[\s:=>"'`(,]{1,8}(?:(?:is|was)[\s:"'`]{1,4})?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/i,
    secretGroup: 1,
    minEntropy: 3.5,
    validate: (secret) => /[0-9/+]/.test(secret),
    startsAt: awsSecretStarts,
  },
  {
    id: "aws-secret-near-key-id",
    description: "40-character AWS secret access key shortly after an access key id on the same line",
    keywords: ["akia", "asia"],
    pattern:
      /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{0,100}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/,
    secretGroup: 1,
    minEntropy: 3.5,
    validate: (secret) => /[0-9/+]/.test(secret) && /[a-z]/.test(secret) && /[A-Z]/.test(secret),
    startsAt: "keyword",
  },
  {
    id: "github-token",
    description: "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{40,251})(?![A-Za-z0-9_])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "gitlab-token",
    description: "GitLab token (glpat-, gldt-, glrt-, glptt-, …)",
    keywords: ["glpat-", "gldt-", "glrt-", "glptt-", "gloas-", "glcbt-", "glft-", "glsoat-", "glimt-", "glagent-"],
    pattern:
      /(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glptt|gloas|glcbt|glft|glsoat|glimt|glagent)-[A-Za-z0-9_-]{20,100}(?:\.[0-9a-z]{2}\.[0-9a-z]{9})?(?![A-Za-z0-9_-])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "slack-token",
    description: "Slack token (xoxb-, xoxp-, xoxa-, xoxs-, xoxo-, xoxr-, xoxe-, xapp-)",
    keywords: ["xoxb-", "xoxp-", "xoxa-", "xoxs-", "xoxo-", "xoxr-", "xoxe-", "xapp-"],
    pattern: /(?<![A-Za-z0-9-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/,
    minEntropy: 3.0,
    allowlist: [/^(?:xox[a-z]|xapp)-(?:your|xxxx|\.\.\.|token|example|placeholder)/i],
    validate: hasDigit,
    startsAt: "keyword",
  },
  {
    id: "slack-webhook",
    description: "Slack incoming webhook / workflow URL",
    keywords: ["hooks.slack.com"],
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,200}/,
    validate: hasDigit,
    startsAt: (_text, at) => [at - 8, at - 7], // https:// or http://
  },
  {
    id: "stripe-key",
    description: "Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, rk_test_)",
    keywords: ["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9_])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "stripe-webhook-secret",
    description: "Stripe webhook signing secret (whsec_)",
    keywords: ["whsec_"],
    pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{24,128}(?![A-Za-z0-9+/=_])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "anthropic-key",
    description: "Anthropic API key (sk-ant-…)",
    keywords: ["sk-ant-"],
    pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,260}(?![A-Za-z0-9_-])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "openrouter-key",
    description: "OpenRouter API key (sk-or-v1-…)",
    keywords: ["sk-or-"],
    pattern: /(?<![A-Za-z0-9_-])sk-or-v[0-9]-[a-f0-9]{64}(?![A-Za-z0-9_-])/,
    startsAt: "keyword",
  },
  {
    id: "openai-key",
    description: "OpenAI API key (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…)",
    keywords: ["sk-"],
    pattern: /(?<![A-Za-z0-9_-])(?:sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,250}|sk-[A-Za-z0-9]{32,100})(?![A-Za-z0-9_-])/,
    minEntropy: 3.5,
    startsAt: "keyword",
  },
  {
    id: "google-api-key",
    description: "Google API key (AIza + 35)",
    keywords: ["aiza"],
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/,
    startsAt: "keyword",
  },
  {
    id: "google-oauth-client-secret",
    description: "Google OAuth client secret (GOCSPX-)",
    keywords: ["gocspx-"],
    pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/,
    startsAt: "keyword",
  },
  {
    id: "jwt",
    description: "JSON Web Token (three base64url parts, header with \"alg\")",
    keywords: ["eyj"],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{2,4000}\.[A-Za-z0-9_-]{0,4000}(?![A-Za-z0-9_-])/,
    validate: isJwt,
    startsAt: "keyword",
  },
  {
    id: "npm-token",
    description: "npm access token (npm_ + 36)",
    keywords: ["npm_"],
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/,
    minEntropy: 3.0,
    startsAt: "keyword",
  },
  {
    id: "sendgrid-key",
    description: "SendGrid API key (SG.…)",
    keywords: ["sg."],
    pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
    startsAt: "keyword",
  },
  {
    id: "huggingface-token",
    description: "Hugging Face access token (hf_)",
    keywords: ["hf_"],
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9_])/,
    minEntropy: 3.5,
    startsAt: "keyword",
  },
  {
    id: "digitalocean-token",
    description: "DigitalOcean token (dop_v1_, doo_v1_, dor_v1_)",
    keywords: ["dop_v1_", "doo_v1_", "dor_v1_"],
    pattern: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/,
    startsAt: "keyword",
  },
  {
    id: "shopify-token",
    description: "Shopify access token (shpat_, shpca_, shppa_, shpss_)",
    keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9_])/,
    startsAt: "keyword",
  },
  {
    id: "pypi-token",
    description: "PyPI upload token (pypi-AgEIcHlwaS5vcmc…)",
    keywords: ["pypi-ageichlwas5vcmc"],
    pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}(?![A-Za-z0-9_-])/,
    startsAt: "keyword",
  },
  {
    id: "telegram-bot-token",
    description: "Telegram bot token (bot id:AA…)",
    keywords: [":aa"],
    pattern: /(?<![A-Za-z0-9_:-])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/,
    startsAt: (text, at) => [runStart(text, at, 10, isDigitCode)],
  },
  {
    id: "url-password",
    description: "Password embedded in a URL or connection string (scheme://user:password@host); the password is redacted",
    keywords: ["://"],
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([^\s:/@'"`<>]{0,64}):([^\s/@'"`<>]{1,128})@(?=[A-Za-z0-9[_-])/,
    secretGroup: 2,
    afterSecret: 1, // "@"
    allowlist: PLACEHOLDER_PASSWORDS,
    // user:user@ (postgres:postgres@localhost) is a well-known local default, not a leak.
    validate: (secret, match) => secret !== match[1],
    startsAt: (text, at) => [runStart(text, at, 21, isSchemeCode)],
  },
  {
    id: "authorization-bearer",
    description: "Bearer token (Authorization: Bearer …)",
    keywords: ["bearer"],
    pattern: /(?<![A-Za-z0-9_-])bearer[ \t]{1,3}([A-Za-z0-9._~+/=-]{16,2000})(?![A-Za-z0-9._~+/=-])/i,
    secretGroup: 1,
    trimTrailing: ".",
    minLength: 16,
    minEntropy: 3.0,
    allowlist: PLACEHOLDERS,
    validate: hasDigit,
    startsAt: "keyword",
  },
  {
    id: "authorization-basic",
    description: "HTTP Basic credentials (Authorization: Basic base64(user:password))",
    keywords: ["basic"],
    pattern: /(?<![A-Za-z0-9_-])basic[ \t]{1,3}([A-Za-z0-9+/]{8,1000}={0,2})(?![A-Za-z0-9+/=])/i,
    secretGroup: 1,
    validate: isBasicCredentials,
    startsAt: "keyword",
  },
  {
    id: "cli-secret-flag",
    description: "Secret given on a command line (--password …, --token=…, mysql -p…)",
    keywords: ["--pass", "--pwd", "--token", "--api", "--secret", "--client-secret", "--access-token", "--auth-token", "mysql"],
    pattern:
      /(?<![A-Za-z0-9_-])(?:--(?:password|passwd|pass|pwd|token|api-key|apikey|api_key|secret|client-secret|access-token|auth-token)(?:=|[ \t]{1,3})["']?|mysql(?:dump|admin)?[ \t][^\n]{0,200}?[ \t]-p)([^\s"'`-][^\s"'`]{5,199})/,
    secretGroup: 1,
    trimTrailing: ".)]}",
    minLength: 6,
    validate: looksLikeCredential,
    startsAt: "keyword",
  },
  {
    id: "generic-assignment",
    description: "High-entropy value assigned to a secret's name (password=…, api_key: …, secret=…, token=…, \"password is …\")",
    keywords: ["pass", "pwd", "secret", "token", "key", "credential"],
    pattern:
      /(?<![A-Za-z0-9_.-])(?<![^/]:)(?<!\$\{)((?:(?:api|access|secret|private|auth|client|master|signing|encryption)[ \t])?[A-Za-z_][A-Za-z0-9_.-]{0,59})["'\]]?([ \t]{0,3}(?:=|:=|=>|:)[ \t]{0,3}|[ \t]{1,3}(?:is|was):?[ \t]{1,3})["'`]?([^\s"'`,;]{6,200})/i,
    secretGroup: 3,
    trimTrailing: ".:)]}>",
    minLength: MIN_ASSIGNED_SECRET,
    // A value under 8 characters counts only after an explicit `=`/`:` and with a digit (hunter2).
    validate: (secret, match) =>
      isSecretKeyName(match[1]) &&
      looksLikeCredential(secret) &&
      (secret.length >= MIN_PROSE_SECRET || (/[=:]/.test(match[2]) && hasDigit(secret))),
    startsAt: assignmentStarts,
  },
];

type IndexedMatch = RegExpExecArray & { indices?: Array<[number, number] | undefined> };

interface CompiledRule {
  rule: SecretRule;
  /** For a scan of the whole text. */
  regex: RegExp;
  /** For a try at one place (`startsAt`). */
  sticky: RegExp;
  /** With the `d` flag, for the rare match whose secret `secretSpan` cannot place. */
  indexed: RegExp;
  allowed: ((secret: string) => boolean) | undefined;
}

// Without the `d` flag: it makes every successful match several times dearer
// (V8 builds an array of offsets per group); `secretSpan` places the secret instead.
function compile(rule: SecretRule): CompiledRule {
  const flags = rule.pattern.flags.includes("i") ? "i" : "";
  return {
    rule,
    regex: new RegExp(rule.pattern.source, `g${flags}`),
    sticky: new RegExp(rule.pattern.source, `y${flags}`),
    indexed: new RegExp(rule.pattern.source, `yd${flags}`),
    allowed: rule.allowlist === undefined ? undefined : anyOf(rule.allowlist),
  };
}

/**
 * Where `rule`'s secret lies in `match` (a match without offsets per group):
 * the whole match, or its secret group ending `afterSecret` characters
 * before the match does. Null when the group is missing or does not stand
 * there (a rule whose `afterSecret` is wrong).
 */
export function secretSpan(rule: SecretRule, match: RegExpExecArray): [number, number] | null {
  const whole = match[0];
  if (rule.secretGroup === undefined || rule.secretGroup === 0) return [match.index, match.index + whole.length];
  const secret = match[rule.secretGroup];
  if (secret === undefined) return null;
  const endInMatch = whole.length - (rule.afterSecret ?? 0);
  const startInMatch = endInMatch - secret.length;
  if (startInMatch < 0) return null;
  // The group's two ends checked, not all of it: a wrong `afterSecret` shows
  // there (tests/convex/secretsShortcuts.test.ts compares every fixture with the `d` flag's offsets).
  const last = secret.length - 1;
  if (last >= 0 && (whole.charCodeAt(startInMatch) !== secret.charCodeAt(0) || whole.charCodeAt(startInMatch + last) !== secret.charCodeAt(last))) return null;
  return [match.index + startInMatch, match.index + endInMatch];
}

/**
 * The gitleaks-style prefilter: for each rule, the places where one of its
 * keywords occurs, from one pass of the keyword automaton (keywords.ts). A
 * rule is then tried only there.
 */
class KeywordIndex {
  readonly automaton: KeywordAutomaton;
  /** For each keyword, the rules holding it. */
  private readonly owners: number[][];
  /** Per rule, ascending and distinct after `collect`; an array is replaced, not emptied, when its rule has hits again. */
  readonly occurrences: number[][];
  /** The rules with hits in the last `collect` (the first `touchedCount`). */
  private readonly touched: Int32Array;
  private touchedCount = 0;
  private readonly unsorted: Uint8Array;

  constructor(rules: readonly SecretRule[], marks: readonly number[] = []) {
    const keywords = [...new Set(rules.flatMap((rule) => rule.keywords))];
    this.automaton = keywordAutomaton(keywords, marks);
    this.owners = keywords.map((keyword) => rules.flatMap((rule, index) => (rule.keywords.includes(keyword) ? [index] : [])));
    this.occurrences = rules.map(() => []);
    this.touched = new Int32Array(rules.length);
    this.unsorted = new Uint8Array(rules.length);
  }

  /** Fills `occurrences` from a pass's hits. */
  collect(hits: KeywordHits): number[][] {
    const { occurrences, unsorted, owners, touched } = this;
    // Fresh arrays for the few rules that had hits (cheaper than setting `length`).
    for (let t = 0; t < this.touchedCount; t++) occurrences[touched[t]] = [];
    this.touchedCount = 0;
    for (let h = 0; h < hits.count; h++) {
      const start = hits.starts[h];
      for (const rule of owners[hits.keywords[h]]) {
        const list = occurrences[rule];
        if (list.length === 0) {
          touched[this.touchedCount++] = rule;
          unsorted[rule] = 0;
        } else if (list[list.length - 1] >= start) {
          // Hits arrive by their end: a longer keyword ending later may start earlier.
          unsorted[rule] = 1;
        }
        list.push(start);
      }
    }
    for (let t = 0; t < this.touchedCount; t++) {
      const rule = touched[t];
      if (unsorted[rule] === 0) continue;
      occurrences[rule] = sortedDistinct(occurrences[rule]);
    }
    return occurrences;
  }
}

/**
 * For each rule, the ascending, distinct places where one of its keywords
 * occurs in a text. The arrays returned are reused by the finder's next call.
 */
export function keywordFinder(rules: readonly SecretRule[]): (text: string) => number[][] {
  const index = new KeywordIndex(rules);
  const hits = new KeywordHits();
  return (text) => index.collect(index.automaton.scan(text, hits));
}

function numerically(a: number, b: number): number {
  return a - b;
}

/** `values` sorted (in place) without repeats. */
function sortedDistinct(values: number[]): number[] {
  values.sort(numerically);
  let kept = 0;
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i] !== values[kept - 1]) values[kept++] = values[i];
  values.length = kept;
  return values;
}

/** Sorted, distinct places `rule` could match, from its keywords' places (ascending). */
function candidateStarts(rule: SecretRule, text: string, occurrences: readonly number[]): readonly number[] {
  if (rule.startsAt === "keyword") return occurrences;
  const starts: number[] = [];
  let ascending = true; // usually: keywords in order give starts in order
  for (const at of occurrences) {
    for (const start of rule.startsAt!(text, at)) {
      if (start < 0) continue;
      if (starts.length > 0) {
        const last = starts[starts.length - 1];
        if (start === last) continue; // several keywords of one key name ("SECRET_KEY") name the same start
        if (start < last) ascending = false;
      }
      starts.push(start);
    }
  }
  if (ascending) return starts;
  return sortedDistinct(starts);
}

/** The secret span of one match, or null when the rule's checks drop it. */
function candidate(compiled: CompiledRule, match: RegExpExecArray): [number, number] | null {
  const { rule } = compiled;
  const source = match.input;
  let span = secretSpan(rule, match);
  if (span === null) {
    // The group is not where `afterSecret` says: ask the regex for its offsets.
    compiled.indexed.lastIndex = match.index;
    const indexed = compiled.indexed.exec(source) as IndexedMatch | null;
    span = indexed?.indices?.[rule.secretGroup ?? 0] ?? null;
    if (span === null) return null;
  }
  const start = span[0];
  let end = span[1];
  if (rule.trimTrailing !== undefined) {
    while (end > start && rule.trimTrailing.includes(source[end - 1])) end--;
  }
  if (end <= start) return null;
  const secret = source.slice(start, end);
  if (rule.minLength !== undefined && secret.length < rule.minLength) return null;
  if (rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) return null;
  if (compiled.allowed?.(secret) === true) return null;
  if (rule.validate !== undefined && !rule.validate(secret, match)) return null;
  return [start, end];
}

export interface RuleScannerOptions {
  /** The clock deadlines are measured on (default `monotonicNow`). */
  now?: () => number;
  name?: string;
  /**
   * Also scan the normalized view (normalize.ts) — only its places that hold
   * a keyword, found from the marks the same keyword pass collects. Finds
   * what `withNormalization(createRuleScanner(rules))` finds, faster.
   */
  normalize?: boolean;
}

/** A scanner over `rules` (default: the whole table). */
export function createRuleScanner(rules: readonly SecretRule[] = SECRET_RULES, options: RuleScannerOptions = {}): SecretScanner {
  const compiled = rules.map(compile);
  const index = new KeywordIndex(rules, options.normalize === true ? VIEW_MARKS : []);
  const now = options.now ?? monotonicNow;
  // One per text scanned in a call (the text, then its view); reused across calls.
  const textHits = new KeywordHits();
  const viewHits = new KeywordHits();
  // A rule without keywords can match anywhere, so then every place of the view is kept.
  const everyPlace = rules.some((rule) => rule.keywords.length === 0);
  const gate = everyPlace ? undefined : placeGate(index.automaton, textHits);

  function runRules(text: string, hits: KeywordHits, findings: SecretFinding[], deadline: number | undefined): void {
    const occurrences = index.collect(hits);
    for (let r = 0; r < compiled.length; r++) {
      const rule = compiled[r].rule;
      const { regex, sticky } = compiled[r];
      // The prefilter: a rule none of whose keywords occurs cannot match.
      if (rule.keywords.length > 0 && occurrences[r].length === 0) continue;
      if (deadline !== undefined && now() > deadline) throw new ScannerTimeout(`secret scanner timed out before rule "${rule.id}"`);
      if (rule.startsAt !== undefined && rule.keywords.length > 0) {
        // The same matches a whole-text scan finds: tried in order, each
        // accepted one skipping the places it covers.
        let resume = 0;
        for (const start of candidateStarts(rule, text, occurrences[r])) {
          if (start < resume) continue;
          sticky.lastIndex = start;
          const match = sticky.exec(text);
          if (match === null) continue;
          const span = candidate(compiled[r], match);
          if (span === null) continue;
          findings.push({ start: span[0], end: span[1], rule: rule.id });
          resume = Math.max(sticky.lastIndex, start + 1);
        }
        continue;
      }
      regex.lastIndex = 0;
      for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
        const span = candidate(compiled[r], match);
        if (span !== null) {
          findings.push({ start: span[0], end: span[1], rule: rule.id });
          if (regex.lastIndex === match.index) regex.lastIndex++;
        } else {
          // A rejected match may hide a real one that starts inside it
          // (secret_access_key = … holds "access_key = …" too).
          regex.lastIndex = match.index + 1;
        }
      }
    }
  }

  // The text `textHits` are of, for `occurrences`.
  let lastText: string | undefined;

  return {
    name: options.name ?? "maestro-rules",
    scan(text: string, deadline?: number): SecretFinding[] {
      const findings: SecretFinding[] = [];
      lastText = undefined;
      const flat = flatCopy(text); // same offsets, faster reads
      runRules(flat, index.automaton.scan(flat, textHits), findings, deadline);
      lastText = text;
      if (options.normalize === true && textHits.markCount > 0) {
        const view = normalizedView(flat, textHits.marks, textHits.markCount, findings, gate);
        if (view !== null) {
          const inView: SecretFinding[] = [];
          runRules(view.text, index.automaton.scan(view.text, viewHits), inView, deadline);
          addViewFindings(findings, view, inView);
        }
      }
      if (findings.length > 1) findings.sort(byOffsets);
      return findings;
    },
    // Redaction's search for other occurrences of each secret, from the keyword hits of the last scan.
    occurrences(text: string, start: number, end: number): readonly number[] | null {
      return text === lastText ? textHits.occurrences(text, start, end) : null;
    },
  };
}

/**
 * The one scanner Maestro ships: the whole table, run on the text as written
 * and on the places of its normalized view that hold a keyword (invisible
 * characters, percent-encoding and wrapped lines undone — see normalize.ts).
 */
export const ruleScanner: SecretScanner = createRuleScanner(SECRET_RULES, { normalize: true });
