import type { Agent, AgentFormValues, AgentKind } from "./types";

export type KindOption = { value: AgentKind; label: string; description: string };

// A record first, so adding a kind to the validator without a label fails to compile.
const KINDS: Record<AgentKind, Omit<KindOption, "value">> = {
  lead: { label: "Lead", description: "Breaks requests down and delegates them" },
  coder: { label: "Coder", description: "Writes and reviews code" },
  architect: { label: "Architect", description: "Plans systems and technical designs" },
  specialist: { label: "Specialist", description: "Deep expertise in one area" },
  writer: { label: "Writer", description: "Copy, docs and content" },
  designer: { label: "Designer", description: "Interfaces, flows and visuals" },
};

/** Agent kinds, in the order the form's select lists them. */
export const KIND_OPTIONS: ReadonlyArray<KindOption> = (Object.keys(KINDS) as AgentKind[]).map((value) => ({
  value,
  ...KINDS[value],
}));

/** What a new agent's form starts with. */
export const EMPTY_AGENT: AgentFormValues = {
  name: "",
  role: "",
  kind: "specialist",
  model: undefined,
  systemPrompt: "",
  isSquadLead: false,
  allowedTools: [],
};

/** The form values for editing an existing agent. */
export function valuesFromAgent(agent: Agent): AgentFormValues {
  const { name, role, kind, model, systemPrompt, isSquadLead, allowedTools } = agent;
  return { name, role, kind, model, systemPrompt, isSquadLead, allowedTools };
}
