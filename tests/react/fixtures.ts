/** Records the React tests build again and again, with the fields a test does not care about filled in. */
import type { Id } from "../../convex/_generated/dataModel";
import type { Agent } from "../../src/roster/types";

/** An agent as `agents.list` returns it: an idle coder with no tools, unless `fields` say otherwise. */
export function agentFixture(fields: Partial<Agent> & Pick<Agent, "name" | "sessionKey">): Agent {
  return {
    _id: `id-${fields.sessionKey}` as Id<"agents">,
    role: "Engineer",
    kind: "coder",
    status: "idle",
    isSquadLead: false,
    allowedTools: [],
    model: undefined,
    systemPrompt: "",
    ...fields,
  };
}
