import { matchPath } from "react-router";

/**
 * The app's addresses, built and parsed in one place:
 *
 *   /d/:slug                       a department's board
 *   /d/:slug/tasks/:taskId         a task's drawer over that board
 *   /d/:slug/agents/:agentSlug     an agent's page
 *   /d/:slug/channels[/:channelId] channels and DMs, one open
 *   /d/:slug/channels/:channelId/threads/:threadId   one thread beside its channel
 *   /d/:slug/runs[/:runId]         the department's agent runs, or one run's timeline
 *   /d/:slug/figures               the department's messaging figures
 *   /d/:slug/commands              the slash commands typed in the department
 *   /d/:slug/events[?correlation=] the department's event log (admins), narrowed to one correlation id when given
 *   /d/:slug/trace/:correlationId  one delegation's trace: its steps, oldest first (admins)
 *   /d/:slug/webhook               the department's webhook and its deliveries (admins)
 *   /d/:slug/settings[/:section]   the department's settings over its board (admins), at one section
 *   /d/:slug/members               the department's members over its board
 *   /d/:slug/account               your account over the board (`/account` opens it in your last department)
 *
 * The route table (src/routes.tsx) is built from `ROUTE_PATHS`; the builders
 * below write the same addresses.
 */

/** Route patterns: a department's, and each page's relative to it. */
export const ROUTE_PATHS = {
  department: "/d/:slug",
  task: "tasks/:taskId",
  agent: "agents/:agentSlug",
  channels: "channels/:channelId?",
  thread: "channels/:channelId/threads/:threadId",
  runs: "runs/:runId?",
  figures: "figures",
  commands: "commands",
  events: "events",
  trace: "trace/:correlationId",
  webhook: "webhook",
  settings: "settings/:section?",
  members: "members",
  account: "account",
} as const;

/** `/account`: your account, in the department you used last. */
export const ACCOUNT_PATH = "/account";

/** The sections of the settings dialog, in its order, as their addresses name them. */
export const SETTINGS_SECTIONS = [
  { id: "about", label: "About" },
  { id: "chat", label: "#maestro chat" },
  { id: "retention", label: "Retention" },
  { id: "agents", label: "What agents are shown" },
  { id: "model", label: "Model" },
  { id: "commands", label: "Commands" },
  { id: "a2a", label: "A2A" },
] as const;

export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]["id"];

const TASK_PATTERN = `${ROUTE_PATHS.department}/${ROUTE_PATHS.task}`;

const part = (value: string) => encodeURIComponent(value);

/** A department's board. */
export function departmentPath(slug: string): string {
  return `/d/${part(slug)}`;
}

/** A task's drawer over its department's board. */
export function taskPath(slug: string, taskId: string): string {
  return `${departmentPath(slug)}/tasks/${part(taskId)}`;
}

/** An agent's page. */
export function agentPath(slug: string, agentSlug: string): string {
  return `${departmentPath(slug)}/agents/${part(agentSlug)}`;
}

/** Channels and DMs, with one open when `channelId` is given. */
export function channelsPath(slug: string, channelId?: string): string {
  return channelId === undefined ? `${departmentPath(slug)}/channels` : `${departmentPath(slug)}/channels/${part(channelId)}`;
}

/** One thread (its first message's id) open beside its channel or DM. */
export function threadPath(slug: string, channelId: string, threadId: string): string {
  return `${channelsPath(slug, channelId)}/threads/${part(threadId)}`;
}

/** The department's runs, or one run's timeline. */
export function runsPath(slug: string, runId?: string): string {
  return runId === undefined ? `${departmentPath(slug)}/runs` : `${departmentPath(slug)}/runs/${part(runId)}`;
}

/** The department's messaging figures. */
export function figuresPath(slug: string): string {
  return `${departmentPath(slug)}/figures`;
}

/** The slash commands typed in the department. */
export function commandsPath(slug: string): string {
  return `${departmentPath(slug)}/commands`;
}

/** The event log's query parameter that narrows it to one correlation id. */
export const CORRELATION_PARAM = "correlation";

/** The department's event log (admins), narrowed to one correlation id when given. */
export function eventsPath(slug: string, correlationId?: string): string {
  const path = `${departmentPath(slug)}/events`;
  return correlationId === undefined ? path : `${path}?${new URLSearchParams({ [CORRELATION_PARAM]: correlationId }).toString()}`;
}

