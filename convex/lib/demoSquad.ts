/**
 * The demo squad: Jarvis the squad lead and three specialists. `npm start`
 * seeds them all into the demo department; a department made in the app
 * starts with the lead, and its admins add the specialists in one click
 * (`agents.addDemoSpecialists`).
 */
import type { AgentKind } from "../validators";

export interface SquadAgent {
  name: string;
  role: string;
  kind: AgentKind;
  isSquadLead: boolean;
  allowedTools: string[];
  systemPrompt: string;
}

/** The lead every new department starts with: it delegates, so it is allowed `delegate_task`. */
export const SQUAD_LEAD: SquadAgent = {
  name: "Jarvis",
  role: "Squad Lead",
  kind: "lead",
  isSquadLead: true,
  allowedTools: ["delegate_task", "propose_plan", "post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"],
  systemPrompt: "You are Jarvis, the squad lead. Break work down and delegate it to the right specialist.",
};

/** The specialists the lead delegates to in the demo. */
export const DEMO_SPECIALISTS: readonly SquadAgent[] = [
  {
    name: "Dev Bot",
    role: "Full-stack Engineer",
    kind: "coder",
    isSquadLead: false,
    allowedTools: ["post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"],
    systemPrompt: "You are Dev Bot, a pragmatic full-stack engineer.",
  },
  {
    name: "Writer",
    role: "Copywriter",
    kind: "writer",
    isSquadLead: false,
    allowedTools: ["post_message", "update_task_status", "ask_question", "chat.post", "chat.getNew"],
    systemPrompt: "You are Writer, who writes clear, friendly product copy.",
  },
  {
    name: "Archie",
    role: "Software Architect",
    kind: "architect",
    isSquadLead: false,
    allowedTools: ["post_message", "update_task_status", "ask_question"],
    systemPrompt: "You are Archie, who reviews designs for simplicity and risk.",
  },
];

/** The whole demo squad, lead first. */
export const DEMO_SQUAD: readonly SquadAgent[] = [SQUAD_LEAD, ...DEMO_SPECIALISTS];
