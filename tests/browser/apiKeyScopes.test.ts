/**
 * API key scopes chosen in the app, end to end against the `npm start`
 * stack: Ada (owner) opens Dev Bot's modal, makes a key with only
 * `messages:read` ticked (after seeing that none is refused), and the key it
 * shows reads Dev Bot's inbox over HTTP but is refused a post (403 naming the
 * scope). The key list shows the scope. Light and dark pass axe-core's WCAG
 * 2.1 AA rules. Screenshots: tests/output/api-key-scopes-<light|dark>-<1440|1280|390>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { auditLooks, LARGE, PHONE, startJourney, type Journey, type Look } from "./journey";

let journey: Journey | undefined;

beforeAll(async () => {
  journey = await startJourney({ password: "api-key-scopes-test-password" });
});

afterAll(async () => {
  await journey?.close();
});

async function call(key: string, method: "GET" | "POST", path: string, body?: unknown) {
  const response = await fetch(`${journey!.stack.siteUrl.replace(/\/$/, "")}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

/** Signs Ada in on a page in `look`, opens Dev Bot's modal and the key chooser. */
async function openChooser({ size: viewport, colorScheme }: Look) {
  // Signed in wide (the board waits for the roster); a phone then shows the squad as a pane of its own.
  const page = await journey!.newPage({ who: `Ada (${colorScheme} ${viewport.width})`, viewport: LARGE });
  await page.emulateMedia({ colorScheme });
  await journey!.signIn(page, "Ada");
  await page.setViewportSize(viewport);
  const roster = page.getByTestId("roster");
  if (viewport.width <= PHONE.width) await page.getByRole("button", { name: "Squad", exact: true }).click();
  await roster.getByRole("button", { name: "Edit Dev Bot" }).click();
  const keys = page.getByRole("dialog", { name: "Edit Dev Bot" }).getByRole("region", { name: "API keys" });
  await keys.getByRole("button", { name: "Create key" }).click();
  // The key is made in a dialog of its own, over the agent's.
  const dialog = page.getByRole("dialog", { name: "New API key for Dev Bot" });
  const chooser = dialog.getByRole("group", { name: "What the new key may do" });
  await chooser.scrollIntoViewIfNeeded();
  return { page, keys, dialog, chooser };
}

describe("API key scopes in the agent modal", () => {
  test("light and dark, at 1440, 1280 and 390 px, the chooser passes axe", async () => {
    const pages: Page[] = [];
    const failures = await auditLooks("api-key-scopes", async (look) => {
      const { page } = await openChooser(look);
      pages.push(page);
      return page;
    });
    for (const page of pages) await page.close();
    expect(failures).toEqual({});
  });

  test("an owner makes a read-only key; it reads over HTTP and is refused a post", async () => {
    const { page, keys, dialog, chooser } = await openChooser({ size: LARGE, colorScheme: "light" });
    for (const box of await chooser.getByRole("checkbox").all()) await box.uncheck();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await chooser.getByText("Choose at least one scope.").waitFor();
    await expect(page.getByTestId("new-api-key").count()).resolves.toBe(0);

    await chooser.getByRole("checkbox", { name: /messages:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-api-key").textContent())!.trim();
    expect(key).toMatch(/^mk_/);
    await page.getByRole("dialog", { name: "API key for Dev Bot" }).getByRole("button", { name: "Done" }).click();
    await keys.getByTestId("key-scopes").filter({ hasText: /^messages:read$/ }).waitFor();

    expect((await call(key, "GET", "/agents/me/inbox")).status).toBe(200);
    const refused = await call(key, "POST", "/messages", { channel: "general", body: "not allowed" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('"messages:write" scope');
    expect(journey!.pageErrors).toEqual([]);
  });
});
