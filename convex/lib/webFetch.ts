/**
 * What `web_fetch` may be asked to fetch, checked when the model calls it,
 * before the call is handed to the department's executor: an http(s) URL
 * whose host passes the webhooks' address check (lib/webhooks `mayTarget`:
 * no loopback, private, link-local, unspecified or local-network address in
 * any spelling), with no credentials and no secret anywhere in it (a hijacked
 * agent's favourite way out is a query string: `?k=<the key it read>`). The
 * executor still checks the address it resolves the name to (docs/api.md).
 */
import { mayTarget } from "./webhooks";
import { ruleScanner } from "./secrets/rules";

/** Longest URL web_fetch takes. */
export const MAX_FETCH_URL_CHARS = 2000;

/** Why `web_fetch` refuses `raw`, in words for the model, or null when it may be fetched. */
export function fetchUrlProblem(raw: string): string | null {
  const text = raw.trim();
  if (text.length > MAX_FETCH_URL_CHARS) return `the url is longer than ${MAX_FETCH_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "the url is not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "the url must be an http or https address";
  if (url.username !== "" || url.password !== "") return "the url carries a user name or password: not fetched (credentials never leave in a URL)";
  if (!mayTarget(url.hostname)) return `the url's host ${url.hostname} is not a public address (loopback, private, link-local and local-network addresses are never fetched)`;
  // The URL as written and decoded: a secret percent-encoded in a query is still a secret.
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: the text as written is scanned.
  }
  if (ruleScanner.scan(text).length > 0 || ruleScanner.scan(decoded).length > 0) return "the url carries a secret (a key, token or password): not fetched, and the secret is not repeated here";
  return null;
}
