/**
 * Settings → Model (src/settings/ToolCallSettings.tsx): an owner opens the
 * section by its address, picks how the department's agents call tools, and
 * the server has it; going back to the deployment's default clears it.
 * Light and dark at 1440, 1280 and 390 px pass axe-core with no violation.
 * Screenshots: tests/output/tool-call-settings-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { auditLooks, LARGE, showLook, startJourney, type Journey } from "./journey";

let journey: Journey;

beforeAll(async () => {
  journey = await startJourney({ password: "tool-call-settings-password" });
});

afterAll(async () => {
  await journey?.close();
});

const section = (page: Page) => page.getByRole("dialog", { name: "Settings" }).getByTestId("tool-call-settings");

describe("Settings → Model", () => {
  test("an owner sets the tool-call mode from /d/<dept>/settings/model, then goes back to the default; light and dark at every size pass axe", async () => {
    const page = await journey.newPage({ who: "Ada", viewport: LARGE });
    await journey.signIn(page, "Ada");
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    await page.goto(new URL(`/d/${department.slug}/settings/model`, page.url()).toString());
    const form = section(page);
    await form.getByTestId("tool-call-summary").getByText("(the deployment's default)").waitFor();

    await form.getByLabel("Tool calls").selectOption("text");
    await form.getByRole("button", { name: "Save tool calls" }).click();
    await form.getByTestId("tool-call-summary").getByText("Text", { exact: true }).waitFor();
    expect(await asAda.query(api.modelSettings.get, { departmentId: department._id })).toEqual({ toolCalls: "text", chosen: true });

    const failures = await auditLooks("tool-call-settings", async (look) => {
      await showLook(page, look);
      await form.scrollIntoViewIfNeeded();
      return page;
    });

    await form.getByLabel("Tool calls").selectOption("default");
    await form.getByRole("button", { name: "Save tool calls" }).click();
    await form.getByTestId("tool-call-summary").getByText("(the deployment's default)").waitFor();
    expect((await asAda.query(api.modelSettings.get, { departmentId: department._id })).chosen).toBe(false);
    await page.close();
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  });
});
