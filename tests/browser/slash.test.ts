/**
 * Slash commands end to end in real browsers against the `npm start` stack,
 * with a scripted model that holds every answer back (so a run stays running
 * until /stop ends it). Ada (owner) and Grace (member), each in her own
 * browser context:
 *
 *   Ada types `/` in a task's composer → picks /delegate from the autocomplete
 *   → sees the preview → sends → Grace's board shows the new task at once →
 *   in that task Writer's run is running → Ada's /stop ends it (aborted) →
 *   Grace types `/tri` in #maestro (nothing matches) → Ada adds /triage in
 *   settings → it appears in Grace's autocomplete without a reload.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { startScriptedModel, type ScriptedModel } from "../backend/scriptedModel";
import { composer, drawer, screenshotPath, startJourney, until, type Journey } from "./journey";

const PASSWORD = "slash-test-password";
/** Bound on a run reaching a state on a busy machine. */
const RUN_MS = 60_000;
const PARENT = "Slash parent task";
const DELEGATED = "Write the slash docs";

let journey: Journey | undefined;
let model: ScriptedModel | undefined;
let releaseModel: () => void = () => {};
let ada: Page;
let grace: Page;

const slashMenu = (page: Page) => page.getByRole("listbox", { name: "Slash commands" });
const cardTitled = (page: Page, title: string) => page.getByTestId("task-card").filter({ has: page.getByRole("button", { name: title, exact: true }) });

async function openTask(page: Page, title: string) {
  await cardTitled(page, title).getByRole("button", { name: title, exact: true }).click();
  await drawer(page).getByRole("heading", { name: title, exact: true }).waitFor();
}

beforeAll(async () => {
  const held = new Promise<void>((resolve) => (releaseModel = resolve));
  model = await startScriptedModel(() => "Working on it.");
  model.setDelay(() => held);
  journey = await startJourney({ password: PASSWORD, env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "scripted" } });
  await journey.ensurePerson("Ada");
  await journey.ensurePerson("Grace", "member");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  await client.mutation(api.tasks.create, { departmentId: department._id as Id<"departments">, title: PARENT });
  ada = await journey.newPage({ who: "Ada" });
  grace = await journey.newPage({ who: "Grace" });
  await journey.signIn(ada, "Ada");
  await journey.signIn(grace, "Grace");
});

afterAll(async () => {
  releaseModel();
  await journey?.close();
  await model?.close();
});

describe("slash commands", () => {
  test("/ → pick /delegate → preview → send: the task appears on Grace's board", async () => {
    await openTask(ada, PARENT);
    const box = composer(ada);
    await box.click();
    await box.pressSequentially("/");
    await slashMenu(ada).waitFor();
    await box.pressSequentially("dele");
    await expect(slashMenu(ada).getByRole("option").count()).resolves.toBe(1);
    await box.press("Enter");
    await slashMenu(ada).waitFor({ state: "detached" });
    await expect(box.inputValue()).resolves.toBe("/delegate ");
    await box.pressSequentially(`Writer "${DELEGATED}"`);
    const preview = drawer(ada).getByTestId("slash-preview");
    await preview.getByText(`Creates “${DELEGATED}” for Writer under “${PARENT}”, delegated by Ada.`).waitFor();
    await ada.screenshot({ path: screenshotPath("slash-preview.png") });
    await drawer(ada).getByRole("button", { name: "Send" }).click();
    await until(() => box.inputValue(), (value) => value === "", "the composer to clear");
    await drawer(ada).getByTestId("slash-result").getByText(`Delegated “${DELEGATED}” to Writer.`).waitFor();
    await cardTitled(grace, DELEGATED).waitFor();
  });

  test("/assign Dev Bot assigns the agent of two words; the argument completes agent names", async () => {
    const box = composer(ada);
    await box.click();
    await box.pressSequentially("/assign Dev Bot");
    await drawer(ada).getByTestId("slash-preview").getByText("Assigns this task to Dev Bot.").waitFor();
    await drawer(ada).getByRole("button", { name: "Send" }).click();
    await drawer(ada).getByTestId("slash-result").getByText("Assigned to Dev Bot.").waitFor();
    await until(() => box.inputValue(), (value) => value === "", "the composer to clear");
    // The argument position lists the squad's names; Tab takes the whole name.
    await box.pressSequentially("/assign wri");
    const values = ada.getByRole("listbox", { name: "Argument values" });
    await expect(values.getByRole("option").allTextContents()).resolves.toEqual([expect.stringContaining("Writer")]);
    await ada.screenshot({ path: screenshotPath("slash-argument.png") });
    await box.press("Tab");
    await expect(box.inputValue()).resolves.toBe("/assign Writer ");
    await box.fill("");
  });

  test("an unknown command shows an inline error and sends nothing", async () => {
    const box = composer(ada);
    await box.fill("/nonsense please");
    await drawer(ada).getByTestId("slash-error").getByText("Unknown command /nonsense. Type /help for the list.").waitFor();
    const messages = await drawer(ada).getByTestId("message").count();
    await drawer(ada).getByRole("button", { name: "Send" }).click();
    await drawer(ada).getByRole("alert").filter({ hasText: "Unknown command /nonsense" }).first().waitFor();
    await expect(box.inputValue()).resolves.toBe("/nonsense please");
    await expect(drawer(ada).getByTestId("message").count()).resolves.toBe(messages);
    await box.fill("");
  });

  test("/stop ends the running run", async () => {
    await drawer(ada).getByRole("button", { name: "Close task" }).click();
    await drawer(ada).waitFor({ state: "detached" });
    await openTask(ada, DELEGATED);
    // The scripted model holds its answer: Writer's run stays running.
    await drawer(ada).locator('[data-testid="run"][data-run-status="running"]').waitFor({ timeout: RUN_MS });
    const box = composer(ada);
    await box.click();
    await box.pressSequentially("/stop");
    await drawer(ada).getByTestId("slash-preview").getByText("Stops Writer's running run on this task.").waitFor();
    await drawer(ada).getByRole("button", { name: "Send" }).click();
    await drawer(ada).getByTestId("slash-result").getByText("Stopped.").waitFor();
    await drawer(ada).locator('[data-testid="run"][data-run-status="aborted"]').waitFor({ timeout: RUN_MS });
    await expect(drawer(ada).locator('[data-testid="run"][data-run-status="running"]').count()).resolves.toBe(0);
  });

  test("a department command added in settings appears in another client's autocomplete at once", async () => {
    const chatBox = grace.getByLabel("Message #maestro");
    await chatBox.click();
    await chatBox.pressSequentially("/tri");
    await expect(slashMenu(grace).count()).resolves.toBe(0);

    await drawer(ada).getByRole("button", { name: "Close task" }).click();
    await ada.getByRole("button", { name: "Settings" }).click();
    const commands = ada.getByTestId("department-commands");
    await commands.getByRole("button", { name: "Add command…" }).click();
    await commands.getByLabel("Name", { exact: true }).fill("triage");
    await commands.getByLabel("Description", { exact: true }).fill("Triage what came in");
    await commands.getByLabel("Template", { exact: true }).fill("Triage $ARGUMENTS: list open questions and owners.");
    await commands.getByRole("button", { name: "Save command" }).click();
    await commands.getByTestId("department-command").filter({ hasText: "/triage" }).waitFor();

    const option = slashMenu(grace).getByRole("option").filter({ hasText: "/triage" });
    await option.waitFor();
    await expect(option.textContent()).resolves.toContain("Triage what came in");
    await grace.screenshot({ path: screenshotPath("slash-autocomplete.png") });
    expect(journey!.pageErrors).toEqual([]);
  });
});
