import { describe, expect, test } from "vitest";
import { responseBytes, untouchedBodyBytes } from "../../tools/local-backend/responseBody";

const text = (bytes: Buffer) => bytes.toString("utf8");

describe("an HTTP action's response bytes", () => {
  test("an untouched text or bytes body is taken from its source, the same bytes a read gives", async () => {
    const body = '{"id":7,"success":true,"note":"héllo ✓"}';
    expect(text(untouchedBodyBytes(new Response(body))!)).toBe(body);
    expect(text(await responseBytes(new Response(body)))).toBe(text(Buffer.from(await new Response(body).arrayBuffer())));
    const bytes = new Uint8Array([1, 2, 3, 250]);
    const fromBytes = untouchedBodyBytes(new Response(bytes))!;
    expect([...fromBytes]).toEqual([1, 2, 3, 250]);
    // A copy: changing the array afterwards changes nothing sent.
    bytes[0] = 9;
    expect(fromBytes[0]).toBe(1);
  });

  test("a body that is a stream, already read or being read is read as before", async () => {
    const streamed = new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("streamed")), c.close()) }));
    expect(untouchedBodyBytes(streamed)).toBeNull();
    expect(text(await responseBytes(streamed))).toBe("streamed");

    const read = new Response("once");
    await read.text();
    expect(untouchedBodyBytes(read)).toBeNull();
    await expect(responseBytes(read)).rejects.toThrow();

    const locked = new Response("locked");
    const reader = locked.body!.getReader();
    expect(untouchedBodyBytes(locked)).toBeNull();
    reader.releaseLock();

    const blob = new Response(new Blob(["from a blob"]));
    expect(untouchedBodyBytes(blob)).toBeNull();
    expect(text(await responseBytes(blob))).toBe("from a blob");
  });

  test("no body is no bytes", async () => {
    expect((await responseBytes(new Response(null, { status: 204 }))).length).toBe(0);
  });
});
