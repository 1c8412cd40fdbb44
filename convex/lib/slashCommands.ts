/**
 * Slash commands (the durable-sessions spec, "Slash Command Model"), as plain
 * logic shared by the Convex functions and the composers: parsing command
 * files (frontmatter + template), the registry (department commands over
 * global ones, built-ins reserved), parsing what was typed, argument
 * substitution and the `<slash-command>` wrapper a prompt command is sent in.
 */

/** The service actions a command may map to (`action:` in its frontmatter). */
export const SLASH_ACTIONS = ["new_session", "stop_stream", "set_model", "switch_mode"] as const;
export type SlashAction = (typeof SLASH_ACTIONS)[number];


export type CommandSource = "builtin" | "global" | "department";

/** What a built-in's first argument takes, for the composers' completion: one agent, agents, or a status. */
export const ARGUMENT_KINDS = ["agent", "agents", "status"] as const;
export type ArgumentKind = (typeof ARGUMENT_KINDS)[number];

export interface SlashCommand {
  name: string;
  description: string;
  argumentHint: string;
  /** Absent: a prompt command (the template is rendered and sent to the agent). A built-in's own action, or one of SLASH_ACTIONS (convex/slash/registry.ts). */
  action?: string;
  /** Whether the raw arguments reach the action; otherwise it gets the rendered template. */
  passArguments: boolean;
  template: string;
  source: CommandSource;
  /** What the first argument names (built-ins only), so composers can complete it. */
  argument?: ArgumentKind;
}

/** What a department command may hold. */
export const COMMAND_LIMITS = {
  nameChars: 32,
  descriptionChars: 200,
  argumentHintChars: 100,
  templateChars: 4000,
  perDepartment: 200,
  invokedAsChars: 200,
} as const;

const NAME_RE = /^[a-z][a-z0-9_-]*$/;

/** Why a command name is refused, or null when it is fine. */
export function commandNameProblem(name: string): string | null {
  if (name === "") return "A command needs a name.";
  if (name.length > COMMAND_LIMITS.nameChars) return `A command name has at most ${COMMAND_LIMITS.nameChars} characters.`;
  if (!NAME_RE.test(name)) return `"${name}" is not a command name: use lower-case letters, digits, "-" and "_", starting with a letter.`;
  return null;
}

export type ParsedFile = { ok: true; command: SlashCommand } | { ok: false; file: string; error: string };

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) return v.slice(1, -1);
  return v;
}

/**
 * Parses one command file (`commands/<name>.md`): `---` frontmatter with
 * `description` (required), `argument-hint`, `action`, `passArguments`, then
 * the template. A problem comes back as an error naming the file, never thrown.
 */
export function parseCommandFile(file: string, text: string, source: CommandSource = "global"): ParsedFile {
  const fail = (error: string): ParsedFile => ({ ok: false, file, error: `${file}: ${error}` });
  const name = file.replace(/^.*\//, "").replace(/\.md$/, "");
  const nameProblem = commandNameProblem(name);
  if (nameProblem !== null) return fail(nameProblem);
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines[0]?.trim() !== "---") return fail('the file must start with a "---" frontmatter block.');
  const close = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (close === -1) return fail('the frontmatter block is not closed with "---".');
  const fields = new Map<string, string>();
  for (const [i, line] of lines.slice(1, close).entries()) {
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (match === null) return fail(`frontmatter line ${i + 2} is not "key: value".`);
    const key = match[1];
    if (!["description", "argument-hint", "action", "passArguments"].includes(key)) {
      return fail(`unknown frontmatter key "${key}" (use description, argument-hint, action, passArguments).`);
    }
    fields.set(key, unquote(match[2]));
  }
  const description = fields.get("description") ?? "";
  if (description === "") return fail("the frontmatter needs a description.");
  const action = fields.get("action");
  if (action !== undefined && action !== "" && !(SLASH_ACTIONS as readonly string[]).includes(action)) {
    return fail(`unknown action "${action}" (one of ${SLASH_ACTIONS.join(", ")}).`);
  }
  const pass = fields.get("passArguments");
  if (pass !== undefined && pass !== "true" && pass !== "false") return fail(`passArguments must be true or false, got "${pass}".`);
  const template = lines
    .slice(close + 1)
    .join("\n")
    .trim();
  if ((action === undefined || action === "") && template === "") return fail("a command without an action needs a template body.");
  return {
    ok: true,
    command: {
      name,
      description,
      argumentHint: fields.get("argument-hint") ?? "",
      ...(action === undefined || action === "" ? {} : { action: action as SlashAction }),
      passArguments: pass === "true",
      template,
      source,
    },
  };
}

export interface Registry {
  /** By name, sorted by name. */
  commands: SlashCommand[];
  /** One line per file or command that could not be loaded; the rest still load. */
  errors: string[];
}

/**
 * The registry a department sees: built-ins (convex/slash/registry.ts), then
 * global files, then the department's own commands, each overriding a global
 * of the same name. Built-in names are reserved: a global or department
 * command using one is reported and left out.
 */
export function buildRegistry(builtins: readonly SlashCommand[], globalFiles: ReadonlyArray<{ file: string; text: string }>, department: readonly SlashCommand[]): Registry {
  const byName = new Map<string, SlashCommand>();
  const errors: string[] = [];
  for (const builtin of builtins) byName.set(builtin.name, builtin);
  const reserved = (name: string) => byName.get(name)?.source === "builtin";
  for (const { file, text } of globalFiles) {
    const parsed = parseCommandFile(file, text, "global");
    if (!parsed.ok) errors.push(parsed.error);
    else if (reserved(parsed.command.name)) errors.push(`${file}: /${parsed.command.name} is a built-in command.`);
    else byName.set(parsed.command.name, parsed.command);
  }
  for (const command of department) {
    if (reserved(command.name)) errors.push(`/${command.name} (department) is a built-in command.`);
    else byName.set(command.name, { ...command, source: "department" });
  }
  const commands = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { commands, errors };
}

