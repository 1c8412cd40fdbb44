/**
 * The bytes of an HTTP action's Response, for the site server to send.
 *
 * An action answers with `new Response(text)` almost always (convex/lib/httpJson's
 * `json`). Node 20's Response keeps that text as its body's source beside the
 * byte stream it must also make, and `arrayBuffer()` reads the stream back a
 * chunk at a time: with 100 agents posting that read was ~3% of a chat post's
 * CPU (streams are slow on Node 20). When the body is still untouched (not
 * read, not locked, its source a string or bytes), its bytes are the source's,
 * so they are taken from there; any other body (a stream, a Blob, one already
 * read or being read) is read as before. Undici's internal state is looked up
 * by its symbol's name and every step checked, so a Node whose Response is
 * shaped otherwise just takes the ordinary path. A BufferedResponse (what a
 * function's `new Response` makes on this backend, bufferedBodies.ts) hands
 * over its bytes without any of that.
 */

import { BufferedResponse } from "./bufferedBodies.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- undici's internal state is untyped */

function stateOf(response: Response): any {
  for (const symbol of Object.getOwnPropertySymbols(response)) {
    if (symbol.description === "state") return (response as any)[symbol];
  }
  return undefined;
}

/** The body's bytes when they can be taken from its source without reading the stream, else null. */
export function untouchedBodyBytes(response: Response): Buffer | null {
  if (response instanceof BufferedResponse) {
    const bytes = response.untouchedBytes();
    // A copy, as reading the stream gives.
    if (bytes !== null) return Buffer.from(bytes);
  }
  if (response.bodyUsed) return null;
  const body = stateOf(response)?.body;
  if (body === undefined || body === null) return null;
  const stream = body.stream;
  if (!(stream instanceof ReadableStream) || stream.locked) return null;
  const source: unknown = body.source;
  if (typeof source === "string") return Buffer.from(source, "utf8");
  // A copy, as reading the stream gives.
  if (source instanceof Uint8Array) return Buffer.from(source);
  return null;
}

/** The Response's body bytes (empty when it has none). */
export async function responseBytes(response: Response): Promise<Buffer> {
  return untouchedBodyBytes(response) ?? Buffer.from(await response.arrayBuffer());
}
