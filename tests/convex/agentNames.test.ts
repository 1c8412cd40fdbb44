import { expect, test } from "vitest";
import { editDistance, normalizeName, resolveAgentNames, type RosterEntry } from "../../convex/lib/agentNames";

const roster: RosterEntry[] = [
  { name: "Jarvis", role: "Squad Lead", sessionKey: "agent:jarvis:p" },
  { name: "Dev Bot", role: "Full-stack Engineer", sessionKey: "agent:dev-bot:p" },
  { name: "Writer", role: "Copywriter", sessionKey: "agent:writer:p" },
  { name: "Zoë", role: "Designer", sessionKey: "agent:zoe:p" },
  { name: "Archie", role: "Reviewer", sessionKey: "agent:archie:p" },
  { name: "Rex", role: "Reviewer", sessionKey: "agent:rex:p" },
];

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
