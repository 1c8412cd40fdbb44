/**
 * The scanner's one pass (keywords.ts: keyword hits and view marks from one
 * automaton walk) and what the shipped scanner builds on it: the normalized
 * view kept only where a keyword can be, and generic-assignment tried only
 * where an assignment can follow. Each is checked against the plain
 * definition it replaces: a search per keyword, the whole view.
 */
import { describe, expect, test } from "vitest";
import {
  isInvisible,
  KeywordHits,
  keywordAutomaton,
  normalizedView,
  normalizeForScan,
  originalSpan,
  placeGate,
  ruleScanner,
  SECRET_RULES,
  VIEW_MARKS,
  viewMarks,
} from "../../convex/lib/secrets/index";
import { prng } from "../fixtures/secrets/corpus";
import { findingSpans, referenceScanner } from "./setup";

const KEYWORDS = [...new Set(SECRET_RULES.flatMap((rule) => rule.keywords))];
const automaton = keywordAutomaton(KEYWORDS, VIEW_MARKS);

/** Every (start, keyword) a search per keyword finds, ASCII case folded. */
function naiveHits(text: string, keywords: readonly string[]): string[] {
  const folded = text.replace(/[A-Z]/g, (char) => char.toLowerCase());
  const found: string[] = [];
  keywords.forEach((keyword, index) => {
    for (let at = folded.indexOf(keyword); at !== -1; at = folded.indexOf(keyword, at + 1)) found.push(`${at}:${index}`);
  });
  return found.sort();
}

function automatonHits(text: string): { hits: string[]; marks: number[] } {
  const result = automaton.scan(text, new KeywordHits());
  const hits: string[] = [];
  for (let k = 0; k < result.count; k++) hits.push(`${result.starts[k]}:${result.keywords[k]}`);
  return { hits: hits.sort(), marks: [...result.marks.subarray(0, result.markCount)] };
}

/** Random text over keyword fragments, marks and noise: dense in overlaps and near-misses. */
function randomText(random: () => number, length: number): string {
  const pieces = [...KEYWORDS, ...KEYWORDS.map((keyword) => keyword.toUpperCase()), "\n", "%41", "\\\n", "\u200b", "\u00ad", "İ", "K", "ſ", " ", "x", "=", ":"];
  let text = "";
  while (text.length < length) {
    const piece = pieces[Math.floor(random() * pieces.length)];
    text += random() < 0.3 ? piece.slice(0, 1 + Math.floor(random() * piece.length)) : piece;
  }
  return text;
}

describe("keyword automaton", () => {
  test("finds exactly what a search per keyword finds (overlaps, case, non-ASCII look-alikes), and every mark", () => {
    const random = prng(11);
    for (let n = 0; n < 300; n++) {
      const text = randomText(random, 200);
      const { hits, marks } = automatonHits(text);
      expect(hits, text).toEqual(naiveHits(text, KEYWORDS));
      expect(marks, text).toEqual([...viewMarks(text)]);
    }
  });

  test("a keyword ending inside a longer one is reported too; a mark resets the walk", () => {
    const small = keywordAutomaton(["--pass", "pass", "sk-", "sk-ant-"], [10]);
    const hits = small.scan("run --PASSWORD sk-ant-x sk\n-ant", new KeywordHits());
    const found = [...hits.starts.subarray(0, hits.count)].map((start, k) => `${start}:${small.keywords[hits.keywords[k]]}`);
    expect(found.sort()).toEqual(["15:sk-", "15:sk-ant-", "4:--pass", "6:pass"]);
    expect([...hits.marks.subarray(0, hits.markCount)]).toEqual([26]);
  });

  test("walk finds a keyword across pieces, and only a keyword", () => {
    const parts = ["xx se", "cr", "et yy"];
    let state = automaton.start;
    for (const part of parts.slice(0, 2)) state = automaton.walk(state, part, 0, part.length);
    expect(state).toBeGreaterThanOrEqual(0);
    expect(automaton.walk(state, parts[2], 0, parts[2].length)).toBe(-1);
    const plain = "plain\nwords%20here\u200b";
    expect(automaton.walk(automaton.start, plain, 0, plain.length)).toBeGreaterThanOrEqual(0);
    expect(automaton.walk(automaton.start, "abc TOKEN", 4, 9)).toBe(-1);
    expect(automaton.walk(automaton.start, "abc TOKEN", 0, 8)).toBeGreaterThanOrEqual(0);
  });

  test("keywords must be lowercase printable ASCII without mark characters", () => {
    expect(() => keywordAutomaton(["Key"])).toThrow(/lowercase printable ASCII/);
    expect(() => keywordAutomaton(["a%b"], VIEW_MARKS)).toThrow(/mark character/);
  });
});

