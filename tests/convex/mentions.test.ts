import { describe, expect, test } from "vitest";
import { codeRanges, parseMentions, type MentionCandidate } from "../../convex/lib/mentions";

const SQUAD: MentionCandidate[] = [
  { key: "agent:jarvis:product", name: "Jarvis" },
  { key: "agent:dev-bot:product", name: "Dev Bot" },
  { key: "agent:writer:product", name: "Writer" },
  { key: "agent:archie:product", name: "Archie" },
  { key: "member:maestro-local|user:ada", name: "Ada" },
];

/** The names `text` mentions, in order of first mention. */
const names = (text: string, candidates = SQUAD) => parseMentions(text, candidates).map((m) => m.name);

describe("parseMentions", () => {
  test("multi-word names", () => {
    expect(names("@Dev Bot can you look?")).toEqual(["Dev Bot"]);
    expect(names("thanks @Dev Bot")).toEqual(["Dev Bot"]);
  });

  test("case-insensitive, reporting the candidate's own spelling, key and the @'s offset", () => {
    expect(parseMentions("hey @dEV bOT", SQUAD)).toEqual([{ key: "agent:dev-bot:product", name: "Dev Bot", index: 4 }]);
    expect(names("@JARVIS @writer")).toEqual(["Jarvis", "Writer"]);
  });

  test("unknown names stay plain text", () => {
    expect(names("@Nobody and @Dev without Bot")).toEqual([]);
    expect(names("@ Jarvis, @@")).toEqual([]);
  });

  test("not inside inline code", () => {
    expect(names("run `@Jarvis` now")).toEqual([]);
    expect(names("``code with ` and @Writer``, but @Archie")).toEqual(["Archie"]);
    expect(names("`@Jarvis` then @Jarvis")).toEqual(["Jarvis"]);
    // An unclosed backtick is not code.
    expect(names("a stray ` then @Writer")).toEqual(["Writer"]);
  });

  test("not inside fenced code blocks, closed or running to the end", () => {
    expect(names("```ts\nconst x = '@Jarvis';\n```\n@Writer")).toEqual(["Writer"]);
    expect(names("~~~\n@Archie\n~~~ @Ada")).toEqual(["Ada"]);
    expect(names("@Writer\n```\n@Jarvis never closed")).toEqual(["Writer"]);
  });

  test("e-mail addresses are not mentions", () => {
    expect(names("mail ada@writer.com or jarvis@Jarvis.io")).toEqual([]);
    expect(names("(@Writer) and -@Archie")).toEqual(["Writer", "Archie"]);
  });

  test("the longest name wins", () => {
    const withDev = [...SQUAD, { key: "agent:dev:product", name: "Dev" }];
    expect(names("@Dev Bot please", withDev)).toEqual(["Dev Bot"]);
    expect(names("@Dev please", withDev)).toEqual(["Dev"]);
    // "Dev Bot" does not end at a word boundary here, so "Dev" is the mention.
    expect(names("@Dev Bots", withDev)).toEqual(["Dev"]);
  });

  test("a mention ends at a word boundary", () => {
    expect(names("@Writers unite")).toEqual([]);
    expect(names("@Writer_2")).toEqual([]);
    expect(names("@Writerä")).toEqual([]);
    expect(names("@Writer9")).toEqual([]);
    expect(names("@Writer's draft, @Writer. @Writer!")).toEqual(["Writer"]);
    expect(names("@Writer-bot")).toEqual(["Writer"]);
  });

  test("members can be mentioned too", () => {
    expect(parseMentions("@ada", SQUAD)).toEqual([{ key: "member:maestro-local|user:ada", name: "Ada", index: 0 }]);
  });

  test("each mentionable once, at its first mention, in order of first mention", () => {
    expect(parseMentions("@Writer @Jarvis @writer", SQUAD)).toEqual([
      { key: "agent:writer:product", name: "Writer", index: 0 },
      { key: "agent:jarvis:product", name: "Jarvis", index: 8 },
    ]);
  });

  test("text whose lower case is longer than itself does not shift later mentions", () => {
    // "İ" lower-cases to two code units.
    expect(names("İstanbul office: @Writer and @Dev Bot")).toEqual(["Writer", "Dev Bot"]);
  });

  test("a blank name never matches a lone @", () => {
    expect(names("meet @ 5pm", [...SQUAD, { key: "member:blank", name: "" }])).toEqual([]);
  });
});

describe("codeRanges", () => {
  test("fences and inline spans, as [start, end) ranges", () => {
    const text = "a `b` c\n```\nd\n```\ne";
    expect(codeRanges(text)).toEqual([
      [8, 17],
      [2, 5],
    ]);
    expect(text.slice(8, 17)).toBe("```\nd\n```");
    expect(codeRanges("no code")).toEqual([]);
  });
});
