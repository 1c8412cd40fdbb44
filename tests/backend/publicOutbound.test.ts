/**
 * The one outbound path for addresses people or agents give Maestro
 * (convex/publicOutbound.ts; webhooks, A2A pushes, A2A agents): a name that
 * resolves to the machine itself reaches nothing unless private addresses
 * are allowed, and no redirect is followed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { postOnce, publicOnlyLookup, RefusedAddress } from "../../convex/publicOutbound";

let server: Server;
let port = 0;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push(`${request.method} ${request.url} ${body}`);
      if (request.url === "/moved") response.writeHead(302, { Location: "http://127.0.0.1:1/elsewhere" }).end();
      else response.writeHead(202, { "Retry-After": "7" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("public outbound requests", () => {
  test("a name resolving to loopback is refused at the connection, naming who may not reach it", async () => {
    const lookup = publicOnlyLookup("webhooks");
    const error = await new Promise<Error | null>((resolve) => lookup("localhost", { family: 0 }, (failure) => resolve(failure)));
    expect(error).toBeInstanceOf(RefusedAddress);
    expect(error?.message).toBe("localhost resolves to an address webhooks may not reach");
    await expect(postOnce(new URL(`http://localhost:${port}/hook`), {}, "{}", { allowPrivate: false, timeoutMs: 2_000, what: "A2A agents" })).rejects.toThrow(
      /localhost resolves to an address A2A agents may not reach/,
    );
    expect(received).toEqual([]);
  });

  test("allowed private addresses get one POST, its status and Retry-After; a redirect is answered, not followed", async () => {
    const answer = await postOnce(new URL(`http://localhost:${port}/hook`), { "Content-Type": "application/json" }, '{"a":"é"}', {
      allowPrivate: true,
      timeoutMs: 2_000,
      what: "webhooks",
    });
    expect(answer).toEqual({ status: 202, retryAfter: "7" });
    expect((await postOnce(new URL(`http://localhost:${port}/moved`), {}, "{}", { allowPrivate: true, timeoutMs: 2_000, what: "webhooks" })).status).toBe(302);
    expect(received).toEqual(['POST /hook {"a":"é"}', "POST /moved {}"]);
  });
});
