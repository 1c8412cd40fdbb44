import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { matchRoutes, MemoryRouter, useLocation, useNavigate, useNavigationType } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Id } from "../../convex/_generated/dataModel";
import { appRoutes, AppRoutes } from "../../src/routes";
import {
  agentPath,
  agentSlugOf,
  departmentPath,
  departmentSlugOf,
  isAppPath,
  addressBelow,
  isTaskPath,
  taskIdFromHash,
  taskPath,
  threadPath,
} from "../../src/shell/addresses";
import { useTaskNavigation } from "../../src/shell/useTaskNavigation";
import { WorkspaceContext, type Department, type Workspace } from "../../src/shell/workspace";

// The pages' own contents are tested elsewhere; here each shows what the route gave it.
vi.mock("convex/react", () => ({ useQuery: () => undefined, useQueries: () => ({}) }));
vi.mock("../../src/shell/AppShell", () => ({
  DepartmentWorkspace: ({ main }: { main: ReactNode }) => <main>{main}</main>,
  PageSkeleton: () => null,
}));
vi.mock("../../src/shell/DepartmentNav", () => ({ DepartmentNav: () => null }));
vi.mock("../../src/board/Board", () => ({ Board: ({ departmentId }: { departmentId: string }) => <p>board of {departmentId}</p> }));
vi.mock("../../src/task/TaskDrawer", () => ({ TaskDrawer: ({ taskId }: { taskId: string }) => <p>drawer of {taskId}</p> }));
vi.mock("../../src/channels/ChannelsView", () => ({
  ChannelsView: ({ channelId, threadId, onThread }: { channelId: string | null; threadId?: string | null; onThread?: (id: string | null) => void }) => (
    <>
      <p>channels, open: {channelId ?? "none"}</p>
      <p>thread: {threadId ?? "none"}</p>
      <button type="button" onClick={() => onThread?.("m2")}>
        open thread m2
      </button>
      <button type="button" onClick={() => onThread?.(null)}>
        close thread
      </button>
    </>
  ),
}));

afterEach(cleanup);

describe("addresses", () => {
  it("builds department, task and agent paths, escaping what needs it", () => {
    expect(departmentPath("product")).toBe("/d/product");
    expect(taskPath("product", "abc")).toBe("/d/product/tasks/abc");
    expect(agentPath("product", "dev-bot")).toBe("/d/product/agents/dev-bot");
    expect(taskPath("a b", "x/y")).toBe("/d/a%20b/tasks/x%2Fy");
  });

  it("reads the department and whether a task is open", () => {
    expect(departmentSlugOf("/d/product/runs/r1")).toBe("product");
    expect(departmentSlugOf("/")).toBeUndefined();
    expect(isTaskPath("/d/product/tasks/t1")).toBe(true);
    expect(isTaskPath("/d/product/agents/t1")).toBe(false);
  });

  it("takes an agent's slug from its session key", () => {
    expect(agentSlugOf("agent:dev-bot:product")).toBe("dev-bot");
    expect(agentSlugOf("weird")).toBe("weird");
  });

  it("still reads old #task=<id> links", () => {
    expect(taskIdFromHash("#task=abc123")).toBe("abc123");
    expect(taskIdFromHash("#task=abc%20d&x=1")).toBe("abc d");
    expect(taskIdFromHash("#task=")).toBeNull();
    expect(taskIdFromHash("#other")).toBeNull();
    expect(taskIdFromHash("#task=%E0%A4%A")).toBeNull();
  });

  it("a thread's address sits under its channel's", () => {
    expect(threadPath("product", "c1", "m1")).toBe("/d/product/channels/c1/threads/m1");
    expect(threadPath("product", "c 1", "m/1")).toBe("/d/product/channels/c%201/threads/m%2F1");
    expect(isAppPath("/d/product/channels/c1/threads/m1")).toBe(true);
    expect(isAppPath("/d/product/channels/c1/threads")).toBe(false);
    expect(isAppPath("/d/product/channels/c1/threads/m1/x")).toBe(false);
    // A fresh tab on a thread has its channel below it: Back shows the conversation.
    expect(addressBelow("/d/product/channels/c1/threads/m1")).toBe("/d/product/channels/c1");
  });

  it("a deep address has a page of the app below it for a fresh tab: a run its runs, the rest the board", () => {
    expect(addressBelow("/d/product/runs/r1")).toBe("/d/product/runs");
    for (const page of ["/d/product/tasks/t1", "/d/product/agents/writer", "/d/product/channels/c1", "/d/product/runs", "/d/product/figures", "/d/product/events", "/d/product/webhook", "/d/product/commands"]) {
      expect(addressBelow(page), page).toBe("/d/product");
    }
    for (const none of ["/d/product", "/", "/elsewhere", "/d/product/unknown"]) expect(addressBelow(none), none).toBeNull();
  });

  it("the dev server gives the page to the app's addresses only", () => {
    const pages = ["/d/product", "/d/product/", "/d/product/tasks/abc", "/d/product/agents/jarvis", "/d/product/channels", "/d/product/channels/c1", "/d/product/runs", "/d/product/runs/r1", "/d/product/figures", "/d/product/commands", "/d/product/events", "/d/product/webhook"];
    for (const path of pages) expect(isAppPath(path), path).toBe(true);
    const others = ["/", "/no-such-page", "/d", "/d/product/channels/c1/x", "/d/product/secrets", "/d/product/figures/x", "/d/product/events/x", "/d/product/webhook/x", "/d/product/runs/.env", "/d/.git", "/d/../package.json"];
    for (const path of others) expect(isAppPath(path), path).toBe(false);
  });
});

