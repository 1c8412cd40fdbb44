import { env } from "../_generated/server";

/**
 * The brain's limits, as config values: defaults here, overridable through
 * the deployment's environment (MAESTRO_MAX_TOOL_ITERATIONS, ...).
 */
export interface BrainConfig {
  /** Model calls that may be followed by tool calls before the agent must answer. */
  maxToolIterations: number;
  /** How deep a chain of delegations (parentTaskId → …) may go. */
  maxDelegationDepth: number;
  /** Delegations one run may make. */
  maxDelegationsPerRun: number;
  /** Tokens of thread history put in the prompt (newest kept). */
  threadTokenBudget: number;
  /** Tokens of channel, thread and DM messages injected into a prompt (lib/injection). */
  injectionTokenBudget: number;
}

export const DEFAULT_BRAIN_CONFIG: BrainConfig = {
  maxToolIterations: 2,
  maxDelegationDepth: 3,
  maxDelegationsPerRun: 5,
  threadTokenBudget: 3000,
  injectionTokenBudget: 768,
};

function positiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

export function brainConfig(source: Record<string, string | undefined> = env): BrainConfig {
  return {
    maxToolIterations: positiveInt(source.MAESTRO_MAX_TOOL_ITERATIONS, DEFAULT_BRAIN_CONFIG.maxToolIterations),
    maxDelegationDepth: positiveInt(source.MAESTRO_MAX_DELEGATION_DEPTH, DEFAULT_BRAIN_CONFIG.maxDelegationDepth),
    maxDelegationsPerRun: positiveInt(source.MAESTRO_MAX_DELEGATIONS_PER_RUN, DEFAULT_BRAIN_CONFIG.maxDelegationsPerRun),
    threadTokenBudget: positiveInt(source.MAESTRO_THREAD_TOKEN_BUDGET, DEFAULT_BRAIN_CONFIG.threadTokenBudget),
    injectionTokenBudget: positiveInt(source.MAESTRO_INJECTION_TOKEN_BUDGET, DEFAULT_BRAIN_CONFIG.injectionTokenBudget),
  };
}
