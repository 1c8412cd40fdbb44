/**
 * Tool names on the wire. The specs name some tools with dots (`chat.post`,
 * `inbox.read`); the OpenAI API (and MCP hosts that pass MCP tool names on to
 * it) accepts function names matching `^[a-zA-Z0-9_-]{1,64}$` only. Tools go
 * out under a wire name (dots become underscores) and come back to the name
 * people see and configure through one table, so the mapping is one to one.
 */

/** What the OpenAI API accepts as a function name. */
export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name a tool goes out under: `chat.getNew` → `chat_getNew`. */
export function wireToolName(name: string): string {
  return name.replace(/\./g, "_");
}

/**
 * The table from wire names back to tool names, for `names`. Throws (a bug,
 * not a user error) when two names share a wire name or one cannot be sent.
 */
export function wireNameTable(names: readonly string[]): ReadonlyMap<string, string> {
  const table = new Map<string, string>();
  for (const name of names) {
    const wire = wireToolName(name);
    if (!WIRE_NAME_PATTERN.test(wire)) throw new Error(`tool name ${JSON.stringify(name)} has no valid wire name`);
    const taken = table.get(wire);
    if (taken !== undefined && taken !== name) throw new Error(`tools ${JSON.stringify(taken)} and ${JSON.stringify(name)} share the wire name ${wire}`);
    table.set(wire, name);
  }
  return table;
}

/** The tool a name on the wire stands for: its wire name or its own name; undefined when neither is in `table`. */
export function toolNameFromWire(table: ReadonlyMap<string, string>, name: string): string | undefined {
  return table.get(name) ?? (new Set(table.values()).has(name) ? name : undefined);
}
