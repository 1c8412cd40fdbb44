/**
 * The Retention section of the settings dialog in a real browser against the
 * `npm start` stack: Ada (owner) sets a message TTL and a per-conversation
 * cap, sees a field's error first, saves, and finds the policy again after a
 * reload (and on the server); Grace (a member) has no settings dialog, so no
 * controls, and the server refuses her the policy and a change. Light and dark pass
 * axe-core's WCAG 2.1 AA rules. Screenshots:
 * tests/output/retention-<light|dark>-<1440|1280|390>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, LARGE, showLook, startJourney, until, type Journey } from "./journey";

let journey: Journey | undefined;
let departmentId: Id<"departments">;

const retention = (page: Page) => page.getByTestId("retention-settings");

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("dialog", { name: "Settings" }).waitFor();
  await retention(page).scrollIntoViewIfNeeded();
}

beforeAll(async () => {
  journey = await startJourney({ password: "retention-test-password" });
  await journey.ensurePerson("Ada");
  await journey.ensurePerson("Grace", "member");
  const [department] = await (await journey.clientFor("Ada")).query(api.departments.listMine, {});
  departmentId = department._id as Id<"departments">;
});

afterAll(async () => {
  await journey?.close();
});

describe("retention settings", () => {
  test("an owner sets the limits, sees a bad one refused by its field, and finds them again after a reload", async () => {
    const ada = await journey!.newPage({ who: "Ada", viewport: LARGE });
    await journey!.signIn(ada, "Ada");
    await openSettings(ada);
    await retention(ada).getByTestId("retention-summary").getByText(/Everything is kept/).waitFor();

    const ttl = retention(ada).getByLabel("Delete messages after (days)");
    const cap = retention(ada).getByLabel("Keep per conversation at most (messages)");
    await ttl.fill("30");
    await cap.fill("10");
    await retention(ada).getByRole("button", { name: "Save retention" }).click();
    await retention(ada).getByText(/messages from 100 to 5,000/).waitFor();
    await expect(cap.getAttribute("aria-invalid")).resolves.toBe("true");
    await expect((await journey!.clientFor("Ada")).query(api.retention.get, { departmentId })).resolves.toEqual({});

    await cap.fill("500");
    await retention(ada).getByRole("button", { name: "Save retention" }).click();
    await retention(ada).getByRole("status").getByText("Saved.").waitFor();
    await retention(ada).getByTestId("retention-summary").getByText(/deleted after 30 days; each conversation keeps its newest 500/).waitFor();

    // Settings has an address (/d/<dept>/settings/retention): a reload opens it again, over the board.
    await ada.reload();
    await ada.getByTestId("board").waitFor();
    await ada.getByRole("dialog", { name: "Settings" }).waitFor();
    await retention(ada).scrollIntoViewIfNeeded();
    await until(() => retention(ada).getByLabel("Delete messages after (days)").inputValue(), (v) => v === "30", "the saved TTL after a reload");
    await expect(retention(ada).getByLabel("Keep per conversation at most (messages)").inputValue()).resolves.toBe("500");
    await expect(retention(ada).getByLabel("Delete files after (days)").inputValue()).resolves.toBe("");
    await expect(retention(ada).getByLabel("Delete history after (days)").inputValue()).resolves.toBe("");
    await expect((await journey!.clientFor("Ada")).query(api.retention.get, { departmentId })).resolves.toEqual({ messageTtlDays: 30, maxMessagesPerConversation: 500 });

    const failures = await auditLooks("retention", async (look) => {
      await showLook(ada, look);
      await retention(ada).scrollIntoViewIfNeeded();
      return ada;
    });
    expect(failures).toEqual({});
    expect(journey!.pageErrors).toEqual([]);
  });

  test("a member gets no settings and so no retention controls; the server refuses her the policy and a change", async () => {
    const grace = await journey!.newPage({ who: "Grace", viewport: LARGE });
    await journey!.signIn(grace, "Grace");
    await grace.getByRole("button", { name: "Members" }).waitFor();
    await expect(grace.getByRole("button", { name: "Settings" }).count()).resolves.toBe(0);
    await expect(grace.getByTestId("retention-settings").count()).resolves.toBe(0);

    const client = await journey!.clientFor("Grace");
    await expect(client.query(api.retention.get, { departmentId })).rejects.toThrow(/admin|FORBIDDEN|not allowed/i);
    await expect(client.mutation(api.retention.update, { departmentId, policy: {} })).rejects.toThrow(/admin|FORBIDDEN|not allowed/i);
    await expect((await journey!.clientFor("Ada")).query(api.retention.get, { departmentId })).resolves.toEqual({ messageTtlDays: 30, maxMessagesPerConversation: 500 });
    expect(journey!.pageErrors).toEqual([]);
  });
});
