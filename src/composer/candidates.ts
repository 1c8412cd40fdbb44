import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useMemo } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { MentionCandidate } from "../task/mentions";

type RosterAgent = FunctionReturnType<typeof api.agents.list>[number];
type Member = FunctionReturnType<typeof api.members.list>[number];

/** Who a composer can @mention: the department's agents, then its members. */
export function mentionCandidates(agents: ReadonlyArray<Pick<RosterAgent, "sessionKey" | "name" | "role">>, members: ReadonlyArray<Pick<Member, "key" | "name">>): MentionCandidate[] {
  return [
    ...agents.map((agent) => ({ key: agent.sessionKey, name: agent.name, kind: "agent" as const, detail: agent.role })),
    ...members.map((member) => ({ key: member.key, name: member.name, kind: "member" as const, detail: "Member" })),
  ];
}

const NONE: MentionCandidate[] = [];

/** The department's @mention candidates, live; none while they load. */
export function useMentionCandidates(departmentId: Id<"departments">): readonly MentionCandidate[] {
  const agents = useQuery(api.agents.list, { departmentId });
  const members = useQuery(api.members.list, { departmentId });
  return useMemo(() => (agents === undefined || members === undefined ? NONE : mentionCandidates(agents, members)), [agents, members]);
}
