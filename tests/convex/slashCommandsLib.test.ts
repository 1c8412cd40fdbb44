import { describe, expect, test } from "vitest";
import { COMMAND_FILES } from "../../convex/lib/commandFiles.generated";
import { BUILTIN_COMMANDS } from "../../convex/slash/registry";
import {
  buildRegistry,
  commandNameProblem,
  matchCommands,
  modelChoices,
  parseCommandFile,
  parseInvocation,
  renderTemplate,
  resolveCommand,
  splitArguments,
  wrapPrompt,
  type SlashCommand,
} from "../../convex/lib/slashCommands";

const file = (front: string, body = "") => `---\n${front}\n---\n${body}`;

function department(name: string, fields: Partial<SlashCommand> = {}): SlashCommand {
  return { name, description: `dept ${name}`, argumentHint: "", passArguments: false, template: `dept ${name} $ARGUMENTS`, source: "department", ...fields };
}

describe("parseCommandFile", () => {
  test("frontmatter and template", () => {
    const parsed = parseCommandFile("commands/review.md", file('description: "Review it"\nargument-hint: <focus>', "Review $1.\n"));
    expect(parsed).toEqual({
      ok: true,
      command: { name: "review", description: "Review it", argumentHint: "<focus>", passArguments: false, template: "Review $1.", source: "global" },
    });
  });
  test("an action with passArguments", () => {
    const parsed = parseCommandFile("commands/model.md", file("description: Model\naction: set_model\npassArguments: true"));
    expect(parsed.ok && parsed.command).toMatchObject({ name: "model", action: "set_model", passArguments: true, template: "" });
  });
  test("CRLF line endings parse the same", () => {
    const parsed = parseCommandFile("commands/x.md", "---\r\ndescription: X\r\n---\r\nBody\r\n");
    expect(parsed.ok && parsed.command.template).toBe("Body");
  });
  test.each([
    ["no frontmatter", "Just text", /must start with a "---"/],
    ["unclosed frontmatter", "---\ndescription: x\nbody", /not closed/],
    ["no description", file("argument-hint: x", "body"), /needs a description/],
    ["unknown key", file("description: x\ncolour: red", "body"), /unknown frontmatter key "colour"/],
    ["unknown action", file("description: x\naction: explode"), /unknown action "explode"/],
    ["bad passArguments", file("description: x\naction: stop_stream\npassArguments: yes"), /passArguments must be true or false/],
    ["prompt with no body", file("description: x"), /needs a template body/],
    ["not key: value", file("description: x\njust words", "b"), /line 3 is not "key: value"/],
  ])("malformed: %s is a clear error naming the file", (_, text, error) => {
    const parsed = parseCommandFile("commands/bad.md", text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toMatch(/^commands\/bad\.md: /);
      expect(parsed.error).toMatch(error);
    }
  });
  test("a bad file name is refused", () => {
    const parsed = parseCommandFile("commands/Bad Name.md", file("description: x", "b"));
    expect(!parsed.ok && parsed.error).toMatch(/not a command name/);
  });
});

describe("command names", () => {
  test("lower-case letters, digits, - and _, starting with a letter", () => {
    expect(commandNameProblem("review-pr_2")).toBeNull();
    expect(commandNameProblem("")).toMatch(/needs a name/);
    expect(commandNameProblem("2fast")).toMatch(/not a command name/);
    expect(commandNameProblem("x".repeat(33))).toMatch(/at most 32/);
  });
});

describe("arguments", () => {
  test("$ARGUMENTS and $1…$9, missing positional arguments are empty", () => {
    expect(renderTemplate("All: $ARGUMENTS | first: $1 | second: $2 | ninth: [$9]", 'alpha "beta gamma"')).toBe(
      'All: alpha "beta gamma" | first: alpha | second: beta gamma | ninth: []',
    );
  });
  test("quotes group words", () => {
    expect(splitArguments('Dev-Bot "Fix the login page" now')).toEqual(["Dev-Bot", "Fix the login page", "now"]);
    expect(splitArguments("  ")).toEqual([]);
  });
  test("parseInvocation", () => {
    expect(parseInvocation("/Review  the PR\nplease")).toEqual({ name: "review", args: "the PR\nplease", invokedAs: "/Review  the PR\nplease" });
    expect(parseInvocation("hello /review")).toBeNull();
    expect(parseInvocation("/")).toEqual({ name: "", args: "", invokedAs: "/" });
  });
});

