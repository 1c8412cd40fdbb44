import { describe, expect, test } from "vitest";
import { BufferedRequest, BufferedResponse, httpActionRequest } from "../../tools/local-backend/bufferedBodies";

const URL_ = "http://127.0.0.1:3211/mcp/chat.post";
const JSON_BODY = '{"text":"héllo ✓","n":1}';
const bytes = (text: string) => new TextEncoder().encode(text);
const headers = (): Array<[string, string]> => [
  ["content-type", "application/json"],
  ["authorization", "Bearer mk_example"],
];

/** Each way of reading a body, with what it gives, made comparable. */
const READS = {
  text: async (b: Body) => await b.text(),
  json: async (b: Body) => JSON.stringify(await b.json()),
  arrayBuffer: async (b: Body) => [...new Uint8Array(await b.arrayBuffer())],
  bytes: async (b: Body) => [...(await b.bytes())],
  blob: async (b: Body) => {
    const blob = await b.blob();
    return [blob.type, await blob.text()];
  },
  stream: async (b: Body) => await new Response(b.body).text(),
};

/** What reading `body` twice with `first` then `second` gives: values, errors (by class) and bodyUsed along the way. */
async function readTwice(body: Body, first: keyof typeof READS, second: keyof typeof READS) {
  const outcome = async (read: () => Promise<unknown>) => {
    try {
      return { value: await read() };
    } catch (error) {
      return { error: (error as Error).constructor.name };
    }
  };
  const before = body.bodyUsed;
  const a = await outcome(() => READS[first](body));
  const between = body.bodyUsed;
  const b = await outcome(() => READS[second](body));
  return { before, a, between, b, after: body.bodyUsed };
}

describe("an HTTP action's buffered Request", () => {
  test("every pair of reads gives what Node's own Request gives: the body once, then a TypeError", async () => {
    const names = Object.keys(READS) as Array<keyof typeof READS>;
    for (const first of names) {
      for (const second of names) {
        const stock = new Request(URL_, { method: "POST", headers: headers(), body: bytes(JSON_BODY) });
        const mine = new BufferedRequest(URL_, { method: "POST", headers: headers(), body: bytes(JSON_BODY) });
        expect(await readTwice(mine, first, second), `${first} then ${second}`).toEqual(await readTwice(stock, first, second));
      }
    }
  });

  test("it is a Request with the method, address and headers it was given", () => {
    const request = httpActionRequest(URL_, { method: "POST", headers: headers(), body: bytes(JSON_BODY) });
    expect(request).toBeInstanceOf(Request);
    expect(request).toBeInstanceOf(BufferedRequest);
    expect(request.method).toBe("POST");
    expect(request.url).toBe(URL_);
    expect(request.headers.get("authorization")).toBe("Bearer mk_example");
    expect(request.bodyUsed).toBe(false);
  });

  test("no body reads as Node's bodiless Request does", async () => {
    const mine = httpActionRequest(URL_, { method: "GET", headers: headers() });
    const stock = new Request(URL_, { method: "GET", headers: headers() });
    expect(mine.body).toBe(stock.body);
    expect(await mine.text()).toBe(await stock.text());
  });

  test("a GET or HEAD with a body is refused as Node refuses it", () => {
    for (const method of ["GET", "HEAD"]) {
      expect(() => new Request(URL_, { method, body: bytes("x") })).toThrow(TypeError);
      expect(() => new BufferedRequest(URL_, { method, headers: [], body: bytes("x") })).toThrow(TypeError);
    }
  });

  test("a clone reads its own copy; a read body cannot be cloned", async () => {
    const request = new BufferedRequest(URL_, { method: "POST", headers: headers(), body: bytes(JSON_BODY) });
    const copy = request.clone();
    expect(await request.text()).toBe(JSON_BODY);
    expect(await copy.text()).toBe(JSON_BODY);
    expect(() => request.clone()).toThrow(TypeError);
  });

  test("a form body goes through Node's parser", async () => {
    const form = new BufferedRequest(URL_, { method: "POST", headers: [["content-type", "application/x-www-form-urlencoded"]], body: bytes("a=1&b=two") });
    const data = await form.formData();
    expect([...data.entries()]).toEqual([
      ["a", "1"],
      ["b", "two"],
    ]);
  });

  test("what is not bytes with a header list is Node's own Request", () => {
    const request = httpActionRequest(URL_, { method: "POST", headers: { "content-type": "text/plain" }, body: "text" });
    expect(request).not.toBeInstanceOf(BufferedRequest);
    expect(request).toBeInstanceOf(Request);
  });
});