/** One delegation's trace: everything its correlation id spans (admins). */
export function tracePath(slug: string, correlationId: string): string {
  return `${departmentPath(slug)}/trace/${part(correlationId)}`;
}

/** The department's webhook and its recent deliveries (admins). */
export function webhookPath(slug: string): string {
  return `${departmentPath(slug)}/webhook`;
}

/** The department's settings, at one section when given. */
export function settingsPath(slug: string, section?: SettingsSection): string {
  return section === undefined ? `${departmentPath(slug)}/settings` : `${departmentPath(slug)}/settings/${part(section)}`;
}

/** The department's members. */
export function membersPath(slug: string): string {
  return `${departmentPath(slug)}/members`;
}

/** Your account, over a department's board. */
export function accountPath(slug: string): string {
  return `${departmentPath(slug)}/account`;
}

/** Which dialog an address opens over the board: settings (at a section, when one is named), members or account; null for none. */
export function dialogOf(pathname: string): { kind: "settings"; section?: string } | { kind: "members" } | { kind: "account" } | null {
  const settings = matchPath(`${ROUTE_PATHS.department}/${ROUTE_PATHS.settings}`, pathname);
  if (settings !== null) return settings.params.section === undefined ? { kind: "settings" } : { kind: "settings", section: settings.params.section };
  if (matchPath(`${ROUTE_PATHS.department}/${ROUTE_PATHS.members}`, pathname) !== null) return { kind: "members" };
  if (matchPath(`${ROUTE_PATHS.department}/${ROUTE_PATHS.account}`, pathname) !== null) return { kind: "account" };
  return null;
}

/** An agent's slug in addresses: the middle part of its session key (`agent:<slug>:<department slug>`). */
export function agentSlugOf(sessionKey: string): string {
  const parts = sessionKey.split(":");
  return parts.length >= 3 && parts[0] === "agent" && parts[1] !== "" ? parts[1] : sessionKey;
}

/** The task id in an old `#task=<id>` link, or null. */
export function taskIdFromHash(hash: string): string | null {
  const prefix = "#task=";
  if (!hash.startsWith(prefix)) return null;
  const raw = hash.slice(prefix.length).split("&")[0];
  if (raw === "") return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The department an address is in (`/d/:slug/…`), or undefined ("/", an old link). */
export function departmentSlugOf(pathname: string): string | undefined {
  return matchPath({ path: ROUTE_PATHS.department, end: false }, pathname)?.params.slug;
}

/** Whether the address is a task's: its drawer is open over the board. */
export function isTaskPath(pathname: string): boolean {
  return matchPath(TASK_PATTERN, pathname) !== null;
}

/**
 * Whether a path is one of the app's pages (the table above), so the dev
 * server answers it with the app. A segment starting with "." never is.
 */
export function isAppPath(pathname: string): boolean {
  if (pathname.split("/").some((segment) => segment.startsWith("."))) return false;
  const { department, ...pages } = ROUTE_PATHS;
  return [department, ACCOUNT_PATH, ...Object.values(pages).map((page) => `${department}/${page}`)].some((pattern) => matchPath(pattern, pathname) !== null);
}

/**
 * The address a fresh tab puts below `pathname`, so that Back from a deep
 * link stays in the app: a run's timeline has the runs below it, a thread
 * its channel, any other page of a department its board. The board itself, and what is not a
 * department's page, have none.
 */
export function addressBelow(pathname: string): string | null {
  const slug = departmentSlugOf(pathname);
  if (slug === undefined || !isAppPath(pathname) || matchPath(ROUTE_PATHS.department, pathname) !== null) return null;
  if (matchPath(`${ROUTE_PATHS.department}/runs/:runId`, pathname) !== null) return runsPath(slug);
  const thread = matchPath(`${ROUTE_PATHS.department}/${ROUTE_PATHS.thread}`, pathname);
  if (thread !== null) return channelsPath(slug, thread.params.channelId);
  return departmentPath(slug);
}

/** Addresses that show the board: "/" (it redirects to a department), a department, a task or a dialog over its board. */
export function showsBoard(pathname: string): boolean {
  return pathname === "/" || matchPath(ROUTE_PATHS.department, pathname) !== null || isTaskPath(pathname) || dialogOf(pathname) !== null;
}
