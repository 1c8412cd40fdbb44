// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { MessageComposer } from "../../src/channels/MessageComposer";
import { MessageItem } from "../../src/channels/MessageItem";
import { Composer as TaskComposer } from "../../src/task/Composer";
import { channelMessageFixture } from "./fixtures";

const convex = vi.hoisted(() => ({
  queries: new Map<string, unknown>(),
  calls: [] as Array<[string, unknown]>,
  add: null as null | ((args: { name: string }) => Promise<unknown>),
}));
const uploads = vi.hoisted(() => ({ calls: [] as Array<{ url: string; type: string }>, gate: null as Promise<void> | null }));

vi.mock("convex/react", () => ({
  useQuery: (query: never) => convex.queries.get(getFunctionName(query)),
  useMutation: (mutation: never) => async (args: unknown) => {
    convex.calls.push([getFunctionName(mutation), args]);
    return "http://backend/api/storage/upload?token=t";
  },
  useAction: (action: never) => async (args: { name: string }) => {
    convex.calls.push([getFunctionName(action), args]);
    return await convex.add!(args);
  },
}));
vi.mock("../../src/channels/upload", () => ({
  uploadFile: async (url: string, _file: Blob, type: string, onProgress: (f: number) => void) => {
    uploads.calls.push({ url, type });
    onProgress(0.5);
    await uploads.gate;
    return "storage1";
  },
}));

const channelId = "c1" as Id<"channels">;
const taskId = "t1" as Id<"tasks">;
const pngArtifact = { kind: "file" as const, storageId: "storage1" as Id<"_storage">, name: "mock.png", contentType: "image/png", size: 4 };

beforeEach(() => {
  convex.queries.clear();
  convex.calls = [];
  uploads.calls = [];
  uploads.gate = null;
  convex.add = async () => pngArtifact;
});
afterEach(cleanup);

function pick(files: File[]) {
  fireEvent.change(screen.getByTestId("attach-input"), { target: { files } });
}

describe("attaching files in the composer", () => {
  it("uploads a picked file, shows it ready, and sends it with the message", async () => {
    const onSend = vi.fn(async () => null);
    render(<MessageComposer placeholder="Message #general" maxChars={100} onSend={onSend} channelId={channelId} />);
    pick([new File(["png!"], "mock.png", { type: "image/png" })]);
    const chip = await screen.findByTestId("pending-file");
    await waitFor(() => expect(chip.textContent).toContain("image"));
    expect(chip.textContent).toContain("mock.png");
    expect(uploads.calls).toEqual([{ url: "http://backend/api/storage/upload?token=t", type: "image/png" }]);
    expect(convex.calls).toEqual([
      ["channelMessages:generateUploadUrl", { channelId }],
      ["channelFiles:add", { channelId, storageId: "storage1", name: "mock.png" }],
    ]);
    fireEvent.change(screen.getByLabelText("Message #general"), { target: { value: "the mock" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(onSend).toHaveBeenCalledWith({ body: "the mock", importance: "normal", blocking: false, files: [pngArtifact], clientMessageId: expect.any(String) }));
    await waitFor(() => expect(screen.queryByTestId("pending-file")).toBeNull());
  }, 30_000);

  it("refuses a type not allowed or a file over the limit before uploading, and shows the server's reason", async () => {
    convex.add = async () => {
      throw new ConvexError({ code: "INVALID_ARGUMENT", message: "The file looks like it holds a secret (a key, token or password): remove it and upload the file again." });
    };
    render(<MessageComposer placeholder="Message" maxChars={100} onSend={async () => null} channelId={channelId} />);
    pick([
      new File(["<html>"], "page.html", { type: "text/html" }),
      // 9 MB: under the old 10 MB check, over the upload route's 8 MiB.
      new File([new Uint8Array(9 * 1024 * 1024)], "huge.pdf", { type: "application/pdf" }),
      new File(["AKIA..."], "keys.md", { type: "" }),
    ]);
    await waitFor(() => expect(screen.getAllByRole("alert")).toHaveLength(3));
    const texts = screen.getAllByTestId("pending-file").map((chip) => chip.textContent);
    expect(texts[0]).toContain("Files of type text/html cannot be attached");
    expect(texts[1]).toContain("The file is 9 MB; the limit is 8 MB");
    expect(texts[2]).toContain("holds a secret");
    // Only the Markdown file (typed from its extension) was uploaded.
    expect(uploads.calls).toEqual([{ url: expect.any(String), type: "text/markdown" }]);
    fireEvent.click(screen.getByRole("button", { name: "Remove page.html" }));
    expect(screen.getAllByTestId("pending-file")).toHaveLength(2);
  }, 30_000);

  it("uploads the files picked together at once, not one after another", async () => {
    let release!: () => void;
    uploads.gate = new Promise((resolve) => (release = resolve));
    render(<MessageComposer placeholder="Message" maxChars={100} onSend={async () => null} channelId={channelId} />);
    pick(["a.png", "b.png", "c.png"].map((name) => new File(["png!"], name, { type: "image/png" })));
    // All three are on their way while none has finished.
    await waitFor(() => expect(uploads.calls).toHaveLength(3));
    expect(convex.calls.filter(([name]) => name === "channelFiles:add")).toEqual([]);
    release();
    await waitFor(() => expect(convex.calls.filter(([name]) => name === "channelFiles:add")).toHaveLength(3));
  }, 30_000);
});

describe("attaching files in a task's thread", () => {
  it("uploads for the task, and the send carries the file's id", async () => {
    const onSend = vi.fn(async () => null);
    render(<TaskComposer taskId={taskId} candidates={[]} onSend={onSend} />);
    pick([new File(["png!"], "mock.png", { type: "image/png" })]);
    const chip = await screen.findByTestId("pending-file");
    await waitFor(() => expect(chip.textContent).toContain("image"));
    expect(convex.calls).toEqual([
      ["taskFiles:generateUploadUrl", { taskId }],
      ["taskFiles:add", { taskId, storageId: "storage1", name: "mock.png" }],
    ]);
    fireEvent.change(screen.getByRole("combobox", { name: "Message" }), { target: { value: "the mock" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(onSend).toHaveBeenCalledWith("the mock", expect.any(String), { files: ["storage1"] }));
    await waitFor(() => expect(screen.queryByTestId("pending-file")).toBeNull());
  }, 30_000);
});

describe("files on a message", () => {
  it("shows images as thumbnails and other files as chips with name and size that download", () => {
    const pdf = { kind: "file" as const, storageId: "storage2" as Id<"_storage">, name: "plan.pdf", contentType: "application/pdf", size: 1536 };
    convex.queries.set("channelFiles:urls", [
      { storageId: "storage1", url: "http://backend/api/storage/storage1?token=a" },
      { storageId: "storage2", url: "http://backend/api/storage/storage2?token=b" },
    ]);
    const message = channelMessageFixture({ channelId, body: "files", artifacts: [pngArtifact, pdf] });
    render(<MessageItem message={message} now={Date.parse("2026-01-01T10:05:00Z")} />);
    const image = screen.getByRole("img", { name: "mock.png" });
    expect(image.getAttribute("src")).toBe("http://backend/api/storage/storage1?token=a");
    const link = screen.getByRole("link", { name: /plan\.pdf/ });
    expect(link.getAttribute("href")).toBe("http://backend/api/storage/storage2?token=b");
    expect(link.getAttribute("download")).toBe("plan.pdf");
    expect(link.textContent).toContain("1.5 KB");
  }, 30_000);
});
