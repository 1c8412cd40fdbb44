/**
 * The department's description in the settings dialog (src/settings/DepartmentAbout.tsx)
 * in a real browser against the `npm start` stack: Ada (owner) finds it first,
 * under the department's name, writes one, is stopped by the length limit,
 * saves, and finds it again after a reload and on the server (the Project's
 * `description` in the messaging API). Grace (a member) has no settings
 * dialog and the server refuses her a change. Light and dark at 1440, 1280
 * and 390 px pass axe-core's WCAG 2.1 AA rules. Screenshots:
 * tests/output/description-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { accessibilityViolations, screenshotPath, startJourney, until, type Journey } from "./journey";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let journey: Journey | undefined;
let departmentId: Id<"departments">;
let departmentName: string;

const about = (page: Page) => page.getByTestId("department-about");

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("dialog", { name: "Settings" }).waitFor();
}

beforeAll(async () => {
  journey = await startJourney({ password: "description-test-password" });
  await journey.ensurePerson("Ada");
  await journey.ensurePerson("Grace", "member");
  const [department] = await (await journey.clientFor("Ada")).query(api.departments.listMine, {});
  departmentId = department._id as Id<"departments">;
  departmentName = department.name;
});

afterAll(async () => {
  await journey?.close();
});

describe("the department's description", () => {
  test("an owner writes it under the department's name, is stopped past the limit, saves, and finds it after a reload", async () => {
    const ada = await journey!.newPage({ who: "Ada", viewport: VIEWPORTS[0] });
    await journey!.signIn(ada, "Ada");
    await openSettings(ada);
    await about(ada).getByRole("heading", { name: departmentName }).waitFor();

    const box = about(ada).getByLabel("Description", { exact: true });
    await box.fill("x".repeat(501));
    await about(ada).getByText("A description is at most 500 characters.").waitFor();
    await expect(about(ada).getByRole("button", { name: "Save description" }).isDisabled()).resolves.toBe(true);

    await box.fill("The launch squad: pricing page, hero copy and the release.");
    await about(ada).getByRole("button", { name: "Save description" }).click();
    await about(ada).getByRole("status").getByText("Saved.").waitFor();
    await ada.reload();
    await ada.getByTestId("board").waitFor();
    await openSettings(ada);
    await until(() => about(ada).getByLabel("Description", { exact: true }).inputValue(), (v) => v === "The launch squad: pricing page, hero copy and the release.", "the saved description after a reload");
    await expect((await journey!.clientFor("Ada")).query(api.departments.about, { departmentId })).resolves.toMatchObject({
      description: "The launch squad: pricing page, hero copy and the release.",
    });

    const failures: Record<string, string[]> = {};
    for (const colorScheme of ["light", "dark"] as const) {
      await ada.emulateMedia({ colorScheme });
      for (const viewport of VIEWPORTS) {
        await ada.setViewportSize(viewport);
        await about(ada).scrollIntoViewIfNeeded();
        await ada.screenshot({ path: screenshotPath(`description-${colorScheme}-${viewport.width}.png`) });
        const violations = await accessibilityViolations(ada);
        if (violations.length > 0) failures[`${colorScheme} ${viewport.width}`] = violations;
      }
    }
    expect(failures).toEqual({});
    expect(journey!.pageErrors).toEqual([]);
  });

  test("a member has no settings dialog; the server lets her read the description and refuses her a change", async () => {
    const grace = await journey!.newPage({ who: "Grace", viewport: VIEWPORTS[0] });
    await journey!.signIn(grace, "Grace");
    await grace.getByRole("button", { name: "Members" }).waitFor();
    await expect(grace.getByRole("button", { name: "Settings" }).count()).resolves.toBe(0);
    const client = await journey!.clientFor("Grace");
    await expect(client.query(api.departments.about, { departmentId })).resolves.toMatchObject({ description: expect.stringMatching(/^The launch squad/) });
    await expect(client.mutation(api.departments.updateDescription, { departmentId, description: "mine" })).rejects.toThrow(/admin|FORBIDDEN|not allowed/i);
    expect(journey!.pageErrors).toEqual([]);
  });
});