/** The shipped scanner against every pattern over the text and its whole view. */
const reference = referenceScanner();

describe("the view is kept only where a keyword is", () => {
  const AWS = "AKIAIOSFODNN7EXAMPLE";
  const GITHUB = "ghp_FAKE0123456789abcdefghijklmnopqrstuv";

  test("a place without a keyword is dropped; one with a keyword is kept whole", () => {
    const text = `hash ab12cd34ef56\nab12cd34ef56 and token ${GITHUB.slice(0, 20)}\n${GITHUB.slice(20)} end`;
    const hits = automaton.scan(text, new KeywordHits());
    const whole = normalizeForScan(text)!;
    const kept = normalizedView(text, hits.marks, hits.markCount, [], placeGate(automaton, hits))!;
    expect([...hits.marks.subarray(0, hits.markCount)]).toEqual([...viewMarks(text)]);
    expect(whole.text).toContain("ab12cd34ef56ab12cd34ef56");
    expect(kept.text).not.toContain("ab12cd34ef56");
    expect(kept.text).toBe(GITHUB);
    expect(text.slice(...originalSpan(kept, 0, kept.text.length))).toBe(`${GITHUB.slice(0, 20)}\n${GITHUB.slice(20)}`);
  });

  test("wrapped lines: a keyword across a cut, or across two cuts of a short line, keeps the place", () => {
    const keptText = (text: string) => {
      const hits = automaton.scan(text, new KeywordHits());
      return normalizedView(text, hits.marks, hits.markCount, [], placeGate(automaton, hits))?.text ?? null;
    };
    // No keyword anywhere: dropped, though the whole view has the place.
    expect(normalizeForScan("x Ab3dEf9hQw\nZx7Yt5Rq y")?.text).toBe("Ab3dEf9hQwZx7Yt5Rq");
    expect(keptText("x Ab3dEf9hQw\nZx7Yt5Rq y")).toBeNull();
    // "token" only once the line break is cut out.
    expect(keptText("x Ab3dEf9hQwtok\nen7Yt5Rq y")).toBe("Ab3dEf9hQwtoken7Yt5Rq");
    expect(keptText("x Ab3dEf9hQwtok\r\n    en7Yt5Rq y")).toBe("Ab3dEf9hQwtoken7Yt5Rq");
    // A keyword over two cuts, the middle line shorter than the longest keyword.
    const twoCuts = "x Ab3dEf9hQwpypi-Ag\nEIcHlwaS\n5vcmc7Yt5Rq y";
    expect(normalizeForScan(twoCuts)?.text).toBe("Ab3dEf9hQwpypi-AgEIcHlwaS5vcmc7Yt5Rq");
    expect(keptText(twoCuts)).toBe("Ab3dEf9hQwpypi-AgEIcHlwaS5vcmc7Yt5Rq");
    // Only the first line is long enough to be cut: the view has no "credential", nor a place.
    expect(normalizeForScan("x Ab3dEf9hQwcred\nenti\nal7Yt5Rq y")?.text).toBe("Ab3dEf9hQwcredenti");
    expect(keptText("x Ab3dEf9hQwcred\nenti\nal7Yt5Rq y")).toBeNull();
  });

  test("a keyword split by invisible characters or %-escapes counts (it is whole in the view)", () => {
    for (const disguised of [`gh\u200bp_${GITHUB.slice(4)}`, `%67%68p_${GITHUB.slice(4)}`, `A\u00adKIA${AWS.slice(4)}`, `AK%49A${AWS.slice(4)}`]) {
      const text = `see ${disguised} there`;
      expect(automaton.scan(text, new KeywordHits()).count, disguised).toBe(0);
      const findings = ruleScanner.scan(text);
      expect(findings.length, disguised).toBeGreaterThan(0);
      expect(findingSpans(findings)).toEqual(findingSpans(reference.scan(text)));
    }
  });

  test("a secret at the very edge of a place (the window's first and last characters) is found", () => {
    // The place around an invisible character reaches DISGUISE_REACH (320) each side, then moves to whitespace.
    const pad = "x ".repeat(150);
    for (const text of [
      `${GITHUB} ${pad}\u200b${pad}`, // the secret where the window begins (the text's start)
      `${pad}\u200b${pad} ${GITHUB}`, // the secret past the window's end: found by the plain scan
      `${pad}\u200b${"y".repeat(280)} ${GITHUB.slice(0, 10)}\u200b${GITHUB.slice(10)}`, // a second window reaching to the text's end
      `${"z ".repeat(200)}${GITHUB.slice(0, 30)}\n${GITHUB.slice(30)}`, // a wrapped token at the end
    ]) {
      const findings = ruleScanner.scan(text);
      expect(findingSpans(findings), text.slice(-60)).toEqual(findingSpans(reference.scan(text)));
      const secretAt = text.indexOf(GITHUB.slice(0, 10));
      expect(findings.some((finding) => finding.start <= secretAt && secretAt < finding.end), text.slice(-60)).toBe(true);
    }
  });

  test("random texts of secrets, disguises and noise: the same findings as every pattern over the whole view", () => {
    const random = prng(7);
    const secrets = [AWS, GITHUB, "sk-ant-api03-FAKEabcdefghijklmnopqrstuvwxyz0123", "xoxb-123456789012-FAKEtokenvalue42", "password=Hunter42xyz"];
    const disguise = (secret: string) => {
      const at = 1 + Math.floor(random() * (secret.length - 2));
      const forms = [`${secret.slice(0, at)}\u200b${secret.slice(at)}`, `${secret.slice(0, at)}\n${secret.slice(at)}`, `${secret.slice(0, at)}\\\n  ${secret.slice(at)}`, `%${secret.charCodeAt(0).toString(16)}${secret.slice(1)}`, secret];
      return forms[Math.floor(random() * forms.length)];
    };
    for (let n = 0; n < 150; n++) {
      let text = "";
      while (text.length < 600) {
        const roll = random();
        text += roll < 0.2 ? disguise(secrets[Math.floor(random() * secrets.length)]) : roll < 0.5 ? "ab12Cd34Ef56Gh78\n" : roll < 0.7 ? "the key is here " : "plain words ";
      }
      expect(findingSpans(ruleScanner.scan(text)), text).toEqual(findingSpans(reference.scan(text)));
    }
  });

  test("marks: every invisible character the view removes is one", () => {
    for (let code = 0; code < 0x10000; code++) {
      if (isInvisible(code)) expect(VIEW_MARKS).toContain(code);
    }
  });
});

