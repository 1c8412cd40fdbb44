/**
 * A demo squad worth watching (issue 42), in a real browser against
 * `npm start`'s stack with the demo model paced (MAESTRO_DEMO_PACE_MS), in
 * both themes at 1440×900, 1280×800 and 390×844, with axe:
 *
 * - a demo run you can watch: a card given to Dev Bot is In progress, with
 *   his reply (the work, from the template for its kind) streaming beside
 *   the composer, before it reaches Review.
 *
 * - a DM to an agent and an @mention in #maestro are answered where they
 *   were asked, and the board shows no "Inbox: <agent>" card.
 *
 * Screenshots: tests/output/squad-<view>-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, drawer, LARGE, showLook, startJourney, until, type Journey } from "./journey";

/** Between streamed pieces of a reply: slow enough to see the card In progress while the work streams, quick enough for a test. */
const PACE_MS = "150";
/** Bound on one run of the paced demo model on a busy machine. */
const RUN_MS = 60_000;

let journey: Journey;
let ada: Page;
let departmentId: Id<"departments">;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

beforeAll(async () => {
  journey = await startJourney({ password: "demo-squad-password", env: { MAESTRO_DEMO_PACE_MS: PACE_MS } });
  ada = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(ada, "Ada");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  departmentId = department._id;
});

afterAll(async () => {
  await journey?.close();
});

describe("a demo run you can watch", () => {
  test("a card given to Dev Bot is In progress with his work streaming beside the composer, then reaches Review; at every size and in both themes", async () => {
    const client = await journey.clientFor("Ada");
    const devBot = (await client.query(api.agents.list, { departmentId })).find((agent) => agent.name === "Dev Bot")!;
    const watched: Array<Id<"tasks">> = [];
    const failures = await auditLooks("squad-run", async (look) => {
      await showLook(ada, look);
      const title = `Rate limit API ${look.colorScheme} ${look.size.width}`;
      const taskId = await client.mutation(api.tasks.create, { departmentId, title, description: "Per-IP limits for the signup endpoint." });
      watched.push(taskId);
      await ada.goto(appAt(`/d/product/tasks/${taskId}`));
      await drawer(ada).getByTestId("task-status").or(drawer(ada).getByRole("combobox", { name: "Status" })).first().waitFor();
      await client.mutation(api.tasks.assign, { taskId, assigneeSessionKeys: [devBot.sessionKey] });
      // The work streams while the card is In progress: both at once, before Review.
      const typing = drawer(ada).getByTestId("typing");
      await until(() => typing.textContent().catch(() => ""), (text) => (text ?? "").includes("First pass at"), "Dev Bot's work to stream", RUN_MS);
      const task = await client.query(api.tasks.get, { taskId });
      expect(task.status, `the card while the work streams at ${look.size.width}`).toBe("in_progress");
      if (look.size.width >= 1280) {
        await until(
          () => ada.locator(`[data-testid="column-in_progress"] [data-testid="task-card"][data-task-id="${taskId}"]`).count(),
          (count) => count === 1,
          "the card in the In progress column",
        );
      }
      // The reply is the template's work, never the card's words echoed back after "I'll".
      expect(await typing.textContent()).not.toMatch(/I'll Rate limit/);
      return ada;
    });
    expect(failures).toEqual({});
    // Each watched card reaches Review once its work has streamed.
    for (const taskId of watched) {
      await until(async () => (await client.query(api.tasks.get, { taskId })).status, (status) => status === "review", "the card to reach Review", RUN_MS);
    }
    expect(journey.pageErrors).toEqual([]);
  }, 900_000);
});

describe("mentions and DMs leave no card", () => {
  test("a DM to Writer and an @mention of Dev Bot in #maestro are answered there, and the board shows no “Inbox: …” card; at every size and in both themes", async () => {
    const client = await journey.clientFor("Ada");
    const writer = (await client.query(api.agents.list, { departmentId })).find((agent) => agent.name === "Writer")!;
    const dm = await client.mutation(api.channels.openDm, { departmentId, participantKeys: [writer.sessionKey] });
    await client.mutation(api.channelMessages.post, { channelId: dm, body: "Hello Writer, can you draft a tagline for the launch?" });
    await client.mutation(api.chat.postAsHuman, { departmentId, text: "@Dev Bot what is the status of the signup form?" });

    // Writer answers in the DM, from the template for a writing request (not the message's words).
    const answer = await until(
      async () => (await client.query(api.channelMessages.history, { channelId: dm, paginationOpts: { numItems: 20, cursor: null } })).page.find((m) => m.from.kind === "agent"),
      (message) => message !== undefined,
      "Writer's answer in the DM",
      RUN_MS,
    );
    expect(answer!.body).toMatch(/^Sure, Ada: /);
    expect(answer!.body).not.toMatch(/kicking off|Hello Writer|I'll Hello/);

    const failures = await auditLooks("squad-board-no-inbox", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt("/d/product"));
      await ada.getByTestId("board").waitFor();
      await ada.getByTestId("task-card").first().waitFor();
      return ada;
    });
    expect(failures).toEqual({});
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    expect(await ada.getByTestId("board").getByText(/^Inbox: /).count()).toBe(0);
    const board = await client.query(api.tasks.list, { departmentId });
    expect(board.flatMap((column) => column.tasks.map((card) => card.title)).filter((title) => title.startsWith("Inbox: "))).toEqual([]);
    expect(journey.pageErrors).toEqual([]);
  }, 600_000);
});
