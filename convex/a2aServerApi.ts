/**
 * The squad as an A2A server over HTTP (issue 45), with `@a2a-js/sdk`'s own
 * JSON-RPC transport handlers (A2A v1.0, and v0.3 for clients that send no
 * `A2A-Version: 1.0`), behind one request handler whose every answer is read
 * from the card (convex/a2aServer.ts, reactions/a2aServer):
 *
 *   GET  /a2a/{slug}/.well-known/agent-card.json   the department's agent card (404 unless publishing)
 *   POST /a2a/{slug}/                              JSON-RPC: SendMessage / message/send, GetTask / tasks/get,
 *                                                  CancelTask / tasks/cancel, the push notification
 *                                                  configs (one target per task)  [a2a:tasks]
 *
 * The key is checked before any JSON-RPC is read, as everywhere (401 no or
 * unknown key, 403 no scope or another department's key, 404 not
 * publishing, 413 a body over MAX_A2A_BODY_BYTES, 429 rate limited);
 * everything after is a JSON-RPC answer (malformed requests, unknown
 * methods, unknown tasks, oversized parts, final tasks). `SendMessage`
 * returns at once with the task as it stands (the squad's work takes
 * minutes, longer than an HTTP action may hold a request): follow it with
 * `GetTask`, or have its updates pushed (convex/a2aServerPush.ts). Streaming
 * is not offered (the card says so): a Convex HTTP action cannot hold a
 * stream for the length of the work.
 */
import { AgentCard, type TaskPushNotificationConfig } from "@a2a-js/sdk";
import { A2AError, ExtendedAgentCardNotConfiguredError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type A2ARequestHandler } from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import type { ActionCtx } from "./_generated/server";
import { a2aServerPath, A2A_SERVER_SCOPE } from "./a2aServer";
import { MAX_A2A_ATTACHMENTS, MAX_A2A_BODY_BYTES, MAX_A2A_HISTORY, MAX_A2A_PART_BYTES } from "./lib/a2aServer";
import { errorData, MaestroError } from "./lib/errors";
import { agentKeyHash, BEARER_CHALLENGE, json, RequestRefusal, type HttpRoute } from "./lib/httpJson";
import { protocolTask } from "./lib/a2aServerWire";

const VERSION_HEADER = "A2A-Version";
const LEGACY_VERSION = "0.3";
/** Messages of the thread a task carries when the client names no historyLength. */
const DEFAULT_HISTORY = 20;

/** The department's slug from `/a2a/{slug}/…`, and what follows it. */
function a2aPath(pathname: string): { slug: string; rest: string } {
  const match = /^\/a2a\/([^/]+)\/?(.*)$/.exec(pathname);
  if (match === null) throw new RequestRefusal("NOT_FOUND", "No such endpoint: the A2A server of a department is at /a2a/{slug}/.");
  try {
    return { slug: decodeURIComponent(match[1]), rest: match[2] };
  } catch {
    throw new RequestRefusal("INVALID_ARGUMENT", "The path is not valid percent-encoding.");
  }
}

/** A task's push target as the protocol's config. */
function pushConfig(taskId: string, push: { id: string; url: string; token: string }): TaskPushNotificationConfig {
  return { tenant: "", id: push.id, taskId, url: push.url, token: push.token, authentication: undefined };
}

