import { expect, test } from "vitest";
import { editDistance, normalizeName, resolveAgentNames, type RosterEntry } from "../../convex/lib/agentNames";

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