describe("registry", () => {
  const globals = [
    { file: "commands/review.md", text: file("description: Global review", "Review $ARGUMENTS") },
    { file: "commands/broken.md", text: "no frontmatter" },
    { file: "commands/help.md", text: file("description: Shadow help", "x") },
    { file: "commands/stop.md", text: file("description: Stop\naction: stop_stream") },
  ];
  test("department commands override globals of the same name; the rest still load", () => {
    const { commands, errors } = buildRegistry(BUILTIN_COMMANDS, globals, [department("review"), department("mine")]);
    expect(commands.find((c) => c.name === "review")).toMatchObject({ source: "department", description: "dept review" });
    expect(commands.find((c) => c.name === "stop")?.source).toBe("global");
    expect(commands.find((c) => c.name === "mine")?.source).toBe("department");
    expect(errors).toEqual([expect.stringMatching(/^commands\/broken\.md: /), "commands/help.md: /help is a built-in command."]);
    expect(commands.map((c) => c.name)).toEqual([...commands.map((c) => c.name)].sort());
  });
  test("built-ins cannot be shadowed by a department", () => {
    const { commands, errors } = buildRegistry(BUILTIN_COMMANDS, [], [department("delegate")]);
    expect(commands.find((c) => c.name === "delegate")?.source).toBe("builtin");
    expect(errors).toEqual(["/delegate (department) is a built-in command."]);
  });
  test("the shipped commands/ files all load", () => {
    const { commands, errors } = buildRegistry(BUILTIN_COMMANDS, COMMAND_FILES, []);
    expect(errors).toEqual([]);
    for (const name of ["review", "summarize", "standup", "new", "stop", "model", "mode", "delegate", "assign", "status", "help"]) {
      expect(commands.map((c) => c.name)).toContain(name);
    }
  });
});

describe("resolveCommand", () => {
  const commands = buildRegistry(
    BUILTIN_COMMANDS,
    [
      { file: "commands/review.md", text: file("description: R\nargument-hint: <focus> [more]", "Review $1 then $ARGUMENTS") },
      { file: "commands/model.md", text: file("description: M\nargument-hint: <model>\naction: set_model\npassArguments: true", "ignored") },
      { file: "commands/fast.md", text: file("description: F\naction: set_model\npassArguments: false", "gpt-fast") },
    ],
    [],
  ).commands;

  test("a prompt command renders and wraps its template", () => {
    const r = resolveCommand(commands, "/review login fast");
    expect(r).toMatchObject({ ok: true, kind: "prompt", rendered: "Review login then login fast" });
    expect(r.ok && r.kind === "prompt" && r.payload).toBe('<slash-command name="review" invokedAs="/review login fast">\nReview login then login fast\n</slash-command>');
  });
  test("an action command runs its action", () => {
    expect(resolveCommand(commands, "/model gpt-x")).toMatchObject({ ok: true, kind: "action", action: "set_model", args: "gpt-x" });
  });
  test("passArguments: false gives the action the rendered template instead of the raw arguments", () => {
    expect(resolveCommand(commands, "/fast whatever")).toMatchObject({ ok: true, kind: "action", action: "set_model", args: "gpt-fast", rawArgs: "whatever" });
  });
  test("passArguments: true passes the raw arguments", () => {
    expect(resolveCommand(commands, '/model  "a b"  ')).toMatchObject({ args: '"a b"' });
  });
  test("unknown command", () => {
    expect(resolveCommand(commands, "/nope x")).toEqual({ ok: false, name: "nope", invokedAs: "/nope x", error: "Unknown command /nope. Type /help for the list." });
  });
  test("missing required arguments", () => {
    expect(resolveCommand(commands, "/review")).toMatchObject({ ok: false, error: "/review needs <focus> [more]." });
    expect(resolveCommand(commands, "/delegate Dev-Bot")).toMatchObject({ ok: false, error: "/delegate needs <agent> <title>." });
  });
  test("not a command", () => {
    expect(resolveCommand(commands, "hello")).toMatchObject({ ok: false });
    expect(resolveCommand(commands, "/")).toMatchObject({ ok: false, error: /Type a command name/ });
  });
  test("the wrapper escapes its attributes", () => {
    expect(wrapPrompt("x", '/x "a" <b>', "t")).toBe('<slash-command name="x" invokedAs="/x &quot;a&quot; &lt;b&gt;">\nt\n</slash-command>');
  });
});

describe("helpers", () => {
  test("matchCommands: prefix matches first, then names containing the text", () => {
    const list = [{ name: "model" }, { name: "mode" }, { name: "new" }, { name: "summarize" }];
    expect(matchCommands(list, "mo").map((c) => c.name)).toEqual(["model", "mode"]);
    expect(matchCommands(list, "ma").map((c) => c.name)).toEqual(["summarize"]);
    expect(matchCommands(list, "")).toHaveLength(4);
  });
  test("modelChoices: the default model first, then MAESTRO_MODELS, each once", () => {
    expect(modelChoices({}, "gpt-4o-mini")).toEqual(["gpt-4o-mini"]);
    expect(modelChoices({ MAESTRO_DEFAULT_MODEL: "a", MAESTRO_MODELS: " b, a ,, c" }, "z")).toEqual(["a", "b", "c"]);
  });
});