/** `/name rest…` → name and raw arguments; null when the text is not a command. */
export function parseInvocation(text: string): { name: string; args: string; invokedAs: string } | null {
  const trimmed = text.trim();
  const match = /^\/([^\s/]*)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (match === null) return null;
  const invokedAs = trimmed.length > COMMAND_LIMITS.invokedAsChars ? `${trimmed.slice(0, COMMAND_LIMITS.invokedAsChars - 1)}…` : trimmed;
  return { name: match[1].toLowerCase(), args: (match[2] ?? "").trim(), invokedAs };
}

/** Splits arguments on whitespace; "double quotes" keep spaces together. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args)) out.push(m[1] ?? m[2]);
  return out;
}

/**
 * `$ARGUMENTS` → the raw arguments, `$1`…`$9` → each positional one (empty
 * when missing). With `escape`, what the person typed has `&`, `<` and `>`
 * escaped, so it cannot close the `<slash-command>` wrapper or forge one.
 */
export function renderTemplate(template: string, args: string, escape: (text: string) => string = (text) => text): string {
  const positional = splitArguments(args);
  return template.replace(/\$ARGUMENTS|\$([1-9])/g, (_, digit: string | undefined) =>
    escape(digit === undefined ? args : (positional[Number(digit) - 1] ?? "")),
  );
}

/** Typed text made inert inside the wrapper's body. */
export function escapeWrapped(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** How many `<required>` arguments an argument hint names. */
export function requiredArguments(hint: string): number {
  return (hint.match(/<[^>]+>/g) ?? []).length;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The payload a prompt command is sent as (the spec's wrapper). */
export function wrapPrompt(name: string, invokedAs: string, rendered: string): string {
  return `<slash-command name="${escapeAttribute(name)}" invokedAs="${escapeAttribute(invokedAs)}">\n${rendered}\n</slash-command>`;
}

export type Resolution =
  | { ok: false; name: string; invokedAs: string; error: string }
  | { ok: true; kind: "action"; command: SlashCommand; action: string; args: string; invokedAs: string; rawArgs: string }
  | { ok: true; kind: "prompt"; command: SlashCommand; rendered: string; payload: string; invokedAs: string; rawArgs: string };

/**
 * What typed text resolves to: a command with an action runs it (with the raw
 * arguments when `passArguments`, else with its rendered template); any other
 * command renders its template into the wrapped prompt. Unknown commands and
 * missing required arguments are errors.
 */
export function resolveCommand(commands: readonly SlashCommand[], text: string): Resolution {
  const invocation = parseInvocation(text);
  if (invocation === null) return { ok: false, name: "", invokedAs: text.trim().slice(0, COMMAND_LIMITS.invokedAsChars), error: "A command starts with /." };
  const { name, args, invokedAs } = invocation;
  const fail = (error: string): Resolution => ({ ok: false, name, invokedAs, error });
  if (name === "") return fail("Type a command name after /, or /help for the list.");
  const command = commands.find((c) => c.name === name);
  if (command === undefined) return fail(`Unknown command /${name}. Type /help for the list.`);
  const needed = requiredArguments(command.argumentHint);
  const consumesArgs = command.action === undefined || command.passArguments;
  if (consumesArgs && needed > 0 && splitArguments(args).length < needed) return fail(`/${name} needs ${command.argumentHint}.`);
  if (command.action !== undefined) {
    const rendered = renderTemplate(command.template, args).trim();
    return { ok: true, kind: "action", command, action: command.action, args: command.passArguments ? args : rendered, invokedAs, rawArgs: args };
  }
  const rendered = renderTemplate(command.template, args, escapeWrapped).trim();
  if (rendered === "") return fail(`/${name} renders to nothing to send.`);
  return { ok: true, kind: "prompt", command, rendered, payload: wrapPrompt(name, invokedAs, rendered), invokedAs, rawArgs: args };
}

/** Commands whose name starts with what follows the `/` (prefix matches first, then name contains). */
export function matchCommands<T extends { name: string }>(commands: readonly T[], query: string): T[] {
  const q = query.toLowerCase();
  const prefix: T[] = [];
  const inner: T[] = [];
  for (const command of commands) {
    if (command.name.startsWith(q)) prefix.push(command);
    else if (q !== "" && command.name.includes(q)) inner.push(command);
  }
  return [...prefix, ...inner];
}

/** The models `/model` offers: MAESTRO_DEFAULT_MODEL (or the built-in default) and the MAESTRO_MODELS list, each once. */
export function modelChoices(env: Record<string, string | undefined>, fallbackDefault: string): string[] {
  const first = env.MAESTRO_DEFAULT_MODEL?.trim() || fallbackDefault;
  const rest = (env.MAESTRO_MODELS ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  return [...new Set([first, ...rest])];
}

/** How arguments are read, at the end of /help. */
export const ARGUMENTS_HELP =
  'Arguments: an agent\'s name works as written, spaces and all (/assign Dev Bot); "double quotes" keep words together anywhere (/delegate Writer "Launch tagline"). Tab completes agent names and statuses.';

/** /help's text: one line per command, then how arguments are read. */
export function helpText(commands: readonly SlashCommand[]): string {
  return [...commands.map((c) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""} — ${c.description}`), "", ARGUMENTS_HELP].join("\n");
}
