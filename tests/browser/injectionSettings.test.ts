/**
 * The settings dialog's "What agents are shown of messages" section
 * (src/settings/InjectionSettings.tsx): an owner picks a summariser model
 * (a wrong field is named before anything is sent) and turns a PII rule
 * off, and the server has it; a member sees no settings at all. Light and
 * dark at 1440, 1280 and 390 px pass axe-core with no violation.
 * Screenshots: tests/output/injection-settings-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { auditLooks, LARGE, PHONE, showLook, startJourney, type Journey } from "./journey";

let journey: Journey;

beforeAll(async () => {
  journey = await startJourney({ password: "injection-settings-password" });
});

afterAll(async () => {
  await journey?.close();
});

const section = (page: Page) => page.getByRole("dialog", { name: "Settings" }).getByTestId("injection-settings");

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  await section(page).getByRole("form", { name: "Message settings" }).waitFor();
}

describe("message settings in the department's settings", () => {
  test("an owner sets a summariser model and turns a PII rule off; a bad field is named first and nothing is saved", async () => {
    const page = await journey.newPage({ who: "Ada" });
    await journey.signIn(page, "Ada");
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    await openSettings(page);
    const form = section(page);
    await form.getByLabel("Thread summaries").selectOption("model");
    await form.getByLabel("Base URL").fill("ftp://models.example");
    await form.getByLabel("Model name").fill("fast-summary");
    await form.getByLabel("Timeout (ms)").fill("50");
    await form.getByRole("button", { name: "Save message settings" }).click();
    await form.getByText("base URL must be an http(s) URL").waitFor();
    await form.getByText("timeout must be a whole number of milliseconds from 100").waitFor();
    expect((await asAda.query(api.injectionSettings.get, { departmentId: department._id })).summariser).toEqual({ kind: "extractive" });

    await form.getByLabel("Base URL").fill("http://127.0.0.1:11434/v1");
    await form.getByLabel("Timeout (ms)").fill("3000");
    await form.getByLabel("API key").fill("sk-local");
    await form.getByRole("switch", { name: "Phone numbers" }).uncheck();
    await form.getByRole("button", { name: "Save message settings" }).click();
    await form.getByText("A key is saved").waitFor();
    expect(await asAda.query(api.injectionSettings.get, { departmentId: department._id })).toEqual({
      summariser: { kind: "model", baseUrl: "http://127.0.0.1:11434/v1", model: "fast-summary", timeoutMs: 3000 },
      pii: { email: true, phone: false, card: true, iban: true },
      hasKey: true,
    });
    // The key is never shown again, not even in the field.
    expect(await form.getByLabel("API key").inputValue()).toBe("");
    await page.close();
  });

  test("a member gets no settings button", async () => {
    await journey.ensurePerson("Ada");
    await journey.ensurePerson("Grace", "member");
    const page = await journey.newPage({ who: "Grace" });
    await journey.signIn(page, "Grace");
    await page.getByRole("button", { name: "Members" }).waitFor();
    expect(await page.getByRole("button", { name: "Settings" }).count()).toBe(0);
    await page.close();
  });

  test("light and dark, at 1440, 1280 and 390 px: no axe violation", async () => {
    const page = await journey.newPage({ who: "Ada", viewport: LARGE });
    await journey.signIn(page, "Ada");
    await openSettings(page);
    const failures = await auditLooks("injection-settings", async (look) => {
      await showLook(page, look);
      await section(page).scrollIntoViewIfNeeded();
      return page;
    });
    // The extractive form too (fewer fields), unsaved.
    await section(page).getByLabel("Thread summaries").selectOption("extractive");
    await section(page).getByLabel("Base URL").waitFor({ state: "detached" });
    const extractive = await auditLooks("injection-settings-extractive", async (look) => {
      await showLook(page, look);
      return page;
    }, [PHONE]);
    await page.close();
    expect({ ...failures, ...extractive }).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  });
});
