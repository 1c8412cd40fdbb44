import { describe, expect, test } from "vitest";
import {
  createRuleScanner,
  CUT_SCAN_WINDOW,
  HARD_CAP_CHARS,
  normalizeForScan,
  originalSpan,
  REDACTED,
  REDACTION_NOTE,
  rejectionThreshold,
  REJECT_OVER_LIMIT_FACTOR,
  ruleScanner,
  scanUserText,
  SECRET_RULES,
  TextTooLongError,
  textTooLongMessage,
  TRUNCATION_MARK,
  withNormalization,
  type SecretScanner,
  type UserTextOptions,
} from "../../convex/lib/secrets/index";

const GITHUB = "ghp_FAKE0123456789abcdefghijklmnopqrstuv";
const AWS_ID = "AKIAIOSFODNN7EXAMPLE";

function options(overrides: Partial<UserTextOptions> = {}): UserTextOptions {
  return { maxChars: 4096, enabled: true, timeoutMs: 800, log: () => {}, ...overrides };
}

/** The rule scanner, recording the length of every text it is given. */
function recordingScanner(lengths: number[]): SecretScanner {
  return { name: "recording", scan: (text, deadline) => (lengths.push(text.length), ruleScanner.scan(text, deadline)) };
}

describe("the spec's strings", () => {
  test("truncation mark, redaction and note are the spec's exact strings", () => {
    expect(TRUNCATION_MARK).toBe(" … [truncated]");
    expect(REDACTED).toBe("[redacted]");
    expect(REDACTION_NOTE).toBe(" (Note: content redacted by scanner)");
  });
});

describe("scanUserText", () => {
  test("a short text without secrets comes back as it is", () => {
    expect(scanUserText("deploying 2.3.1 now", options())).toEqual({ text: "deploying 2.3.1 now", truncated: false, redacted: false, scannerError: false });
  });

  test("secrets are redacted and the note appended once; a re-post keeps one note", () => {
    const first = scanUserText(`keys ${AWS_ID} and ${GITHUB}`, options());
    expect(first).toEqual({ text: `keys ${REDACTED} and ${REDACTED}${REDACTION_NOTE}`, truncated: false, redacted: true, scannerError: false });
    const again = scanUserText(`${GITHUB} — quoting: ${first.text}`, options());
    expect(again.text).toBe(`${REDACTED} — quoting: keys ${REDACTED} and ${REDACTED}${REDACTION_NOTE}`);
  });

  test("a long text is cut to the limit, mark included, then the note after the mark", () => {
    const result = scanUserText(`${GITHUB} ${"a".repeat(200)}`, options({ maxChars: 100 }));
    expect(result.text).toBe(`${REDACTED} ${"a".repeat(100 - TRUNCATION_MARK.length - GITHUB.length - 1)}${TRUNCATION_MARK}${REDACTION_NOTE}`);
    expect(result).toMatchObject({ truncated: true, redacted: true });
    expect(scanUserText("b".repeat(101), options({ maxChars: 100 })).text).toHaveLength(100);
  });

  test("a secret crossing the cut is redacted up to the cut: none of it is stored", () => {
    const prefix = "see ";
    for (const into of [5, 12, GITHUB.length - 1]) {
      const maxChars = prefix.length + into + TRUNCATION_MARK.length;
      const result = scanUserText(`${prefix}${GITHUB} and more text after it`, options({ maxChars }));
      expect(result.text, `cut ${into} characters into the token`).toBe(`${prefix}${REDACTED}${TRUNCATION_MARK}${REDACTION_NOTE}`);
    }
  });

  test("the cut never splits a surrogate pair", () => {
    const result = scanUserText("🙂".repeat(50), options({ maxChars: 15 + TRUNCATION_MARK.length }));
    expect(result.text).toBe("🙂".repeat(7) + TRUNCATION_MARK);
  });

  test("only the kept part and a bounded window past the cut are scanned, never the whole input", () => {
    const lengths: number[] = [];
    const maxChars = 4096;
    const text = `${"word ".repeat(3200)}${GITHUB}`; // 16,040 characters: under 4× the limit
    const result = scanUserText(text, options({ maxChars, scanner: recordingScanner(lengths) }));
    expect(lengths).toEqual([maxChars - TRUNCATION_MARK.length + CUT_SCAN_WINDOW]);
    expect(result).toMatchObject({ truncated: true, redacted: false, scannerError: false });
  });

  test("a text at the hard cap scans without failing open, and with a stopped clock cannot time out", () => {
    const lengths: number[] = [];
    const text = `${AWS_ID} ${"lorem ipsum dolor sit amet ".repeat(HARD_CAP_CHARS / 27)}`.slice(0, HARD_CAP_CHARS);
    // The scanner and scanUserText share the stopped clock: a deadline is a value of the scanner's own clock.
    const stopped = () => 0;
    const scanner = withNormalization(createRuleScanner(SECRET_RULES, { now: stopped }));
    const recording: SecretScanner = { name: "recording", scan: (t, deadline) => (lengths.push(t.length), scanner.scan(t, deadline)) };
    const result = scanUserText(text, options({ maxChars: HARD_CAP_CHARS, scanner: recording, now: stopped }));
    expect(result).toMatchObject({ truncated: false, redacted: true, scannerError: false });
    expect(result.text.startsWith(`${REDACTED} lorem`)).toBe(true);
  });

  test("text over the threshold is refused: a clear message, and scanUserText throws rather than scan", () => {
    expect(REJECT_OVER_LIMIT_FACTOR).toBe(4);
    expect(rejectionThreshold(100)).toBe(400);
    expect(rejectionThreshold(4096)).toBe(16_384);
    expect(rejectionThreshold(1_000_000)).toBe(HARD_CAP_CHARS);
    expect(textTooLongMessage("a".repeat(400), 100)).toBeNull();
    expect(textTooLongMessage("a".repeat(401), 100, "A task title")).toBe(
      "A task title is too long: 401 characters; the limit is 100 (longer text is cut), and nothing over 400 is accepted.",
    );
    const lengths: number[] = [];
    expect(() => scanUserText("a".repeat(401), options({ maxChars: 100, scanner: recordingScanner(lengths), source: "task title" }))).toThrow(TextTooLongError);
    expect(() => scanUserText("a".repeat(HARD_CAP_CHARS + 1), options({ maxChars: 1_000_000 }))).toThrow(/nothing over 262144/);
    expect(lengths).toEqual([]);
  });

  test("scanner off: cut and marked, nothing redacted", () => {
    expect(scanUserText(`raw ${GITHUB}`, options({ enabled: false }))).toEqual({ text: `raw ${GITHUB}`, truncated: false, redacted: false, scannerError: false });
    expect(scanUserText(`${GITHUB}${"c".repeat(100)}`, options({ enabled: false, maxChars: 40 })).text).toBe(GITHUB.slice(0, 26) + TRUNCATION_MARK);
  });

  test("a genuine scanner error fails open: the (cut) text unscanned, scannerError logged", () => {
    const lines: string[] = [];
    const broken: SecretScanner = {
      name: "broken",
      scan: () => {
        throw new Error("boom");
      },
    };
    const result = scanUserText(`${GITHUB} ${"d".repeat(100)}`, options({ maxChars: 60, scanner: broken, source: "chat.post", log: (line) => lines.push(line) }));
    expect(result).toEqual({
      text: `${GITHUB} ${"d".repeat(60 - TRUNCATION_MARK.length - GITHUB.length - 1)}${TRUNCATION_MARK}`,
      truncated: true,
      redacted: false,
      scannerError: true,
      error: "Error: boom",
    });
    expect(lines).toEqual(["chat.post scannerError=true: Error: boom"]);
  });

  test("a timeout fails open the same way, honouring the configured timeout", () => {
    let t = 0;
    const now = () => (t += 500);
    expect(scanUserText(`my key ${GITHUB}`, options({ timeoutMs: 100, now }))).toMatchObject({ text: `my key ${GITHUB}`, scannerError: true, error: expect.stringMatching(/^ScannerTimeout/) });
    t = 0;
    expect(scanUserText(`my key ${GITHUB}`, options({ timeoutMs: 1_000_000, now }))).toMatchObject({ text: `my key ${REDACTED}${REDACTION_NOTE}`, scannerError: false });
  });
});

