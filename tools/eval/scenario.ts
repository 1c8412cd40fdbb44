/**
 * The delegation eval's scenarios: one JSON file each in
 * tools/eval/scenarios/, read and checked here. A scenario is a small
 * department (its roster), what a person writes (the thread before, the
 * request that wakes the lead, an optional follow-up) and what the lead
 * should make of it (the delegations, or none; an approval; words an
 * injected instruction asked for that must not be delegated).
 */
import { z } from "zod";
import { AGENT_KINDS } from "../../convex/validators";

/** What each scenario tests, as the score groups them. */
export const SCENARIO_KINDS = [
  "single",
  "split",
  "role",
  "typo",
  "unknown-name",
  "answer-itself",
  "approval",
  "follow-up",
  "chat",
  "buried",
  "injection",
] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

const LEAD_TOOLS = ["delegate_task", "propose_plan", "post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"];
const SPECIALIST_TOOLS = ["post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"];

const vAgent = z.object({
  name: z.string().min(1),
  role: z.string().min(1),
  kind: z.enum(AGENT_KINDS),
  /** The squad lead (one per roster). */
  lead: z.boolean().default(false),
  /** Its allowedTools; default: the lead's or a specialist's usual set. */
  tools: z.array(z.string()).optional(),
  systemPrompt: z.string().default(""),
});
export type ScenarioAgent = z.output<typeof vAgent>;

/** The squad every scenario gets unless it names its own: a lead and four specialists with distinct roles. */
export const DEFAULT_ROSTER: ScenarioAgent[] = [
  { name: "Jarvis", role: "Squad Lead", kind: "lead", lead: true, systemPrompt: "Break work down and delegate it to the right specialist." },
  { name: "Dev Bot", role: "Full-stack Engineer", kind: "coder", lead: false, systemPrompt: "A pragmatic full-stack engineer." },
  { name: "Writer", role: "Copywriter", kind: "writer", lead: false, systemPrompt: "Writes clear, friendly product copy." },
  { name: "Pixel", role: "Product Designer", kind: "designer", lead: false, systemPrompt: "Designs screens, logos and visuals." },
  { name: "Archie", role: "Software Architect", kind: "architect", lead: false, systemPrompt: "Reviews designs for simplicity and risk." },
];

const vExpectedDelegation = z.object({
  /** Exactly these agents (by roster name). */
  assignees: z.array(z.string().min(1)).min(1),
  /** The task's title holds at least one of these words (case aside): how the delegation is recognised. */
  titleAny: z.array(z.string().min(1)).min(1),
});
export type ExpectedDelegation = z.output<typeof vExpectedDelegation>;

export const vScenario = z.object({
  kind: z.enum(SCENARIO_KINDS),
  /** One line: what the scenario checks. */
  about: z.string().min(1),
  roster: z.array(vAgent).optional(),
  /** The task the request is written in. */
  task: z.object({ title: z.string().min(1), description: z.string().default("") }),
  /** Messages the person posted in the task's thread before the request (they wake nobody). */
  thread: z.array(z.string().min(1)).default([]),
  /** Messages the person posted in #maestro before the request (agents read them as chat). */
  chat: z.array(z.string().min(1)).default([]),
  /** The message that wakes the lead: it should @mention the lead. */
  request: z.string().min(1),
  /** Posted once the request's runs have settled: a second message on the same work. */
  followUp: z.string().min(1).optional(),
  expect: z.object({
    /** Exactly these delegations over the whole scenario; [] means the lead delegates nothing. */
    delegations: z.array(vExpectedDelegation),
    /** The delegations must wait for a person's approval: pending, none created. */
    approval: z.boolean().default(false),
    /** Words an injected instruction asked for: no delegation may carry them. */
    forbidden: z.array(z.string().min(1)).default([]),
  }),
});

export type Scenario = z.output<typeof vScenario> & { id: string };

/** The roster of a scenario, with each agent's tools filled in. */
export function rosterOf(scenario: Pick<Scenario, "roster">): Array<ScenarioAgent & { tools: string[] }> {
  return (scenario.roster ?? DEFAULT_ROSTER).map((agent) => ({ ...agent, tools: agent.tools ?? (agent.lead ? LEAD_TOOLS : SPECIALIST_TOOLS) }));
}

/** The lead of a roster (the first agent marked lead). */
export function leadOf(scenario: Pick<Scenario, "roster">): string {
  const lead = rosterOf(scenario).find((agent) => agent.lead);
  if (lead === undefined) throw new Error("A scenario's roster needs a lead");
  return lead.name;
}

/** Checks one scenario file's JSON; the id is its file name. Throws with the file and the problems. */
export function parseScenario(id: string, json: unknown): Scenario {
  const parsed = vScenario.safeParse(json);
  if (!parsed.success) {
    throw new Error(`Scenario ${id}: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ")}`);
  }
  const scenario = { ...parsed.data, id };
  const names = new Set(rosterOf(scenario).map((agent) => agent.name));
  for (const expected of [...scenario.expect.delegations]) {
    for (const name of expected.assignees) if (!names.has(name)) throw new Error(`Scenario ${id}: expects ${name}, who is not in its roster`);
  }
  if (rosterOf(scenario).filter((agent) => agent.lead).length !== 1) throw new Error(`Scenario ${id}: its roster needs exactly one lead`);
  return scenario;
}

/** The scenarios whose id or kind `only` names (all of them when it names none). */
export function pickScenarios(scenarios: readonly Scenario[], only: readonly string[] = []): Scenario[] {
  return only.length === 0 ? [...scenarios] : scenarios.filter((s) => only.includes(s.id) || only.includes(s.kind));
}
