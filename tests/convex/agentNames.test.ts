import { expect, test } from "vitest";
import { agentNamesIn, editDistance, normalizeName, resolveAgentNames, type RosterEntry } from "../../convex/lib/agentNames";

const roster: RosterEntry[] = (
  [
    ["Jarvis", "Squad Lead", "jarvis"],
    ["Dev Bot", "Full-stack Engineer", "dev-bot"],
    ["Writer", "Copywriter", "writer"],
    ["Zoë", "Designer", "zoe"],
    ["Archie", "Reviewer", "archie"],
    ["Rex", "Reviewer", "rex"],
  ] as const
).map(([name, role, slug]) => ({ name, role, sessionKey: `agent:${slug}:p` }));

test.each([
  ["dev bot"],
  ["DEV BOT"],
  ["dev_bot"],
  ["Dev-Bot"],
  ["@Dev Bot"],
  ["  dev   bot "],
  ["full stack engineer"],
])("%s resolves to Dev Bot", (requested) => {
  expect(resolveAgentNames([requested], roster)).toEqual({ resolved: [roster[1]], unknown: [] });
});

test("diacritics, roles that name one agent, and duplicates collapse", () => {
  const { resolved, unknown } = resolveAgentNames(["zoe", "the copywriter", "Writer", "writer"], roster);
  expect(resolved.map((a) => a.name)).toEqual(["Zoë", "Writer"]);
  expect(unknown).toEqual([]);
});

test("a role two agents share is not guessed: it fails with both suggested", () => {
  const { resolved, unknown } = resolveAgentNames(["reviewer"], roster);
  expect(resolved).toEqual([]);
  expect(unknown).toEqual([{ requested: "reviewer", suggestions: ["Archie", "Rex"] }]);
});

test("unknown names fail with the closest roster names, never a misroute", () => {
  const { resolved, unknown } = resolveAgentNames(["Dev Bto", "Designr", "Marketing Guru"], roster);
  expect(resolved).toEqual([]);
  expect(unknown[0]).toEqual({ requested: "Dev Bto", suggestions: ["Dev Bot"] });
  expect(unknown[1].suggestions[0]).toBe("Zoë");
  expect(unknown[2]).toEqual({ requested: "Marketing Guru", suggestions: [] });
});

test("helpers", () => {
  expect(normalizeName(" @The_Dev-Bot ")).toBe("dev bot");
  expect(editDistance("kitten", "sitting")).toBe(3);
});

test("agentNamesIn reads the longest name the roster has at each place, and stops after `max`", () => {
  const words = (text: string) => text.split(" ");
  expect(agentNamesIn(words("Dev Bot Writer"), roster)).toEqual({ names: ["Dev Bot", "Writer"], rest: [] });
  expect(agentNamesIn(words("dev bot fix the login"), roster, 1)).toEqual({ names: ["dev bot"], rest: words("fix the login") });
  // A role names its one agent; a word that starts no name stands alone.
  expect(agentNamesIn(words("the copywriter Nobody Jarvis"), roster)).toEqual({ names: ["the copywriter", "Nobody", "Jarvis"], rest: [] });
  // A quoted name arrives as one word.
  expect(agentNamesIn(["Dev Bot", "Launch", "tagline"], roster, 1)).toEqual({ names: ["Dev Bot"], rest: ["Launch", "tagline"] });
  // Two agents share "Reviewer": the role alone names neither.
  expect(agentNamesIn(words("Reviewer Rex"), roster)).toEqual({ names: ["Reviewer", "Rex"], rest: [] });
  expect(agentNamesIn([], roster)).toEqual({ names: [], rest: [] });
});