describe("the route table", () => {
  // The board's index route (no drawer) has no id.
  const routeIds = (path: string) => matchRoutes(appRoutes, path)?.flatMap((match) => match.route.id ?? []);

  it("matches each address to its page, the drawer nested under the board", () => {
    expect(routeIds("/d/product")).toEqual(["department", "board"]);
    expect(routeIds("/d/product/tasks/t1")).toEqual(["department", "board", "task"]);
    expect(routeIds("/d/product/agents/writer")).toEqual(["department", "agent"]);
    expect(routeIds("/d/product/channels")).toEqual(["department", "channels"]);
    expect(routeIds("/d/product/channels/c1")).toEqual(["department", "channels"]);
    expect(routeIds("/d/product/channels/c1/threads/m1")).toEqual(["department", "thread"]);
    expect(routeIds("/d/product/runs")).toEqual(["department", "runs"]);
    expect(routeIds("/d/product/runs/r1")).toEqual(["department", "runs"]);
    expect(routeIds("/d/product/figures")).toEqual(["department", "figures"]);
    expect(routeIds("/d/product/commands")).toEqual(["department", "commands"]);
    expect(routeIds("/d/product/events")).toEqual(["department", "events"]);
    expect(routeIds("/d/product/webhook")).toEqual(["department", "webhook"]);
    expect(routeIds("/d/product/trace/a2a%3Ak57abc")).toEqual(["department", "trace"]);
  });

  it("sends what names no page to the not-found page; settings, members and account are addresses over the board", () => {
    for (const path of ["/d/product/secrets", "/d/product/tasks", "/d/product/trace", "/d/product/channels/c1/x", "/d/product/settings/a/b"]) expect(routeIds(path)).toEqual(["department", "unknown-page"]);
    expect(routeIds("/")).toEqual(["home"]);
    expect(routeIds("/account")).toEqual(["account-anywhere"]);
    expect(routeIds("/no-such-page")).toEqual(["elsewhere"]);
    expect(routeIds("/d/product/settings")).toEqual(["department", "board", "settings"]);
    expect(routeIds("/d/product/settings/retention")).toEqual(["department", "board", "settings"]);
    expect(routeIds("/d/product/members")).toEqual(["department", "board", "members"]);
    expect(routeIds("/d/product/account")).toEqual(["department", "board", "account"]);
  });
});

function department(slug: string, id: string): Department {
  return { _id: id as Id<"departments">, slug, name: slug, role: "member" } as Department;
}
const product = department("product", "d1");
const launch = department("launch", "d2");

/** The app's routes at `address`, inside a shell whose departments are product (used last) and launch. */
function renderAt(address: string) {
  const seen: { pathname: string; search: string; hash: string }[] = [];
  function Probe() {
    const location = useLocation();
    seen.push(location);
    return null;
  }
  function Shell() {
    const slug = departmentSlugOf(useLocation().pathname);
    const workspace: Workspace = { departments: [product, launch], department: [product, launch].find((d) => d.slug === slug), fallback: product };
    return (
      <WorkspaceContext.Provider value={workspace}>
        <AppRoutes />
        <Probe />
      </WorkspaceContext.Provider>
    );
  }
  render(
    <MemoryRouter initialEntries={[address]}>
      <Shell />
    </MemoryRouter>,
  );
  return { where: () => seen.at(-1)! };
}

