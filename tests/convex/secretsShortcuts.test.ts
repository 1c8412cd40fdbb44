/**
 * The scanner's speed shortcuts, each checked against the plain definition
 * it replaces: secrets placed without the regex `d` flag, pattern lists
 * joined into one regex, aws-secret-access-key tried only where a key name
 * follows "secret", keyword hits inside a place found by bisection,
 * out-of-range reads, places of wrapped lines not searched twice, key-name
 * words compared in place, the flat copy of the text, and redaction's
 * occurrences listed once per secret.
 */
import { describe, expect, test } from "vitest";
import {
  anyOf,
  codeAt,
  createRuleScanner,
  flatCopy,
  KeywordHits,
  keywordAutomaton,
  normalizeForScan,
  redactionSpans,
  ruleScanner,
  SECRET_RULES,
  secretSpan,
  VIEW_MARKS,
} from "../../convex/lib/secrets/index";
import { EVASION_POSITIVES } from "../fixtures/secrets/adversarial";
import { prng } from "../fixtures/secrets/corpus";
import { expectSameAsReference, findingSpans, referenceScanner, secretFixtures } from "./setup";

const { positives, negatives } = secretFixtures();
const fixtureTexts = [...positives.map((row) => row.text), ...EVASION_POSITIVES.map((row) => row.text), ...negatives.map((row) => row.text)];

const reference = referenceScanner();

