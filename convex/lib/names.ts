/** "Dev Bot" → "dev-bot": the slug used in session keys and department URLs. */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** An agent's session key: `agent:<agent slug>:<department slug>`. */
export function agentSessionKey(agentName: string, departmentSlug: string): string {
  return `agent:${slugify(agentName)}:${departmentSlug}`;
}
