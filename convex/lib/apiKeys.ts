/**
 * Agent API keys as values: how a key looks, how a fresh one is made, and
 * the SHA-256 that is all Maestro keeps of it.
 */
import { AGENT_API_KEY, keyAlphabetPattern, mintedKeyBytes, mintKey } from "./secrets/minted";
import { sha256Hex } from "./sha256";

/** Every key starts with this, so a leaked one is recognisable (and the scanner knows it: lib/secrets/minted). */
export const API_KEY_PREFIX = AGENT_API_KEY.prefix;
/** Random characters after the prefix: 40 base32 characters carry 200 bits. */
export const API_KEY_RANDOM_CHARS = AGENT_API_KEY.length;
/** Characters of a key kept in clear, to tell keys apart in the UI. */
export const API_KEY_DISPLAY_CHARS = 12;

/** A key as the MCP server sends it; anything else is not worth a lookup. */
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[${keyAlphabetPattern(AGENT_API_KEY)}]{${API_KEY_RANDOM_CHARS}}$`);

/** A fresh key: the prefix and 40 base32 characters from `crypto.getRandomValues`, minted in a format the secret scanner knows. */
export function generateApiKey(): string {
  return mintKey(AGENT_API_KEY, crypto.getRandomValues(new Uint8Array(mintedKeyBytes(AGENT_API_KEY))));
}

/** Whether `key` looks like a Maestro agent API key. */
export function isApiKeyShape(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/** What is stored for a key (and looked up by): its hex SHA-256. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/**
 * What a key may do, chosen when it is made (messaging spec, "per-agent
 * scopes for messaging"). Each HTTP route and MCP tool names the one it
 * needs; a key made before scopes existed holds them all.
 */
export const API_SCOPES = [
  "projects:read",
  "projects:write",
  "channels:read",
  "channels:manage",
  "messages:read",
  "messages:write",
  "chat:read",
  "chat:write",
  "tasks:read",
  "tasks:write",
  "tools:run",
  // Hands work to the squad over A2A (convex/a2aServerApi.ts): a card for the squad lead, followed and cancelled.
  "a2a:tasks",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** Whether a key holding `held` (undefined: a key from before scopes, holding all) may use `scope`. */
export function keyHasScope(held: readonly ApiScope[] | undefined, scope: ApiScope): boolean {
  return held === undefined || held.includes(scope);
}
