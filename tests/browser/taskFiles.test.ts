/**
 * Files in a task's thread, in a real browser against `npm start`'s stack:
 * Ada attaches a Markdown file in the task drawer's composer and sends it;
 * the message shows it as a link that downloads the file; Vera, a viewer,
 * finds it from the command palette and downloads it too. Light and dark at 1440, 1280 and 390 px pass axe-core.
 * Screenshots: tests/output/task-files-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { accessibilityViolations, composer, drawer, messageIn, screenshotPath, send, startJourney, until, type Journey } from "./journey";

const TITLE = "Write the launch notes";
const PLAN = "# Launch notes\n\n- hero copy\n- screenshots\n";
const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let journey: Journey;
let taskId: Id<"tasks">;

beforeAll(async () => {
  journey = await startJourney({ password: "task-files-password" });
});

afterAll(async () => {
  await journey?.close();
});

async function openTask(page: Page) {
  await page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`).getByRole("button", { name: TITLE, exact: true }).click();
  await drawer(page).getByRole("heading", { name: TITLE, exact: true }).waitFor();
}

/** What the file link of the message serves, fetched as the page would. */
async function download(page: Page): Promise<{ status: number; type: string | null; text: string; name: string | null }> {
  const link = messageIn(page, "Notes attached").getByRole("link", { name: /notes\.md/ });
  await until(async () => link.getAttribute("href"), (href) => href !== null, "the file's download URL");
  const href = (await link.getAttribute("href"))!;
  const served = await page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
  }, href);
  return { ...served, name: await link.getAttribute("download") };
}

describe("files in a task's thread", () => {
  test("Ada attaches a file in the task composer; it shows in the thread and its link downloads it, for a viewer too", async () => {
    const page = await journey.newPage({ who: "Ada" });
    await journey.signIn(page, "Ada");
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    taskId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: TITLE });
    await openTask(page);

    await drawer(page).getByTestId("attach-input").setInputFiles([
      { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from(PLAN) },
      { name: "page.html", mimeType: "text/html", buffer: Buffer.from("<h1>no</h1>") },
    ]);
    const pending = drawer(page).getByTestId("pending-file");
    await until(async () => (await pending.allTextContents()).join(" | "), (t) => t.includes("ready") && t.includes("cannot be attached"), "the upload to finish");
    await drawer(page).getByRole("button", { name: "Remove page.html" }).click();
    await composer(page).fill("Notes attached");
    await (await send(page, "Notes attached")).waitFor();
    await until(async () => pending.count(), (n) => n === 0, "the composer's files to clear");

    expect(await download(page)).toEqual({ status: 200, type: "text/markdown", text: PLAN, name: "notes.md" });
    const [message] = (await asAda.query(api.messages.list, { taskId, paginationOpts: { numItems: 5, cursor: null } })).page.filter((m) => m.content === "Notes attached");
    expect(message.files?.map((f) => f.name)).toEqual(["notes.md"]);
    await page.close();

    await journey.ensurePerson("Vera", "viewer");
    const vera = await journey.newPage({ who: "Vera" });
    await journey.signIn(vera, "Vera");
    // The command palette finds the file by its text and opens the task it was posted in.
    await vera.keyboard.press("Control+k");
    await vera.getByTestId("command-palette").getByRole("combobox").fill("screenshots");
    const found = vera.locator('[data-testid="palette-item"][data-kind="file"]');
    await until(async () => found.allTextContents(), (t) => t.length === 1 && t[0].includes("notes.md") && t[0].includes(`File · in ${TITLE}`), "the palette to find the file");
    await found.click();
    await drawer(vera).getByRole("heading", { name: TITLE, exact: true }).waitFor();
    expect(await download(vera)).toEqual({ status: 200, type: "text/markdown", text: PLAN, name: "notes.md" });
    await vera.close();
    expect(journey.pageErrors).toEqual([]);
  });

  test("light and dark, at 1440, 1280 and 390 px: no axe violation", async () => {
    const failures: Record<string, string[]> = {};
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await journey.newPage({ who: `Ada (${colorScheme})`, viewport: WIDTHS[0] });
      await page.emulateMedia({ colorScheme });
      await journey.signIn(page, "Ada");
      await openTask(page);
      await drawer(page).getByTestId("attach-input").setInputFiles([{ name: "draft-with-a-longer-name.md", mimeType: "text/markdown", buffer: Buffer.from("# Draft\n") }]);
      await until(async () => drawer(page).getByTestId("pending-file").textContent(), (t) => t?.includes("ready") === true, "the upload to finish");
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        await messageIn(page, "Notes attached").scrollIntoViewIfNeeded();
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(`task-files-${colorScheme}-${size.width}.png`) });
        const violations = await accessibilityViolations(page);
        if (violations.length > 0) failures[`${colorScheme} ${size.width}`] = violations;
      }
      await page.close();
    }
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  });
});
