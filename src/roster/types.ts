import type { FunctionArgs, FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";

/** Shapes the roster and the agent modal use, derived from the functions so they can't drift. */
export type Agent = FunctionReturnType<typeof api.agents.list>[number];
export type AgentKind = Agent["kind"];
/** A registered tool. Plain strings: the client has no business with the registry's literal types. */
export type Tool = { name: string; description: string };

/** What the agent form edits: the `agents.create` / `agents.update` arguments without the ids. */
export type AgentFormValues = Omit<FunctionArgs<typeof api.agents.create>, "departmentId">;
