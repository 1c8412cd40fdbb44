import type { Agent, AgentFormValues, AgentKind, ApprovalPolicy, Tool } from "./types";

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

/** The approval policies, as the form's select lists them (the delegation issue's words). */
export const APPROVAL_OPTIONS: ReadonlyArray<{ value: ApprovalPolicy; label: string; className: string }> = [
  { value: "never", label: "Never", className: "" },
  { value: "always", label: "Always", className: "" },
  { value: "high_priority", label: "When priority is high", className: "" },
];

/** A tool's policy for an agent: the agent's own when set, else the tool's default. */
export function effectiveApproval(tool: Tool, approvals: ReadonlyMap<string, ApprovalPolicy>): ApprovalPolicy {
  return approvals.get(tool.name) ?? tool.approval ?? "never";
}

/**
 * The policies to save: one per allowed tool whose policy differs from the
 * tool's default, in registry order. A tool no longer allowed loses its policy.
 */
export function approvalsToSave(tools: ReadonlyArray<Tool>, allowed: ReadonlySet<string>, approvals: ReadonlyMap<string, ApprovalPolicy>) {
  return tools
    .filter((tool) => allowed.has(tool.name) && effectiveApproval(tool, approvals) !== (tool.approval ?? "never"))
    .map((tool) => ({ tool: tool.name, policy: effectiveApproval(tool, approvals) }));
}

/** What a new agent's form starts with. */
export const EMPTY_AGENT: AgentFormValues = {
  name: "",
  role: "",
  kind: "specialist",
  model: undefined,
  systemPrompt: "",
  isSquadLead: false,
  allowedTools: [],
  toolApprovals: [],
};

/** The form values for editing an existing agent. */
export function valuesFromAgent(agent: Agent): AgentFormValues {
  const { name, role, kind, model, systemPrompt, isSquadLead, allowedTools } = agent;
  return { name, role, kind, model, systemPrompt, isSquadLead, allowedTools };
}
