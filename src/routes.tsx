// The app's route table: every address, declared once as route objects.
import { lazy } from "react";
import { useRoutes, type RouteObject } from "react-router";
import { BoardPage } from "./pages/BoardPage";
import { DepartmentPage } from "./pages/DepartmentPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { ToRememberedDepartment } from "./pages/redirects";
import { ACCOUNT_PATH, ROUTE_PATHS } from "./shell/addresses";

// What the board's first screen does not show is loaded when first opened, so the entry chunk
// the board waits for stays small (the figures' charts alone were most of it).
const TaskPage = lazy(() => import("./pages/TaskPage").then((m) => ({ default: m.TaskPage })));
const AgentPage = lazy(() => import("./pages/AgentPage").then((m) => ({ default: m.AgentPage })));
const ChannelsPage = lazy(() => import("./pages/ChannelsPage").then((m) => ({ default: m.ChannelsPage })));
const RunsPage = lazy(() => import("./pages/RunsPage").then((m) => ({ default: m.RunsPage })));
const FiguresPage = lazy(() => import("./pages/FiguresPage").then((m) => ({ default: m.FiguresPage })));
const CommandsPage = lazy(() => import("./pages/CommandsPage").then((m) => ({ default: m.CommandsPage })));
const EventsPage = lazy(() => import("./pages/EventsPage").then((m) => ({ default: m.EventsPage })));
const TracePage = lazy(() => import("./pages/TracePage").then((m) => ({ default: m.TracePage })));
const WebhookPage = lazy(() => import("./pages/WebhookPage").then((m) => ({ default: m.WebhookPage })));

/**
 * Route objects, rendered by `useRoutes` under the app's `BrowserRouter`
 * rather than by a data router (`createBrowserRouter`): the pages read
 * Convex subscriptions, not loaders, so a data router would add nothing; and
 * the table renders inside the signed-in shell, whose department list the
 * routes resolve `:slug` against, while the router stays outside sign-in so
 * an address opened signed out is where you land after.
 */
export const appRoutes: RouteObject[] = [
  {
    id: "department",
    path: ROUTE_PATHS.department,
    element: <DepartmentPage />,
    children: [
      {
        // The board stays mounted under a task's drawer, which renders in its outlet.
        id: "board",
        element: <BoardPage />,
        // Settings, members and your account are dialogs over the board (AppShell opens them from the address).
        children: [
          { index: true },
          { id: "task", path: ROUTE_PATHS.task, element: <TaskPage /> },
          { id: "settings", path: ROUTE_PATHS.settings },
          { id: "members", path: ROUTE_PATHS.members },
          { id: "account", path: ROUTE_PATHS.account },
        ],
      },
      { id: "agent", path: ROUTE_PATHS.agent, element: <AgentPage /> },
      { id: "channels", path: ROUTE_PATHS.channels, element: <ChannelsPage /> },
      { id: "thread", path: ROUTE_PATHS.thread, element: <ChannelsPage /> },
      { id: "runs", path: ROUTE_PATHS.runs, element: <RunsPage /> },
      { id: "figures", path: ROUTE_PATHS.figures, element: <FiguresPage /> },
      { id: "commands", path: ROUTE_PATHS.commands, element: <CommandsPage /> },
      { id: "events", path: ROUTE_PATHS.events, element: <EventsPage /> },
      { id: "trace", path: ROUTE_PATHS.trace, element: <TracePage /> },
      { id: "webhook", path: ROUTE_PATHS.webhook, element: <WebhookPage /> },
      { id: "unknown-page", path: "*", element: <NotFoundPage /> },
    ],
  },
  // "/" and an old `#task=` link: a department you can see; `/account`: your account there.
  { id: "home", path: "/", element: <ToRememberedDepartment /> },
  { id: "account-anywhere", path: ACCOUNT_PATH, element: <ToRememberedDepartment page="account" /> },
  { id: "elsewhere", path: "*", element: <NotFoundPage /> },
];

/** The page for the current address. */
export function AppRoutes() {
  return useRoutes(appRoutes);
}