describe("generic-assignment is tried only where an assignment can follow", () => {
  test("a prefix word before the key name, the keyword only in the prefix: still found", () => {
    for (const text of ["secret value: Xy7pQ2rT9wZ", "SECRET\tstring = Xy7pQ2rT9wZ", "the master password is Xy7pQ2rT9wZ"]) {
      const findings = ruleScanner.scan(text);
      expect(findings.map((finding) => text.slice(finding.start, finding.end)), text).toContain("Xy7pQ2rT9wZ");
      expect(findingSpans(findings)).toEqual(findingSpans(reference.scan(text)));
    }
  });

  test("quotes, brackets, spacing and is/was after the key name", () => {
    for (const text of [
      'config["api_key"] = "Xy7pQ2rT9wZ"',
      "token   := Xy7pQ2rT9wZ",
      "DB_PASSWORD=>Xy7pQ2rT9wZ",
      "my password WAS Xy7pQ2rT9wZ",
      "'secret': 'Xy7pQ2rT9wZ'",
      "password:Xy7pQ2rT9wZ",
      "the token    = Xy7pQ2rT9wZ", // four spaces: no match in either
      `${"k".repeat(58)}_token = Xy7pQ2rT9wZ`, // a key name over 60 characters: no match in either
      "passwords are rotated; token rotation is weekly",
    ]) {
      expect(findingSpans(ruleScanner.scan(text)), text).toEqual(findingSpans(reference.scan(text)));
    }
  });
});
