import { describe, expect, test } from "vitest";
import {
  createRuleScanner,
  decodeBase64,
  isSecretKeyName,
  REDACTED,
  REDACTION_NOTE,
  redactSecrets,
  ruleScanner,
  ScannerTimeout,
  SECRET_RULES,
  shannonEntropy,
  type SecretFinding,
  type SecretScanner,
} from "../../convex/lib/secrets/index";
import { adversarialInputs, EVASION_NEGATIVES, EVASION_POSITIVES, findingSamples, MESSAGE_CHARS } from "../fixtures/secrets/adversarial";
import { score } from "../fixtures/secrets/corpus";
import { secretFixtures } from "./setup";

const { positives, negatives } = secretFixtures();
const positiveTexts = positives.map((row) => row.text);
const OPTIONS = { timeoutMs: 800 };

/** Fake but well-formed secrets (AWS's documentation examples and synthetic tokens). */
const AWS_ID = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const GITHUB = "ghp_FAKE0123456789abcdefghijklmnopqrstuv";
const OPENAI = "sk-proj-FAKEx9Qm2Lr7Tz4Kp1Wn8Vb3Hc6Jd0Fs5Gy2Ae7Ui4Oq9Zx";
const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXItNDIiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC13ZWxsLWZvcm1lZA";

