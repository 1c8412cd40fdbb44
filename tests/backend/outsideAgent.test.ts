/**
 * An agent that runs outside Maestro, end to end on the offline backend
 * with a scripted model (issue 40, points 3 and 4): a person asks Jarvis in
 * #maestro; his run delegates to Dev Bot, which runs outside Maestro; the
 * delegation waits in Dev Bot's inbox for its key, Maestro never runs Dev
 * Bot (the model is never asked as Dev Bot), and Jarvis's answer is posted
 * in #maestro.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { ApiBody } from "../fixtures/messagingApi";
import { scriptedSquad, waitFor } from "./helpers";
import { isJarvis, lastUser } from "./scriptedModel";

const DELEGATION = { title: "Ship the API", description: "The v2 API.", assignees: ["Dev Bot"], instruction: "Ship the v2 API by Friday." };

const squad = scriptedSquad((request) => {
  if (!isJarvis(request.messages)) return "I am not Jarvis.";
  return lastUser(request.messages).startsWith("=== TOOL RESULTS ===") ? "Dev Bot has it: Ship the API." : `On it.\n[TOOL: delegate_task ARG: ${JSON.stringify(DELEGATION)}]`;
});

async function inbox(key: string): Promise<ApiBody> {
  const response = await fetch(`${squad.backend.siteUrl}/agents/me/inbox?limit=50`, { headers: { Authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as ApiBody;
}

describe("an agent that runs outside Maestro", () => {
  test("asked in #maestro, Jarvis delegates to it; the work waits in its key's inbox, Maestro never runs it, and Jarvis answers in #maestro", async () => {
    const { member: ada, departmentId, model } = squad;
    const devBot = (await ada.query(api.agents.list, { departmentId })).find((a) => a.name === "Dev Bot")!;
    const { key } = await ada.mutation(api.agentApiKeys.create, { agentId: devBot._id });
    await ada.mutation(api.agents.setRunsOutside, { agentId: devBot._id, runsOutside: true });

    await ada.mutation(api.chat.postAsHuman, { departmentId, text: "@Jarvis please get the v2 API shipped" });
    await waitFor(async () => (await ada.query(api.chat.list, { departmentId })).some((m) => m.author === "@jarvis" && m.text.startsWith("Dev Bot has it")), 20_000, "Jarvis's answer in #maestro");
    // His words with the call ("On it."), then his answer: both in #maestro, each once.
    expect((await ada.query(api.chat.list, { departmentId })).map((m) => [m.author, m.text])).toEqual([
      ["@human", "@Jarvis please get the v2 API shipped"],
      ["@jarvis", "On it."],
      ["@jarvis", "Dev Bot has it: Ship the API."],
    ]);

    await waitFor(async () => (await inbox(key)).messages.some((m) => m.body.includes("Ship the API")), 10_000, "the delegation in Dev Bot's inbox");
    const line = (await inbox(key)).messages.find((m) => m.body.includes("Ship the API"))!;
    expect(line.body).toContain("Ship the v2 API by Friday.");
    expect(line).toMatchObject({ from: "Maestro", direct: true });
    const taskId = line.context.task_id!;
    expect(line.correlation_id).toBe(`a2a:${taskId}`);
    // Maestro never ran Dev Bot: no run on its task, and the model was only ever asked as Jarvis.
    expect(await ada.query(api.runs.listForTask, { taskId: taskId as never })).toEqual([]);
    expect(model.requests.every((r) => isJarvis(r.messages))).toBe(true);
  });
});