describe("secretSpan: the secret group placed without the d flag", () => {
  test("gives the d flag's offsets for every match of every rule in every fixture", () => {
    let checked = 0;
    for (const rule of SECRET_RULES) {
      if (rule.secretGroup === undefined) continue;
      const indexed = new RegExp(rule.pattern.source, `gd${rule.pattern.flags.includes("i") ? "i" : ""}`);
      for (const text of fixtureTexts) {
        for (const match of text.matchAll(indexed)) {
          const expected = match.indices?.[rule.secretGroup] ?? null;
          expect(secretSpan(rule, match), `${rule.id}: ${text.slice(0, 120)}`).toEqual(expected === null ? null : [expected[0], expected[1]]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  test("the whole match when the rule has no group", () => {
    const rule = SECRET_RULES.find((candidate) => candidate.id === "github-token")!;
    const match = /ghp_[A-Za-z0-9]{36}/.exec(`token ghp_${"a1".repeat(18)} here`)!;
    expect(secretSpan(rule, match)).toEqual([6, 46]);
  });

  test("null when the group is not where afterSecret says, so the scanner asks the regex", () => {
    const rule = { ...SECRET_RULES.find((candidate) => candidate.id === "url-password")!, afterSecret: 0 };
    const match = new RegExp(rule.pattern.source).exec("postgres://admin:S3cretPassw0rd@db.internal:5432/app")!;
    expect(secretSpan(rule, match)).toBeNull();
    // The scanner still places it right (through the d flag).
    const scanner = createRuleScanner([rule]);
    const text = "postgres://admin:S3cretPassw0rd@db.internal:5432/app";
    const [finding] = scanner.scan(text);
    expect(text.slice(finding.start, finding.end)).toBe("S3cretPassw0rd");
  });
});

describe("anyOf: a list of patterns as one test", () => {
  const lists: RegExp[][] = [
    [/^abc$/, /x{2}/i, /\d+/, /^(?:true|false)$/i, /:\/\//],
    [/your|example/i, /^\$\{[^}]{0,20}\}?$/, /^[*xX•#.…_-]{1,20}$/],
    [],
  ];
  const inputs = [...fixtureTexts.slice(0, 400), "", "abc", "ABC", "xX", "TRUE", "http://x", "${HOME}", "••••", "Example", "12", "plain"];

  test.each(lists.map((list, i) => [i, list] as const))("list %i matches exactly when one of its patterns does", (_i, list) => {
    const joined = anyOf(list);
    for (const input of inputs) expect(joined(input), input).toBe(list.some((pattern) => pattern.test(input)));
  });

  test("refuses what cannot be joined: stateful flags, back-references", () => {
    expect(() => anyOf([/a/g])).toThrow(/cannot be joined/);
    expect(() => anyOf([/a/y])).toThrow(/cannot be joined/);
    expect(() => anyOf([/(a)\1/])).toThrow(/cannot be joined/);
    expect(() => anyOf([/(?<x>a)\k<x>/])).toThrow(/cannot be joined/);
  });
});

describe("aws-secret-access-key is tried only where a key name follows \"secret\"", () => {
  const rule = SECRET_RULES.find((candidate) => candidate.id === "aws-secret-access-key")!;
  const starts = rule.startsAt as (text: string, at: number) => readonly number[];
  const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2eX4Lp8";

  test.each([
    [`aws_secret_access_key = ${key}`, [0, 4]],
    [`AWS-SECRET-KEY: ${key}`, [0, 4]],
    [`awssecretkey=${key}`, [0, 3]],
    [`SecretAccessKey: ${key}`, [0]],
    [`secret.access.key ${key}`, [0]],
    [`secret access key is ${key}`, [0]],
    [`xaws secret_key = ${key}`, [1, 5]],
  ])("%s", (text, expected) => {
    const at = text.toLowerCase().indexOf("secret");
    expect(starts(text, at)).toEqual(expected);
    expect(ruleScanner.scan(text).some((finding) => text.slice(finding.start, finding.end) === key)).toBe(true);
  });

  test.each(["The secret to fast builds is caching.", "secret_value = 1", "secretive", "secret", "aws secret", "secret_ke"])("no start in %j", (text) => {
    expect(starts(text, text.indexOf("secret"))).toEqual([]);
  });
});

describe("keyword hits inside a place (bisection)", () => {
  test("anyWithin agrees with a look at every hit", () => {
    const automaton = keywordAutomaton(["key", "pass", "password", "sk-", "token"], VIEW_MARKS);
    const random = prng(7);
    const words = ["key", "pass", "password", "sk-", "token", "x", " ", "\n", "ke", "passwor"];
    for (let round = 0; round < 50; round++) {
      let text = "";
      while (text.length < 300) text += words[Math.floor(random() * words.length)];
      const hits = automaton.scan(text, new KeywordHits());
      for (let probe = 0; probe < 40; probe++) {
        const from = Math.floor(random() * (text.length + 2)) - 1;
        const to = from + Math.floor(random() * 40);
        let expected = false;
        for (let k = 0; k < hits.count; k++) if (hits.starts[k] >= from && hits.ends[k] <= to) expected = true;
        expect(hits.anyWithin(from, to), `${from}-${to}`).toBe(expected);
      }
    }
  });
});

describe("a keyword across a cut, told from the pass's state at the line's end", () => {
  test("crosses finds every keyword that starts before the cut and ends after it", () => {
    const keywords = ["key", "pass", "password", "sk-", "token", "pypi-ageichlwas5vcmc", "hooks.slack.com"];
    const automaton = keywordAutomaton(keywords, VIEW_MARKS);
    const random = prng(13);
    const pieces = [...keywords, ...keywords.map((keyword) => keyword.toUpperCase()), "x", "-", ".", "s", "k"];
    let checked = 0;
    for (let round = 0; round < 300; round++) {
      let text = "";
      while (text.length < 60) {
        const piece = pieces[Math.floor(random() * pieces.length)];
        text += random() < 0.4 ? piece.slice(0, 1 + Math.floor(random() * piece.length)) : piece;
      }
      const cut = 5 + Math.floor(random() * 40);
      const to = Math.min(text.length, cut + 19);
      // The pass's state before a mark right at the cut.
      const hits = automaton.scan(`${text.slice(0, cut)}\n`, new KeywordHits());
      const state = hits.markStates[hits.markCount - 1];
      const folded = text.toLowerCase();
      const across = keywords.some((keyword) => {
        for (let at = folded.indexOf(keyword); at !== -1; at = folded.indexOf(keyword, at + 1)) {
          if (at < cut && at + keyword.length > cut && at + keyword.length <= to) return true;
        }
        return false;
      });
      if (across) {
        expect(automaton.crosses(state, text, cut, to), `${text} | cut ${cut}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(automaton.crosses(automaton.start, "token", 0, 5)).toBe(false); // nothing before the cut
  });
});

describe("redaction finds a secret's other occurrences from the keyword hits", () => {
  const GH = "ghp_R8x2Kq9ZmT4vW7bN1cY5sL3dF6gH0jP2aQ8e";
  /** `text`'s spans with the scanner listing occurrences, and with a search of the whole text per secret. */
  const both = (text: string) => {
    const findings = ruleScanner.scan(text);
    return [redactionSpans(text, findings, ruleScanner), redactionSpans(text, findings)];
  };

  test("the same spans as a search of the whole text, for every fixture posted twice and mixed with others", () => {
    const texts = [...fixtureTexts];
    for (let i = 0; i + 1 < positives.length; i += 2) {
      const [a, b] = [positives[i].text, positives[i + 1].text];
      texts.push(`${a}\n${b}\nagain: ${a} ${b.toUpperCase()} ${b}`);
    }
    for (const text of texts) {
      const [listed, searched] = both(text);
      expect(listed, text.slice(0, 160)).toEqual(searched);
    }
  });

  test.each([
    ["a token repeated, once inside a longer word", `${GH} and x${GH}y and ${GH}`],
    ["the keyword in another case is another text", `${GH} and GHP_${GH.slice(4)} and ${GH}`],
    ["a short password, whole words only", "password=hunter2 and hunter2 but not hunter22 or xhunter2"],
    ["a secret without a keyword, repeated", "api_key: Zq8vR2mK9xW4pL7n then Zq8vR2mK9xW4pL7n"],
    ["a keyword split by an invisible character", `token gh\u200bp_${GH.slice(4)} and gh\u200bp_${GH.slice(4)}`],
    // Each repeat is a finding of its own; the ones after the first are recognised as listed already.
    ["a token repeated 200 times", Array.from({ length: 200 }, (_, i) => (i % 7 === 3 ? `x${GH}y` : GH)).join(" ")],
    ["a short password repeated, some inside words", Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? "password=hunter2" : i % 3 === 1 ? "xhunter2" : "hunter2")).join(" ")],
  ])("%s", (_name, text) => {
    const [listed, searched] = both(text);
    expect(listed).toEqual(searched);
    expect(listed.length).toBeGreaterThan(0);
  });

  test("findings out of order, repeated or overlapping give the spans of the sorted, distinct ones", () => {
    // Spans are sorted only when they come out of order: a scanner of another kind may list them any way.
    const text = `a ${GH} b hunter2 c ${GH} d password=hunter2`;
    const sorted = ruleScanner.scan(text);
    expect(sorted.length).toBeGreaterThan(2);
    const expected = redactionSpans(text, sorted);
    const shuffled = [...sorted].reverse();
    shuffled.push(sorted[0], { ...sorted[0], end: sorted[0].end - 3 }, { start: sorted[0].start + 2, end: sorted[0].end + 2, rule: "x" });
    const wider = redactionSpans(text, shuffled);
    expect(redactionSpans(text, [...sorted].reverse())).toEqual(expected);
    expect(redactionSpans(text, [...sorted, ...sorted])).toEqual(expected);
    expect(wider[0]).toEqual([sorted[0].start, sorted[0].end + 2]);
    expect(wider.slice(1)).toEqual(expected.slice(1));
  });

  test("a scanner asked about a text it did not scan last leaves it to the search", () => {
    const scanner = createRuleScanner(SECRET_RULES);
    const text = `ghp_${"aB3".repeat(12)}`;
    scanner.scan(text);
    expect(scanner.occurrences?.(text, 0, text.length)).toEqual([0]);
    scanner.scan("something else");
    expect(scanner.occurrences?.(text, 0, text.length)).toBeNull();
  });
});

describe("generic-assignment's prefix words and \"is\"/\"was\" compared in place, in any case", () => {
  test.each([
    "API Key: Zq8vR2mK9xW4pL7nQ",
    "SECRET VALUE: Zq8vR2mK9xW4pL7nQ",
    "Private Key = Zq8vR2mK9xW4pL7nQ",
    "the password WAS Zq8vR2mK9xW4pL7nQ",
    "my Token Is Zq8vR2mK9xW4pL7nQ",
    "Encryption key: Zq8vR2mK9xW4pL7nQ and ENCRYPTION password: Zq8vR2mK9xW4pL7nQ",
    "apix key: Zq8vR2mK9xW4pL7nQ", // not a prefix word: the key name is just "key"
    "password island Zq8vR2mK9xW4pL7nQ", // "is" starting a longer word
  ])("%s", (text) => {
    expect(findingSpans(ruleScanner.scan(text))).toEqual(findingSpans(reference.scan(text)));
  });

  test("the upper-case forms are found", () => {
    for (const text of ["API Key: Zq8vR2mK9xW4pL7nQ", "the password WAS Zq8vR2mK9xW4pL7nQ", "my Token Is Zq8vR2mK9xW4pL7nQ"]) {
      expect(ruleScanner.scan(text).length, text).toBeGreaterThan(0);
    }
  });
});

describe("the scanner reads a flat copy of the text", () => {
  test("flatCopy keeps every code unit, a surrogate pair cut in the middle included", () => {
    for (const text of ["", "short", "x".repeat(63), `${"a".repeat(40)}\u{1F600}${"b".repeat(40)}`, fixtureTexts.join("\n")]) {
      expect(flatCopy(text)).toBe(text);
    }
    const pair = `${"a".repeat(49)}\u{1F600}${"b".repeat(50)}`; // the pair straddles the middle
    expect(flatCopy(pair)).toBe(pair);
  });

  test("a text cut from a longer one: the same findings, and redaction still lists occurrences from its hits", () => {
    const GH = "ghp_R8x2Kq9ZmT4vW7bN1cY5sL3dF6gH0jP2aQ8e";
    const whole = `${"lead ".repeat(30)}token ${GH} then ${GH} and password=hunter2x9${" tail".repeat(30)}`;
    const cut = whole.slice(150, whole.length - 150);
    const flat = JSON.parse(JSON.stringify(cut)) as string;
    const findings = ruleScanner.scan(cut);
    expect(findings).toEqual(ruleScanner.scan(flat));
    ruleScanner.scan(cut);
    expect(ruleScanner.occurrences?.(cut, findings[0].start, findings[0].end)).toEqual([findings[0].start, findings[0].start + GH.length + 6]);
    expect(redactionSpans(cut, findings, ruleScanner)).toEqual(redactionSpans(cut, findings));
  });
});

describe("reads off either end of the text", () => {
  test("codeAt is -1 outside the text, the code unit inside", () => {
    expect(codeAt("ab", -1)).toBe(-1);
    expect(codeAt("ab", 2)).toBe(-1);
    expect(codeAt("ab", 1)).toBe(98);
    expect(codeAt("", 0)).toBe(-1);
  });

  test.each([
    "password",
    "password=",
    "api key",
    "secret",
    "aws_secret",
    "x password is",
    "token:",
    "%",
    "%4",
    "\\",
    "abc\r",
    "AKIAabcd1234EFGH\r",
  ])("a text ending mid-pattern (%j) scans as the reference does", (text) => {
    expectSameAsReference([text, `${text} `, ` ${text}`]);
  });
});

describe("wrapped lines: the view is cut, searched and placed as before", () => {
  const token = "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5";

  test("which line breaks join a token (long enough and random-looking)", () => {
    expect(normalizeForScan("abcdefg1\nxyz")?.text).toBe("abcdefg1xyz");
    expect(normalizeForScan("abcdefgH\nxyz")?.text).toBe("abcdefgHxyz");
    expect(normalizeForScan("bcdefg1\nxyz")).toBeNull(); // 7 characters
    expect(normalizeForScan("Configuration\nnext")).toBeNull(); // a word
    expect(normalizeForScan("bitbucket.org/acme/infra.git\nnext")).toBeNull(); // a path
    expect(normalizeForScan("abcdefg1\n x")?.text).toBe("abcdefg1x");
    expect(normalizeForScan("abcdefg1\r\n\tx")?.text).toBe("abcdefg1x");
    expect(normalizeForScan("abcdefg1\n-")?.text).toBe("abcdefg1-");
    expect(normalizeForScan("abcdefg1\n:")).toBeNull(); // no token goes on
  });

  test("a key wrapped with its keyword before the break, after it, or across it", () => {
    const texts: string[] = [];
    const caught: string[] = [];
    for (let cut = 1; cut < token.length; cut += 3) {
      const pair = [`${token.slice(0, cut)}\n${token.slice(cut)}`, `see ${token.slice(0, cut)}\r\n    ${token.slice(cut)} ok`];
      texts.push(...pair);
      // A line break is joined after at least 8 token characters (MIN_WRAPPED_RUN).
      if (cut >= 8) caught.push(...pair);
    }
    expectSameAsReference(texts);
    for (const text of caught) expect(ruleScanner.scan(text).length, text).toBeGreaterThan(0);
  });

  test("at the text's edges, next to other places, and wrapped twice", () => {
    const password = "Zq8vR2mK9xW4";
    expectSameAsReference([
      `${token}\nx`,
      `x\n${token}`,
      `${token.slice(0, 20)}\n${token.slice(20, 30)}\n${token.slice(30)}`,
      `password=${password.slice(0, 6)}\n${password.slice(6)}`,
      `password=${password.slice(0, 6)}\u200b${password.slice(6)}\nnext1234 line`,
      `api_key: %67hp_${token.slice(4, 20)}\n${token.slice(20)}`,
      `${"a1".repeat(200)}\n${token}`,
      `${token}\n${"b2".repeat(200)}`,
      `token = abc123DEF456\\\n    ghi789`,
    ]);
  });
});

describe("jwt: headers that cannot name an algorithm are dropped before JSON.parse", () => {
  const base64url = (text: string) => btoa(text).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const jwt = (header: string) => `${base64url(header)}.${base64url('{"sub":"1234567890","name":"Ann"}')}.c2lnbmF0dXJlLWJ5dGVz`;
  const found = (text: string) => ruleScanner.scan(text).some((finding) => finding.rule === "jwt");

  test("a header with \"alg\", written plainly or with \\u escapes, is a JWT", () => {
    expect(found(`token ${jwt('{"alg":"HS256","typ":"JWT"}')}`)).toBe(true);
    expect(found(`token ${jwt('{"\\u0061lg":"HS256"}')}`)).toBe(true);
  });

  test("a header without it is not, nor one that is not JSON", () => {
    expect(found(`token ${jwt('{"typ":"JWT","kid":"k1"}')}`)).toBe(false);
    expect(found(`token ${jwt('{"alg":')}`)).toBe(false);
    expect(found(`token ${jwt('{"alg":5}')}`)).toBe(false);
  });
});