function redact(text: string) {
  return redactSecrets(text, ruleScanner, OPTIONS);
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe("redactSecrets", () => {
  test("several secrets in one message are all redacted and the note is appended once", () => {
    const text = `creds: ${AWS_ID} / ${AWS_SECRET}, github ${GITHUB}, and the model key ${OPENAI}.`;
    const result = redact(text);
    expect(result).toEqual({
      text: `creds: ${REDACTED} / ${REDACTED}, github ${REDACTED}, and the model key ${REDACTED}.${REDACTION_NOTE}`,
      redacted: true,
      scannerError: false,
    });
    expect(count(result.text, REDACTION_NOTE)).toBe(1);
  });

  test("a re-posted redacted message with a new secret still carries the note once", () => {
    const first = redact(`old key ${GITHUB}`).text;
    const again = redact(`${OPENAI} — quoting: ${first}`);
    expect(again.text).toBe(`${REDACTED} — quoting: old key ${REDACTED}${REDACTION_NOTE}`);
  });

  test("every occurrence of a secret is replaced, including ones no rule would flag on their own", () => {
    // The bare second copy of the AWS secret has no name or key id next to it.
    const text = `aws_secret_access_key = ${AWS_SECRET}\n...later I pasted it again: ${AWS_SECRET} and once more ${AWS_SECRET}`;
    const result = redact(text);
    expect(result.text).not.toContain(AWS_SECRET);
    expect(count(result.text, REDACTED)).toBe(3);
    expect(count(result.text, REDACTION_NOTE)).toBe(1);
  });

  test("a short URL password is replaced elsewhere only where it stands as a whole word", () => {
    const text = "use mysql://app:Tr0ub4d@db.internal/app — Tr0ub4d is also the wifi password, not Tr0ub4dor";
    expect(redact(text).text).toBe(`use mysql://app:${REDACTED}@db.internal/app — ${REDACTED} is also the wifi password, not Tr0ub4dor${REDACTION_NOTE}`);
  });

  test("overlapping and touching findings are merged into one replacement", () => {
    const scanner: SecretScanner = {
      name: "overlapping",
      scan: (): SecretFinding[] => [
        { start: 4, end: 10, rule: "a" },
        { start: 8, end: 14, rule: "b" },
        { start: 14, end: 16, rule: "c" },
        { start: 20, end: 22, rule: "d" },
      ],
    };
    const result = redactSecrets("0123456789abcdefghijklmnop", scanner, OPTIONS);
    expect(result.text).toBe(`0123${REDACTED}ghij${REDACTED}mnop${REDACTION_NOTE}`);
  });

  test("a message without secrets comes back unchanged, with no note", () => {
    const text = "Merged 9fceb02d0ae598e95dc970b74767f19372d61af8, deploying 2.3.1 now.";
    expect(redact(text)).toEqual({ text, redacted: false, scannerError: false });
  });

  test("the URL rule redacts the password only, keeping user and host", () => {
    const text = "DATABASE_URL=postgres://maestro:N8v!q2Zr7xLp@pg-primary.prod.local:5432/app";
    expect(redact(text).text).toBe(`DATABASE_URL=postgres://maestro:${REDACTED}@pg-primary.prod.local:5432/app${REDACTION_NOTE}`);
  });

  test("a private key cut off by the length limit is still redacted to its end", () => {
    const body = "MIIEpAIBAAKCAQEA" + "q1W2e3R4t5Y6u7I8o9P0aSdFgHjKlZxCvBnM".repeat(4);
    const result = redact(`key:\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n${body}`);
    expect(result.text).toBe(`key:\n${REDACTED}${REDACTION_NOTE}`);
  });

  test("already-redacted text is left alone when scanned again", () => {
    for (const row of positives) {
      const once = redact(row.text);
      expect(redact(once.text).redacted, once.text).toBe(false);
    }
  });

  test("low-entropy, short and placeholder values are not secrets", () => {
    for (const text of [
      "password=hunter in prose",
      "token=abc",
      "password: ********",
      "api_key: ${OPENAI_API_KEY}",
      "token: <your-token>",
      "DB_PASSWORD=xxxxxxxxxxxx",
      "secret=changeme",
      "const apiKey = process.env.OPENAI_API_KEY;",
      "postgres://user:password@localhost:5432/db",
      "Authorization: Bearer $TOKEN",
      "tokenizer: cl100k_base, max_tokens=4096",
      "function signIn(name: string, password: string): Promise<void>",
      'const PASSWORD = "browser-test-password";',
    ]) {
      expect(redact(text).redacted, text).toBe(false);
    }
  });

  test("a JWT-shaped string whose header has no \"alg\" is not a JWT", () => {
    const header = "eyJ0eXAiOiJKV1QifQ"; // {"typ":"JWT"}
    expect(redact(`${header}.eyJzdWIiOiIxIn0.c2lnbmF0dXJl`).redacted).toBe(false);
    expect(redact(JWT).text).toBe(`${REDACTED}${REDACTION_NOTE}`);
  });
});

describe("fail-open", () => {
  const text = `my key ${GITHUB}`;

  test("a scanner that throws leaves the text as it was, flagged as a scanner error", () => {
    const broken: SecretScanner = {
      name: "broken",
      scan: () => {
        throw new Error("boom");
      },
    };
    expect(redactSecrets(text, broken, OPTIONS)).toEqual({ text, redacted: false, scannerError: true, error: "Error: boom" });
  });

  test("a clock that jumps past the deadline times the scan out between rules", () => {
    let calls = 0;
    const now = () => (calls++ === 0 ? 0 : 10_000); // the deadline is 800; every later reading is past it
    const scanner = createRuleScanner(SECRET_RULES, { now });
    const result = redactSecrets(text, scanner, { timeoutMs: 800, now });
    expect(result).toEqual({ text, redacted: false, scannerError: true, error: expect.stringMatching(/^ScannerTimeout: /) });
  });

  test("the configured timeout is honoured: the same slow scan passes under a long timeout and fails under a short one", () => {
    const slowClock = () => {
      let t = 0;
      return () => (t += 100); // 100 ms per reading: one before each rule that runs (two here: "key" and "ghp_" occur)
    };
    const run = (timeoutMs: number) => {
      const now = slowClock();
      return redactSecrets(text, createRuleScanner(SECRET_RULES, { now }), { timeoutMs, now });
    };
    expect(run(10_000)).toMatchObject({ redacted: true, scannerError: false });
    expect(run(150)).toMatchObject({ text, redacted: false, scannerError: true });
  });

  test("a scanner that ignores its deadline still counts as timed out when it overruns", () => {
    let t = 0;
    const now = () => t;
    const sluggish: SecretScanner = {
      name: "sluggish",
      scan: (input) => {
        t += 5_000;
        return ruleScanner.scan(input);
      },
    };
    expect(redactSecrets(text, sluggish, { timeoutMs: 800, now })).toMatchObject({ text, scannerError: true, error: expect.stringMatching(/ScannerTimeout/) });
  });

  test("scan() itself throws ScannerTimeout once the deadline has passed", () => {
    expect(() => ruleScanner.scan(text, -1)).toThrow(ScannerTimeout);
  });
});

describe("rules", () => {
  test("rule ids are unique and keywords are lowercase", () => {
    expect(new Set(SECRET_RULES.map((rule) => rule.id)).size).toBe(SECRET_RULES.length);
    for (const rule of SECRET_RULES) for (const keyword of rule.keywords) expect(keyword, rule.id).toBe(keyword.toLowerCase());
  });

  test("Shannon entropy and base64 decoding", () => {
    expect(shannonEntropy("")).toBe(0);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBe(2);
    expect(decodeBase64("eyJhbGciOiJIUzI1NiJ9")).toBe('{"alg":"HS256"}');
    expect(decodeBase64("dXNlcjpwYXNz")).toBe("user:pass");
    expect(decodeBase64("not base64!")).toBeNull();
  });

  test.each([
    ["DB_PASSWORD", true],
    ["apiKey", true],
    ["API_KEY_PROD", true],
    ["client_secret", true],
    ["aws_secret_access_key", true],
    ["REDIS_PASS", true],
    ["tokenizer", false],
    ["max_tokens", false],
    ["secretName", false],
    ["password_hash", false],
    ["next_page_token", false],
    ["bypass", false],
  ])("isSecretKeyName(%j) is %j", (key, expected) => {
    expect(isSecretKeyName(key)).toBe(expected);
  });
});

describe("anchored rules", () => {
  const texts = [...positiveTexts, ...negatives.map((row) => row.text), ...EVASION_POSITIVES.map((row) => row.text)];

  test.each(SECRET_RULES.filter((rule) => rule.startsAt !== undefined).map((rule) => [rule.id, rule] as const))(
    "%s: trying the pattern only where its keywords say finds exactly what a whole-text scan finds",
    (_id, rule) => {
      const anchored = createRuleScanner([rule]);
      const whole = createRuleScanner([{ ...rule, startsAt: undefined }]);
      const inputs = [...texts, ...adversarialInputs(rule, findingSamples(rule, positiveTexts)).map((input) => input.text)];
      for (const text of inputs) expect(anchored.scan(text), text.slice(0, 120)).toEqual(whole.scan(text));
    },
  );

  test("text whose lowercase changes length (İ) still finds secrets, at their own offsets", () => {
    const text = `İstanbul deploy: token ${GITHUB} and AKIAIOSFODNN7EXAMPLE`;
    expect("İ".toLowerCase().length).toBe(2);
    expect(ruleScanner.scan(text).map((finding) => text.slice(finding.start, finding.end))).toEqual([GITHUB, AWS_ID]);
  });
});

describe("labelled corpus", () => {
  test("has at least 200 positives across the providers and 500 negatives", () => {
    expect(positives.length).toBeGreaterThanOrEqual(200);
    expect(negatives.length).toBeGreaterThanOrEqual(500);
    const providers = new Set(positives.map((row) => row.provider));
    for (const provider of [
      "private-key",
      "aws-access-key-id",
      "aws-secret-access-key",
      "github",
      "gitlab",
      "slack",
      "slack-webhook",
      "stripe",
      "openai",
      "anthropic",
      "google",
      "jwt",
      "npm",
      "connection-string",
      "generic-assignment",
    ]) {
      expect(providers, provider).toContain(provider);
    }
  });

  test("recall ≥ 0.99 and no false positives on the clean set", () => {
    const result = score(ruleScanner, positives, negatives);
    console.log(
      `secret scanner corpus: recall ${result.recall.toFixed(4)} (${result.redactedSecrets}/${result.secrets} secrets fully redacted, ${positives.length} messages); ` +
        `false-positive rate ${result.falsePositiveRate.toFixed(4)} (${result.falsePositives}/${result.negatives} negatives)`,
    );
    for (const miss of result.missed) console.log(`  missed [${miss.provider}] ${JSON.stringify(miss.secret)} in ${JSON.stringify(miss.text.slice(0, 120))}`);
    for (const hit of result.flagged) console.log(`  false positive [${hit.kind}] ${JSON.stringify(hit.found)}`);
    expect(result.recall).toBeGreaterThanOrEqual(0.99);
    expect(result.falsePositives).toBe(0);
  });

  test("evasions: short key=value passwords, percent-encoding, invisible characters and wrapped keys are all redacted; the look-alike prose is not", () => {
    const result = score(ruleScanner, EVASION_POSITIVES, EVASION_NEGATIVES);
    console.log(
      `secret scanner evasions: recall ${result.recall.toFixed(4)} (${result.redactedSecrets}/${result.secrets}); false positives ${result.falsePositives}/${result.negatives}`,
    );
    expect(result.missed).toEqual([]);
    expect(result.flagged).toEqual([]);
    for (const provider of ["evasion-assignment", "evasion-percent", "evasion-invisible", "evasion-wrapped"]) {
      expect(EVASION_POSITIVES.filter((row) => row.provider === provider).length, provider).toBeGreaterThanOrEqual(5);
    }
  });

  test("the evasions are redacted through the whole redaction path too, note once", () => {
    for (const row of EVASION_POSITIVES) {
      const result = redact(row.text);
      for (const secret of row.secrets) expect(result.text, row.text).not.toContain(secret);
      expect(count(result.text, REDACTION_NOTE), row.text).toBe(1);
    }
  });

  test("every rule finds something in the corpus", () => {
    const found = new Set(positives.flatMap((row) => ruleScanner.scan(row.text).map((finding) => finding.rule)));
    const unused = SECRET_RULES.map((rule) => rule.id).filter((id) => !found.has(id));
    expect(unused).toEqual([]);
  });
});

/**
 * Problems that could make `source` backtrack super-linearly: unbounded
 * quantifiers (`*`, `+`, `{n,}`), a repeated group containing a repeated
 * atom (star height above one), and backreferences.
 */
function backtrackingHazards(source: string): string[] {
  const problems: string[] = [];
  // One frame per open group: whether something inside it repeats.
  const frames: Array<{ repeats: boolean }> = [{ repeats: false }];
  let lastAtom: { group: boolean; repeats: boolean } | null = null;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") {
      if (/[1-9k]/.test(source[i + 1] ?? "")) problems.push(`backreference at ${i}`);
      i++;
      lastAtom = { group: false, repeats: false };
      continue;
    }
    if (char === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      lastAtom = { group: false, repeats: false };
      continue;
    }
    if (char === "(") {
      frames.push({ repeats: false });
      if (source[i + 1] === "?") {
        // (?:  (?=  (?!  (?<=  (?<!  (?<name>
        i++;
        if (source[i + 1] === "<" && source[i + 2] !== "=" && source[i + 2] !== "!") i = source.indexOf(">", i);
        else i += source[i + 1] === "<" ? 2 : 1;
      }
      lastAtom = null;
      continue;
    }
    if (char === ")") {
      const frame = frames.pop()!;
      lastAtom = { group: true, repeats: frame.repeats };
      continue;
    }
    if (char === "|") {
      lastAtom = null;
      continue;
    }
    let max: number | null = null; // null: not a quantifier
    let end = i;
    if (char === "*" || char === "+") max = Infinity;
    else if (char === "?") max = 1;
    else if (char === "{") {
      const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (quantifier !== null) {
        max = quantifier[2] === undefined ? Number(quantifier[1]) : quantifier[3] === "" ? Infinity : Number(quantifier[3]);
        end = i + quantifier[0].length - 1;
      }
    }
    if (max === null) {
      lastAtom = { group: false, repeats: false };
      continue;
    }
    if (lastAtom === null) {
      problems.push(`quantifier without an atom at ${i}`);
    } else {
      if (max === Infinity) problems.push(`unbounded quantifier ${JSON.stringify(source.slice(i, end + 1))} at ${i}`);
      if (max > 1 && lastAtom.group && lastAtom.repeats) problems.push(`repeated group containing a repetition, at ${i}`);
      if (max > 1) frames[frames.length - 1].repeats = true;
      if (lastAtom.group && lastAtom.repeats) frames[frames.length - 1].repeats = true;
    }
    i = end;
    if (source[i + 1] === "?") i++; // lazy
    lastAtom = null;
  }
  return problems;
}