describe("the routes, rendered", () => {
  it("a task's address shows its drawer over the board", async () => {
    renderAt("/d/launch/tasks/t1?q=copy");
    await screen.findByText("drawer of t1");
    expect(screen.getByText("board of d2")).toBeTruthy();
  });

  it("an old #task= link opens the task in the remembered department, keeping the filters", async () => {
    const { where } = renderAt("/?q=copy#task=t9");
    await screen.findByText("drawer of t9");
    expect(where()).toMatchObject({ pathname: "/d/product/tasks/t9", search: "?q=copy", hash: "" });
  });

  it("a department you are not in goes to the remembered one; an unknown page says so, with a way back to its board", async () => {
    const elsewhere = renderAt("/d/secret?invite=abc");
    await screen.findByText("board of d1");
    expect(elsewhere.where()).toMatchObject({ pathname: "/d/product", search: "?invite=abc" });
    cleanup();
    const unknown = renderAt("/d/launch/nothing-here");
    await screen.findByRole("heading", { name: "Page not found" });
    expect(unknown.where().pathname).toBe("/d/launch/nothing-here");
    fireEvent.click(screen.getByRole("link", { name: "Back to the launch board" }));
    await screen.findByText("board of d2");
    expect(unknown.where().pathname).toBe("/d/launch");
    cleanup();
    renderAt("/nowhere");
    await screen.findByRole("heading", { name: "Page not found" });
    expect(screen.getByRole("link", { name: "Back to the product board" }).getAttribute("href")).toBe("/d/product");
    cleanup();
    const account = renderAt("/account");
    await screen.findByText("board of d1");
    expect(account.where().pathname).toBe("/d/product/account");
  });

  it("channels show the one in the address", async () => {
    renderAt("/d/product/channels/c7");
    await screen.findByText("channels, open: c7");
    expect(screen.getByText("thread: none")).toBeTruthy();
    expect(screen.queryByText(/board of/)).toBeNull();
  });

  it("a thread's address shows the thread beside its channel, opened fresh", async () => {
    renderAt("/d/product/channels/c7/threads/m1");
    await screen.findByText("channels, open: c7");
    expect(screen.getByText("thread: m1")).toBeTruthy();
  });

  it("opening a thread is a new address; closing it is Back to the channel", async () => {
    const { where } = renderAt("/d/product/channels/c7");
    fireEvent.click(await screen.findByRole("button", { name: "open thread m2" }));
    await screen.findByText("thread: m2");
    expect(where().pathname).toBe("/d/product/channels/c7/threads/m2");
    fireEvent.click(screen.getByRole("button", { name: "close thread" }));
    await screen.findByText("thread: none");
    expect(where().pathname).toBe("/d/product/channels/c7");
  });

  it("a thread opened from its address closes to its channel in its place", async () => {
    const { where } = renderAt("/d/product/channels/c7/threads/m1");
    fireEvent.click(await screen.findByRole("button", { name: "close thread" }));
    await screen.findByText("thread: none");
    expect(where().pathname).toBe("/d/product/channels/c7");
  });
});

describe("task navigation", () => {
  function setup(address: string, state?: unknown) {
    return renderHook(() => ({ tasks: useTaskNavigation("product"), location: useLocation(), type: useNavigationType(), navigate: useNavigate() }), {
      wrapper: ({ children }) => <MemoryRouter initialEntries={[{ pathname: address.split("?")[0], search: address.includes("?") ? `?${address.split("?")[1]}` : "", state }]}>{children}</MemoryRouter>,
    });
  }

  it("from the board a task is a new entry, with the filters; Back (its close) returns to the board", () => {
    const { result } = setup("/d/product?q=copy");
    act(() => result.current.tasks.open("t1" as Id<"tasks">));
    expect(result.current.location).toMatchObject({ pathname: "/d/product/tasks/t1", search: "?q=copy", state: { tasksAboveBoard: 1 } });
    expect(result.current.type).toBe("PUSH");
    act(() => result.current.tasks.close());
    expect(result.current.location).toMatchObject({ pathname: "/d/product", search: "?q=copy" });
    expect(result.current.type).toBe("POP");
  });

  it("a subtask opened from its parent is a new entry with the filters: Back returns to the parent, closing to the board", () => {
    const { result } = setup("/d/product?q=copy&tag=web");
    act(() => result.current.tasks.open("parent" as Id<"tasks">));
    act(() => result.current.tasks.open("child" as Id<"tasks">));
    expect(result.current.location).toMatchObject({ pathname: "/d/product/tasks/child", search: "?q=copy&tag=web", state: { tasksAboveBoard: 2 } });
    expect(result.current.type).toBe("PUSH");
    act(() => void result.current.navigate(-1));
    expect(result.current.location).toMatchObject({ pathname: "/d/product/tasks/parent", search: "?q=copy&tag=web" });
    act(() => result.current.tasks.open("child" as Id<"tasks">));
    act(() => result.current.tasks.close());
    expect(result.current.location).toMatchObject({ pathname: "/d/product", search: "?q=copy&tag=web" });
    expect(result.current.type).toBe("POP");
  });

  it("a task opened from its address closes to the board in its place", () => {
    const { result } = setup("/d/product/tasks/t1?q=copy");
    act(() => result.current.tasks.close());
    expect(result.current.location).toMatchObject({ pathname: "/d/product", search: "?q=copy" });
    expect(result.current.type).toBe("REPLACE");
  });
});
