/**
 * Every key and secret Maestro mints itself, as data the scanner reads
 * (rules.ts turns each format into a rule), and the one function that
 * mints them: a key can only be made from a format listed here, so no key
 * Maestro hands out is a stranger to the scanner. A new kind of key is a
 * new entry in `MINTED_KEY_FORMATS` and a call of `mintKey` where it is
 * made (tests/convex/mintedKeys.test.ts checks every format is found).
 *
 * No imports: the admin key is minted by the offline backend
 * (tools/local-backend/server.ts), outside Convex, from the same table.
 */

export type KeyAlphabet = "base32" | "hex";

export interface MintedKeyFormat {
  /** The scanner rule's id. */
  id: string;
  description: string;
  /** What every key of the format starts with. */
  prefix: string;
  alphabet: KeyAlphabet;
  /** Random characters after the prefix. */
  length: number;
}

const ALPHABETS: Record<KeyAlphabet, { chars: string; bits: number; pattern: string }> = {
  base32: { chars: "abcdefghijklmnopqrstuvwxyz234567", bits: 5, pattern: "a-z2-7" },
  hex: { chars: "0123456789abcdef", bits: 4, pattern: "0-9a-f" },
};

/** Agent API keys (convex/lib/apiKeys.ts): `mk_` and 40 base32 characters (200 bits). */
export const AGENT_API_KEY: MintedKeyFormat = { id: "maestro-agent-key", description: "Maestro agent API key (mk_…)", prefix: "mk_", alphabet: "base32", length: 40 };
/** The offline backend's admin key (tools/local-backend/server.ts): `maestro-local|` and 48 hex characters. */
export const ADMIN_KEY: MintedKeyFormat = { id: "maestro-admin-key", description: "Maestro backend admin key (maestro-local|…)", prefix: "maestro-local|", alphabet: "hex", length: 48 };
/** A department webhook's signing secret (convex/lib/webhooks.ts): `whsec_` and 64 hex characters. */
export const WEBHOOK_SECRET: MintedKeyFormat = { id: "maestro-webhook-secret", description: "Maestro webhook signing secret (whsec_…)", prefix: "whsec_", alphabet: "hex", length: 64 };

/** An invite link's token (convex/lib/accounts.ts): `mi_` and 52 base32 characters (260 bits); whoever holds it can join. */
export const INVITE_TOKEN: MintedKeyFormat = { id: "maestro-invite-token", description: "Maestro invite token (mi_…)", prefix: "mi_", alphabet: "base32", length: 52 };

/** A password reset link's token (convex/lib/accounts.ts): `mr_` and 52 base32 characters (260 bits); whoever holds it can set that member's password. */
export const RESET_TOKEN: MintedKeyFormat = { id: "maestro-reset-token", description: "Maestro password reset token (mr_…)", prefix: "mr_", alphabet: "base32", length: 52 };

/** Every format Maestro mints keys in: each is a scanner rule. */
export const MINTED_KEY_FORMATS: readonly MintedKeyFormat[] = [AGENT_API_KEY, ADMIN_KEY, WEBHOOK_SECRET, INVITE_TOKEN, RESET_TOKEN];

/** Random bytes `mintKey` needs for `format`. */
export function mintedKeyBytes(format: MintedKeyFormat): number {
  return Math.ceil((format.length * ALPHABETS[format.alphabet].bits) / 8);
}

/**
 * A fresh key of `format` from `random` (at least `mintedKeyBytes(format)`
 * bytes from a cryptographic source: `crypto.getRandomValues`, or Node's
 * `randomBytes`), every bit used once.
 */
export function mintKey(format: MintedKeyFormat, random: Uint8Array): string {
  const { chars, bits: width } = ALPHABETS[format.alphabet];
  if (random.length < mintedKeyBytes(format)) throw new Error(`mintKey: ${format.id} needs ${mintedKeyBytes(format)} random bytes`);
  let out = format.prefix;
  let bits = 0;
  let value = 0;
  for (const byte of random) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= width && out.length < format.prefix.length + format.length) {
      out += chars[(value >>> (bits - width)) & ((1 << width) - 1)];
      bits -= width;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

/** The characters a key of `format` is made of, as a regular-expression class body. */
export function keyAlphabetPattern(format: MintedKeyFormat): string {
  return ALPHABETS[format.alphabet].pattern;
}

/** `text` with the regular-expression specials escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