describe("a function's buffered Response", () => {
  const inits: Array<[string, ResponseInit | undefined]> = [
    ["no init", undefined],
    ["a JSON answer", { status: 201, statusText: "Created", headers: { "Content-Type": "application/json", "X-Extra": "1" } }],
  ];

  test("every pair of reads, its headers and status are Node's own, for a text and a bytes body", async () => {
    const names = Object.keys(READS) as Array<keyof typeof READS>;
    for (const [label, init] of inits) {
      for (const body of [JSON_BODY, bytes(JSON_BODY)]) {
        const mine = new BufferedResponse(body, init);
        const stock = new Response(body, init);
        expect([...mine.headers], label).toEqual([...stock.headers]);
        expect([mine.status, mine.statusText, mine.ok, mine.type], label).toEqual([stock.status, stock.statusText, stock.ok, stock.type]);
        for (const first of names) {
          for (const second of names) {
            const a = new BufferedResponse(body, init);
            const b = new Response(body, init);
            expect(await readTwice(a, first, second), `${label}: ${first} then ${second}`).toEqual(await readTwice(b, first, second));
          }
        }
      }
    }
  });

  test("its untouched bytes are the body's, and none once it is read or streamed", async () => {
    const response = new BufferedResponse(JSON_BODY);
    expect(new TextDecoder().decode(response.untouchedBytes()!)).toBe(JSON_BODY);
    await response.text();
    expect(response.untouchedBytes()).toBeNull();
    const streamed = new BufferedResponse(JSON_BODY);
    expect(await new Response(streamed.body).text()).toBe(JSON_BODY);
    expect(streamed.untouchedBytes()).toBeNull();
  });

  test("a status that may not have a body refuses one as Node does; a stream or Blob is Node's own body", async () => {
    expect(() => new Response("x", { status: 204 })).toThrow(TypeError);
    expect(() => new BufferedResponse("x", { status: 204 })).toThrow(TypeError);
    expect((new BufferedResponse(null, { status: 204 })).status).toBe(204);
    const blob = new BufferedResponse(new Blob(["from a blob"], { type: "text/csv" }));
    expect(blob.untouchedBytes()).toBeNull();
    expect(blob.headers.get("content-type")).toBe("text/csv");
    expect(await blob.text()).toBe("from a blob");
  });

  test("a clone is independent, a read one cannot be cloned, and Response.json still makes a Response", async () => {
    const response = new BufferedResponse(JSON_BODY, { status: 202, headers: { "X-A": "b" } });
    const copy = response.clone();
    expect(await response.json()).toEqual(JSON.parse(JSON_BODY));
    expect([copy.status, copy.headers.get("x-a"), await copy.text()]).toEqual([202, "b", JSON_BODY]);
    expect(() => response.clone()).toThrow(TypeError);
    const made = BufferedResponse.json({ ok: true });
    expect(made).toBeInstanceOf(Response);
    expect(await made.json()).toEqual({ ok: true });
  });
});

describe("with BufferedResponse installed as the global Response, as the backend does", () => {
  test("its stream, clone, blob and form come from Node's own classes, not from another buffered one (that recursed without end)", async () => {
    const nodeResponse = globalThis.Response;
    globalThis.Response = BufferedResponse;
    try {
      const streamed = new Response(JSON_BODY, { headers: { "Content-Type": "application/json" } });
      expect(streamed).toBeInstanceOf(BufferedResponse);
      const reader = streamed.body!.getReader();
      const chunks: number[] = [];
      for (let step = await reader.read(); !step.done; step = await reader.read()) chunks.push(...step.value);
      expect(new TextDecoder().decode(new Uint8Array(chunks))).toBe(JSON_BODY);
      expect(streamed.bodyUsed).toBe(true);

      const cloned = new Response(JSON_BODY);
      void cloned.body;
      expect(await cloned.clone().text()).toBe(JSON_BODY);
      expect(await new Response("x=1", { headers: { "Content-Type": "application/x-www-form-urlencoded" } }).formData()).toBeInstanceOf(FormData);
      expect((await new Response(JSON_BODY).blob()).size).toBe(bytes(JSON_BODY).length);
      const request = new BufferedRequest(URL_, { method: "POST", headers: headers(), body: bytes(JSON_BODY) });
      expect(await new Response(request.body).text()).toBe(JSON_BODY);
    } finally {
      globalThis.Response = nodeResponse;
    }
  });
});
