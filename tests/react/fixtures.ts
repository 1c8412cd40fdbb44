/** Records the React tests build again and again, with the fields a test does not care about filled in. */
import type { Id } from "../../convex/_generated/dataModel";
import type { ChannelMessage } from "../../src/channels/types";
import type { Agent } from "../../src/roster/types";
import { plainChannelMessage } from "../fixtures/channelMessages";

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

/** A channel message as the channel's queries return it: a member's plain message with no replies, unless `fields` say otherwise. */
export function channelMessageFixture(fields: Partial<ChannelMessage> & Pick<ChannelMessage, "body">): ChannelMessage {
  return {
    _id: "m1" as Id<"channelMessages">,
    _creationTime: Date.parse("2026-01-01T10:00:00Z"),
    channelId: "c1" as Id<"channels">,
    from: { kind: "member", userId: "u1" as Id<"users">, name: "Ana Lima" },
    ...plainChannelMessage(),
    ...fields,
  };
}
