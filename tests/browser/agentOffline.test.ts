/**
 * `agents.setStatus` reached from the app: on an agent's page Ada (owner)
 * takes Writer offline; the page and the roster show "Offline"; she brings
 * it back. Grace (a member) has no such button. Light and dark at 1440,
 * 1280 and 390 px pass axe-core's WCAG 2.1 AA rules. Screenshots:
 * tests/output/agent-offline-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { auditLooks, LARGE, showLook, startJourney, until, type Journey } from "./journey";

let journey: Journey;
const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

beforeAll(async () => {
  journey = await startJourney({ password: "agent-offline-password" });
  await journey.ensurePerson("Ada");
  await journey.ensurePerson("Grace", "member");
}, 240_000);

afterAll(async () => {
  await journey?.close();
});

describe("taking an agent offline", () => {
  test("an owner takes Writer offline on its page and brings it back; the roster follows; a member has no button", async () => {
    const ada = await journey.newPage({ who: "Ada", viewport: LARGE });
    await journey.signIn(ada, "Ada");
    await ada.goto(appAt("/d/product/agents/writer"));
    const status = ada.getByTestId("agent-page-status");
    await status.getByText("Idle").waitFor();
    await status.getByRole("button", { name: "Take offline" }).click();
    await status.getByText("Offline", { exact: true }).waitFor();
    await status.getByText("No new runs start; the squad lead sees it offline.").waitFor();
    const writerRow = ada.getByTestId("roster-agent").filter({ hasText: "Writer" });
    await until(async () => writerRow.getByTestId("agent-status").textContent(), (t) => t?.includes("Offline") === true, "the roster to show Writer offline");
    const failures = await auditLooks("agent-offline", async (look) => {
      await showLook(ada, look);
      await status.scrollIntoViewIfNeeded();
      return ada;
    });
    expect(failures).toEqual({});
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await status.getByRole("button", { name: "Bring back online" }).click();
    await status.getByText("Idle").waitFor();

    const grace = await journey.newPage({ who: "Grace", viewport: LARGE });
    await journey.signIn(grace, "Grace");
    await grace.goto(appAt("/d/product/agents/writer"));
    await grace.getByTestId("agent-page-status").getByText("Idle").waitFor();
    await expect(grace.getByRole("button", { name: /Take offline|Bring back online/ }).count()).resolves.toBe(0);
    expect(journey.pageErrors).toEqual([]);
  }, 240_000);
});