/** The agent card of the department at `slug`, or null when it publishes none. */
async function agentCard(ctx: ActionCtx, origin: string, slug: string): Promise<AgentCard | null> {
  const facts = await ctx.runQuery(internal.a2aServer.cardFacts, { slug });
  if (facts === null) return null;
  const url = `${origin}${a2aServerPath(facts.slug)}`;
  const lead = facts.lead?.name ?? "The squad lead";
  return {
    name: `${lead} (${facts.department})`,
    description: `${lead}, squad lead of ${facts.department} in Maestro, takes the work, splits it among the squad and hands back the deliverables.${facts.description === "" ? "" : ` ${facts.description}`}`,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: LEGACY_VERSION },
    ],
    provider: { organization: "Maestro", url: origin },
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      maestroAgentKey: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { scheme: "Bearer", bearerFormat: "mk_…", description: `An API key of one of this department's agents holding the "${A2A_SERVER_SCOPE}" scope (the roster → the agent → API keys).` },
        },
      },
    },
    securityRequirements: [{ schemes: { maestroAgentKey: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json", "application/octet-stream"],
    defaultOutputModes: ["text/plain"],
    skills: facts.roster.map((a) => ({
      id: a.id,
      name: a.name,
      description: `${a.name}, ${a.role} (${a.kind}): ${lead} delegates such work to them.`,
      tags: [a.kind, a.role],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

/**
 * The protocol's request handler for one HTTP request: each method one call
 * of convex/a2aServer.ts with the caller's key. A refusal that is the
 * caller's (a key, a rate limit) is kept in `httpRefusal` and answered as
 * HTTP after the transport handler returns; every other MaestroError
 * becomes the A2A error that says it.
 */
function requestHandler(ctx: ActionCtx, call: { keyHash: string; slug: string; origin: string }, refused: { error: unknown }): A2ARequestHandler {
  const a2aError = (error: unknown, notFinal: "cancel" | "send"): unknown => {
    const data = errorData(error);
    if (data === null) return error instanceof A2AError ? error : new A2AError("Internal error.");
    switch (data.code) {
      case "NOT_FOUND":
        return new TaskNotFoundError(data.message);
      case "INVALID_ARGUMENT":
      case "TOO_LARGE":
        return new RequestMalformedError(data.message);
      case "CONFLICT":
        return notFinal === "cancel" ? new TaskNotCancelableError(data.message) : new UnsupportedOperationError(data.message);
      default:
        refused.error = error;
        return new A2AError(data.message);
    }
  };
  const guarded = async <T>(kind: "cancel" | "send", work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw a2aError(error, kind);
    }
  };
  const { keyHash, slug } = call;
  return {
    async getAgentCard() {
      const card = await agentCard(ctx, call.origin, slug);
      if (card === null) throw new TaskNotFoundError("No A2A agent is published here.");
      return card;
    },
    async getAuthenticatedExtendedAgentCard() {
      throw new ExtendedAgentCardNotConfiguredError();
    },
    async sendMessage(params) {
      return await guarded("send", async () => {
        const message = params.message;
        if (message === undefined) throw new MaestroError("INVALID_ARGUMENT", "Send a message.");
        const historyLength = Math.min(params.configuration?.historyLength ?? DEFAULT_HISTORY, MAX_A2A_HISTORY);
        const push = params.configuration?.taskPushNotificationConfig;
        const texts: string[] = [];
        const blobs: Array<{ blob: Blob; name: string }> = [];
        for (const [index, p] of message.parts.entries()) {
          const content = p.content;
          if (content === undefined) continue;
          if (content.$case === "text") texts.push(content.value);
          else if (content.$case === "url") texts.push(`Linked file${p.filename === "" ? "" : ` ${p.filename}`}: ${content.value}`);
          else {
            const bytes = content.$case === "raw" ? new Uint8Array(content.value) : new TextEncoder().encode(JSON.stringify(content.value ?? null));
            if (bytes.byteLength > MAX_A2A_PART_BYTES) throw new MaestroError("TOO_LARGE", `Part ${index + 1} is ${bytes.byteLength} bytes; a file or data part is at most ${MAX_A2A_PART_BYTES} bytes.`);
            const type = content.$case === "raw" ? p.mediaType || "application/octet-stream" : "application/json";
            const name = (p.filename || (content.$case === "raw" ? `file-${index + 1}` : `data-${index + 1}.json`)).replace(/[\\/\u0000-\u001f]/g, "_").slice(0, 120);
            blobs.push({ blob: new Blob([bytes], { type }), name });
          }
        }
        if (blobs.length > MAX_A2A_ATTACHMENTS) throw new MaestroError("TOO_LARGE", `A message brings at most ${MAX_A2A_ATTACHMENTS} file and data parts.`);
        // Stored before the card is made (an action writes storage, a mutation the rows); a refused message deletes them again.
        const stored: Array<{ storageId: Id<"_storage">; name: string }> = [];
        for (const { blob, name } of blobs) stored.push({ storageId: await ctx.storage.store(blob), name });
        try {
          const view = await ctx.runMutation(internal.a2aServer.sendForKey, {
            keyHash,
            slug,
            taskId: message.taskId === "" ? null : message.taskId,
            contextId: message.contextId === "" ? null : message.contextId.slice(0, 200),
            text: texts.join("\n\n"),
            parts: stored,
            historyLength,
            ...(push === undefined || push.url === "" ? {} : { push: { id: push.id, url: push.url, token: push.token } }),
          });
          return protocolTask(view);
        } catch (error) {
          for (const { storageId } of stored) await ctx.storage.delete(storageId);
          throw error;
        }
      });
    },
    async *sendMessageStream() {
      throw new UnsupportedOperationError("Streaming is not offered: send the message with SendMessage and follow the task with GetTask.");
    },
    async getTask(params) {
      return await guarded("send", async () =>
        protocolTask(await ctx.runQuery(internal.a2aServer.getForKey, { keyHash, slug, taskId: params.id, historyLength: Math.max(0, Math.min(params.historyLength ?? DEFAULT_HISTORY, MAX_A2A_HISTORY)) })),
      );
    },
    async cancelTask(params) {
      return await guarded("cancel", async () => protocolTask(await ctx.runMutation(internal.a2aServer.cancelForKey, { keyHash, slug, taskId: params.id })));
    },
    async createTaskPushNotificationConfig(params) {
      return await guarded("send", async () => {
        const push = await ctx.runMutation(internal.a2aServer.setPushForKey, { keyHash, slug, taskId: params.taskId, push: { id: params.id, url: params.url, token: params.token } });
        return pushConfig(params.taskId, push);
      });
    },
    async getTaskPushNotificationConfig(params) {
      return await guarded("send", async () => {
        const push = await ctx.runQuery(internal.a2aServer.pushForKey, { keyHash, slug, taskId: params.taskId });
        if (push === null || (params.id !== "" && params.id !== push.id)) throw new MaestroError("NOT_FOUND", "The task has no such push notification config.");
        return pushConfig(params.taskId, push);
      });
    },
    async listTaskPushNotificationConfigs(params) {
      return await guarded("send", async () => {
        const push = await ctx.runQuery(internal.a2aServer.pushForKey, { keyHash, slug, taskId: params.taskId });
        return { configs: push === null ? [] : [pushConfig(params.taskId, push)], nextPageToken: "" };
      });
    },
    async deleteTaskPushNotificationConfig(params) {
      await guarded("send", async () => await ctx.runMutation(internal.a2aServer.deletePushForKey, { keyHash, slug, taskId: params.taskId }));
    },
    async *resubscribe() {
      throw new UnsupportedOperationError("Streaming is not offered: follow the task with GetTask.");
    },
    async listTasks() {
      throw new UnsupportedOperationError("ListTasks is not offered: follow each task by its id with GetTask.");
    },
  };
}

/** The request's body, refused over MAX_A2A_BODY_BYTES (413) before it is parsed. */
async function boundedBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_A2A_BODY_BYTES) throw new RequestRefusal("TOO_LARGE", `The body is over ${MAX_A2A_BODY_BYTES} bytes.`);
  const raw = await request.text();
  if (new TextEncoder().encode(raw).length > MAX_A2A_BODY_BYTES) throw new RequestRefusal("TOO_LARGE", `The body is over ${MAX_A2A_BODY_BYTES} bytes.`);
  return raw;
}

/** The JSON-RPC id of a request the transport handler already read as valid. */
function requestId(body: Record<string, unknown>): string | number | null {
  const id: unknown = body.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

export const A2A_SERVER_ROUTES: HttpRoute[] = [
  {
    pathPrefix: "/a2a/",
    method: "GET",
    challenge: null,
    handler: async (ctx, request) => {
      const url = new URL(request.url);
      const { slug, rest } = a2aPath(url.pathname);
      if (rest !== ".well-known/agent-card.json") throw new RequestRefusal("NOT_FOUND", `No such endpoint: the agent card is at ${a2aServerPath(slug)}.well-known/agent-card.json.`);
      const card = await agentCard(ctx, url.origin, slug);
      if (card === null) throw new RequestRefusal("NOT_FOUND", "No A2A agent is published here.");
      return json(200, AgentCard.toJSON(card));
    },
  },
  {
    pathPrefix: "/a2a/",
    method: "POST",
    challenge: BEARER_CHALLENGE,
    handler: async (ctx, request) => {
      const url = new URL(request.url);
      const { slug, rest } = a2aPath(url.pathname);
      if (rest !== "") throw new RequestRefusal("NOT_FOUND", `No such endpoint: JSON-RPC is posted to ${a2aServerPath(slug)}.`);
      const keyHash = agentKeyHash(request);
      await ctx.runQuery(internal.a2aServer.authorizeClient, { keyHash, slug });
      const body = await boundedBody(request);
      const version = request.headers.get(VERSION_HEADER) ?? undefined;
      const legacy = (version ?? LEGACY_VERSION) === LEGACY_VERSION;
      const refused: { error: unknown } = { error: null };
      const handler = requestHandler(ctx, { keyHash, slug, origin: url.origin }, refused);
      const context = new ServerCallContext({ requestedVersion: version ?? LEGACY_VERSION });
      try {
        validateVersion(context.requestedVersion, await handler.getAgentCard(), "JSONRPC");
      } catch (error) {
        return json(200, { jsonrpc: "2.0", id: null, error: legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) : JsonRpcTransportHandler.mapToJSONRPCError(error) });
      }
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // JSON-RPC 2.0's parse error, which the transport handlers would report as invalid params.
        return json(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not JSON." } });
      }
      const answer = legacy ? await new LegacyJsonRpcTransportHandler(handler).handle(parsed, context) : await new JsonRpcTransportHandler(handler).handle(parsed, context);
      if (refused.error !== null) throw refused.error;
      if (Symbol.asyncIterator in answer) {
        // A stream is refused by its first step (not offered): answer that error as JSON-RPC.
        const first = await (answer as AsyncGenerator<unknown>).next().then(
          () => null,
          (error: unknown) => error,
        );
        return json(200, { jsonrpc: "2.0", id: requestId(parsed), error: legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(first) : JsonRpcTransportHandler.mapToJSONRPCError(first) });
      }
      return json(200, answer);
    },
  },
];