describe("normalized view", () => {
  test("nothing to undo: null", () => {
    expect(normalizeForScan("plain text, one line")).toBeNull();
    expect(normalizeForScan("short\nlines\nonly")).toBeNull();
    expect(normalizeForScan("100% sure")).toBeNull();
  });

  test("invisible characters, %xx, %25xx, \\ + newline and wrapped tokens are undone, each character mapped to its original span", () => {
    const text = "A\u200bK%49A%2541\\\n  BCDEFGHIJK\nLM";
    const normalized = normalizeForScan(text)!;
    expect(normalized.text).toBe("AKIAABCDEFGHIJKLM");
    const spanOf = (i: number) => text.slice(...originalSpan(normalized, i, i + 1));
    expect([0, 1, 2, 3, 4, 15].map(spanOf)).toEqual(["A", "K", "%49", "A", "%2541", "L"]);
  });

  test("non-printable escapes and ordinary line ends stay as written", () => {
    expect(normalizeForScan("a%0Ab%00c")).toBeNull();
    expect(normalizeForScan("short\n  next")).toBeNull();
    expect(normalizeForScan("internationalization:\nnext")).toBeNull();
  });

  test("findings in the normalized view cover the whole original span, invisible characters included", () => {
    const disguised = `id AKIA\u200bIOSF\u00adODNN7EXAMPLE, token ${GITHUB.slice(0, 20)}\n${GITHUB.slice(20)} end`;
    const result = scanUserText(disguised, options());
    expect(result.text).toBe(`id ${REDACTED}, token ${REDACTED} end${REDACTION_NOTE}`);
    expect(withNormalization({ name: "none", scan: () => [] }).scan(disguised)).toEqual([]);
  });
});