describe("no catastrophic backtracking", () => {
  test("the structural check catches the classic hazards", () => {
    expect(backtrackingHazards(/gh[pousr]_[A-Za-z0-9]{36,}/.source)).toHaveLength(1);
    expect(backtrackingHazards(/(a+)+$/.source).length).toBeGreaterThanOrEqual(2);
    expect(backtrackingHazards(/(?:[a-z]{1,20}\.){1,10}/.source)).toEqual(["repeated group containing a repetition, at 17"]);
    expect(backtrackingHazards(/(["'])x\1/.source)).toEqual(["backreference at 7"]);
    expect(backtrackingHazards(/(?<![a-z])(?:ab|cd)[0-9]{2,8}(?:\.[a-z]{2})?/.source)).toEqual([]);
  });

  test.each(SECRET_RULES.map((rule) => [rule.id, rule] as const))("%s: bounded quantifiers only, star height one", (_id, rule) => {
    expect(backtrackingHazards(rule.pattern.source)).toEqual([]);
  });

  // Generous: the slowest crafted input takes well under 1 ms on a laptop.
  const CAP_MS = 25;

  test.each(SECRET_RULES.map((rule) => [rule.id, rule] as const))(`%s: every crafted worst case of ${MESSAGE_CHARS} characters scans in under ${CAP_MS} ms`, (_id, rule) => {
    const scanner = createRuleScanner([rule]);
    let slowest = { ms: 0, name: "" };
    for (const input of adversarialInputs(rule, findingSamples(rule, positiveTexts))) {
      expect(input.text.length).toBeLessThanOrEqual(MESSAGE_CHARS);
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        scanner.scan(input.text);
        best = Math.min(best, performance.now() - started);
      }
      if (best > slowest.ms) slowest = { ms: best, name: input.name };
    }
    expect(slowest.ms, `slowest: ${slowest.name}`).toBeLessThan(CAP_MS);
  });
});
