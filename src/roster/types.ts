import type { FunctionArgs, FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** Shapes the roster and the agent modal use, derived from the functions so they can't drift. */
export type Agent = FunctionReturnType<typeof api.agents.list>[number];
export type AgentKind = Agent["kind"];
/** Who must approve a tool call: nobody, a human every time, or a human when the priority is high. */
export type ApprovalPolicy = FunctionReturnType<typeof api.tools.registry.list>[number]["approval"];
/** A registered tool. Plain strings: the client has no business with the registry's literal types. `approval` is its default policy. */
export type Tool = { name: string; description: string; approval?: ApprovalPolicy };

/** What the agent form edits: the `agents.create` / `agents.update` arguments without the ids. */
export type AgentFormValues = Omit<FunctionArgs<typeof api.agents.create>, "departmentId">;
