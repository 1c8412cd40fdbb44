/** lib/jsonRpc: one JSON-RPC 2.0 message parsed as MCP takes it, and the version an initialize settles on. */
import { describe, expect, test } from "vitest";
import { MCP_PROTOCOL_VERSIONS, negotiateProtocolVersion, parseRpcMessage, RPC } from "../../convex/lib/jsonRpc";

describe("parseRpcMessage", () => {
  test("a request, a notification and a client's response", () => {
    expect(parseRpcMessage('{"jsonrpc":"2.0","id":7,"method":"tools/list"}')).toEqual({ kind: "request", id: 7, method: "tools/list", params: {} });
    expect(parseRpcMessage('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}')).toEqual({ kind: "request", id: "a", method: "tools/call", params: { name: "x" } });
    expect(parseRpcMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({ kind: "notification", method: "notifications/initialized", params: {} });
    expect(parseRpcMessage('{"jsonrpc":"2.0","id":3,"result":{}}')).toEqual({ kind: "response" });
  });

  test("what is refused, with the JSON-RPC code and the request's id when it has one", () => {
    const code = (raw: string) => {
      const parsed = parseRpcMessage(raw);
      return "error" in parsed ? [parsed.error.code, parsed.id] : null;
    };
    expect(code("{oops")).toEqual([RPC.PARSE_ERROR, null]);
    expect(code('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toEqual([RPC.INVALID_REQUEST, null]);
    expect(code("42")).toEqual([RPC.INVALID_REQUEST, null]);
    expect(code('{"jsonrpc":"1.0","id":1,"method":"ping"}')).toEqual([RPC.INVALID_REQUEST, 1]);
    expect(code('{"jsonrpc":"2.0","id":1}')).toEqual([RPC.INVALID_REQUEST, 1]);
    expect(code('{"jsonrpc":"2.0","id":1,"method":""}')).toEqual([RPC.INVALID_REQUEST, 1]);
    expect(code('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toEqual([RPC.INVALID_REQUEST, null]);
    expect(code('{"jsonrpc":"2.0","id":[1],"method":"ping"}')).toEqual([RPC.INVALID_REQUEST, null]);
    expect(code('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}')).toEqual([RPC.INVALID_PARAMS, 1]);
  });
});

describe("negotiateProtocolVersion", () => {
  test("the client's version when spoken here, else the newest", () => {
    for (const version of MCP_PROTOCOL_VERSIONS) expect(negotiateProtocolVersion(version)).toBe(version);
    expect(negotiateProtocolVersion("2099-01-01")).toBe(MCP_PROTOCOL_VERSIONS[0]);
    expect(negotiateProtocolVersion(undefined)).toBe(MCP_PROTOCOL_VERSIONS[0]);
  });
});
