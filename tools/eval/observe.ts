/**
 * What happened in a scenario's department, as the score reads it, from a
 * snapshot of its records: the CLI takes the snapshot through the owner's
 * own queries (runner.ts), the app through the same records inside the
 * deployment (convex/evals.ts). Pure, so both read one way.
 */
import type { DepartmentSnapshot } from "../../convex/lib/evalResults";
import type { Observed, ObservedCall, ObservedDelegation, ObservedRun } from "./score";

export type { DepartmentSnapshot, TaskSnapshot } from "../../convex/lib/evalResults";

/** The department's records read as delegations, the lead's calls, runs and replies; `followUpAt` splits the two steps. */
export function observeSnapshot(snapshot: DepartmentSnapshot, lead: string, followUpAt: number): Observed {
  const stepOf = (at: number) => (at >= followUpAt ? 1 : 0);
  const delegations: Array<ObservedDelegation & { at: number }> = [];
  const calls: ObservedCall[] = [];
  const runs: ObservedRun[] = [];
  for (const task of snapshot.tasks) {
    if (task.delegated) {
      delegations.push({ title: task.title, description: task.description, assignees: task.assignees, priority: task.priority, state: "created", step: stepOf(task.createdAt), at: task.createdAt });
    }
    for (const card of task.approvals) {
      if (card.status !== "pending") continue;
      // A paused call is recorded on its run only once it is settled: the card is its record meanwhile.
      if (card.agentName === lead) calls.push({ name: card.tool, args: card.args, outcome: "waiting", observation: "waiting for a person's approval", step: stepOf(card.createdAt) });
      if (card.tool !== "delegate_task") continue;
      const args = JSON.parse(card.args) as { title?: unknown; description?: unknown; assignees?: unknown; priority?: unknown };
      delegations.push({
        title: String(args.title ?? ""),
        description: String(args.description ?? ""),
        assignees: Array.isArray(args.assignees) ? args.assignees.map(String) : [],
        priority: String(args.priority ?? ""),
        state: "pending",
        step: stepOf(card.createdAt),
        at: card.createdAt,
      });
    }
    // A plan the lead proposed waits for a person too: each step is a delegation waiting.
    for (const plan of task.plans) {
      if (plan.status !== "pending") continue;
      if (plan.agentName === lead) calls.push({ name: "propose_plan", args: JSON.stringify({ summary: plan.summary, steps: plan.steps }), outcome: "waiting", observation: "waiting for a person to decide the plan", step: stepOf(plan.createdAt) });
      for (const step of plan.steps) {
        delegations.push({ title: step.title, description: step.description ?? "", assignees: [step.assignee], priority: step.priority ?? "", state: "pending", step: stepOf(plan.createdAt), at: plan.createdAt });
      }
    }
    for (const run of task.runs) {
      const isLead = run.agentName === lead;
      runs.push({ agent: run.agentName, lead: isLead, status: run.status, reason: run.reason, model: run.model, promptTokens: run.promptTokens, completionTokens: run.completionTokens, modelMs: run.modelMs });
      if (isLead) for (const call of run.toolCalls) calls.push({ name: call.name, args: call.args, outcome: call.outcome, observation: call.observation, step: stepOf(call.at) });
    }
  }
  const replies = snapshot.thread.flatMap((m) => (m.authorKind === "agent" && m.authorName === lead ? [m.content] : []));
  // In the order they were made, whatever column each card is in now.
  delegations.sort((a, b) => a.at - b.at);
  calls.sort((a, b) => a.step - b.step);
  return { delegations: delegations.map(({ at: _at, ...d }) => d), calls, runs, replies };
}
