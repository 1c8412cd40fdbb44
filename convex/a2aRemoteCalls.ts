"use node";
/**
 * The A2A client (issue 45, part 2), through `@a2a-js/sdk`: an admin adds an
 * agent by its card URL; Maestro sends a remote task `message/send`, polls
 * it with `tasks/get` and cancels it with `tasks/cancel`. Every request goes
 * through one fetch that is checked as webhook deliveries are
 * (convex/webhookDelivery.ts): the URL first, then every address its host
 * resolves to for this very connection, no redirect followed, a timeout and
 * a cap on the answer's size. MAESTRO_WEBHOOK_ALLOW_PRIVATE=1 lifts the
 * address rule for local testing. The transactional half is convex/a2aRemote.ts.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { taskStateToJSON, type AgentCard, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import { internalAction } from "./_generated/server";
import { userAction } from "./functions";
import { A2A_REMOTE_LIMITS, checkCard, checkRemoteUrl, cutText, partsText, type CheckedCard, type RemotePart, type RemoteState, type RemoteTaskView } from "./lib/a2aRemote";
import { a2aCallTimeoutFromEnv, webhookAllowPrivateFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { publicOnlyLookup, RefusedAddress } from "./publicOutbound";
import { vA2aSkill } from "./validators";

/** One call's timeout: the limit, or MAESTRO_A2A_CALL_TIMEOUT_MS (shorter, for tests of a remote agent that never answers). */
function callTimeoutMs(): number {
  return a2aCallTimeoutFromEnv(A2A_REMOTE_LIMITS.callTimeoutMs);
}

/** DNS for one connection: every address the name resolves to must be public (publicOutbound.ts). */
const publicOnly = publicOnlyLookup("A2A agents");

/** Reads a response's body up to `maxBytes`; more is a failure, not a cut (a cut JSON answer would not parse anyway). */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw new Error(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * `fetch` for the SDK, under the webhook rules: http(s) only, the URL and
 * each resolved address checked, a fresh connection each time, no redirect
 * followed (a 3xx is handed back as it is, and the SDK fails on it), at most
 * `maxBytes` of answer, and no longer than the call timeout.
 */
function guardedFetch(maxBytes: number): typeof fetch {
  const allowPrivate = webhookAllowPrivateFromEnv();
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(checkRemoteUrl(request?.url ?? String(input), allowPrivate, "The A2A agent's address"));
    const method = init?.method ?? request?.method ?? "GET";
    const headers = new Headers(init?.headers ?? request?.headers);
    const body = init?.body === undefined || init.body === null ? undefined : typeof init.body === "string" ? init.body : await new Response(init.body).text();
    const signal = init?.signal ?? undefined;
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const headerObject: Record<string, string> = {};
    headers.forEach((value, key) => (headerObject[key] = value));
    if (body !== undefined) headerObject["content-length"] = String(Buffer.byteLength(body));
    return await new Promise<Response>((resolve, reject) => {
      const req = send(url, { method, headers: headerObject, agent: false, lookup: allowPrivate ? undefined : publicOnly, timeout: callTimeoutMs(), signal }, (response) => {
        readCapped(response, maxBytes).then((buffer) => {
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(response.headers)) if (typeof value === "string") responseHeaders.set(key, value);
          const status = response.statusCode ?? 502;
          resolve(new Response(status === 204 || status === 304 ? null : new Uint8Array(buffer), { status, headers: responseHeaders }));
        }, reject);
      });
      req.on("timeout", () => req.destroy(new Error(`no answer within ${callTimeoutMs()} ms`)));
      req.on("error", reject);
      req.end(body);
    });
  };
}

const LEGACY = { legacyCompat: { enabled: true } };

/** The card at `cardUrl` (a full URL, or a site whose well-known path holds it), fetched and checked. */
async function fetchCheckedCard(cardUrl: string): Promise<{ cardUrl: string; card: CheckedCard }> {
  const allowPrivate = webhookAllowPrivateFromEnv();
  const checked = new URL(checkRemoteUrl(cardUrl, allowPrivate, "The agent card URL"));
  const resolver = new DefaultAgentCardResolver({ fetchImpl: guardedFetch(A2A_REMOTE_LIMITS.cardBytes), ...LEGACY });
  let card: AgentCard;
  try {
    card = checked.pathname === "/" || checked.pathname === "" ? await resolver.resolve(checked.origin) : await resolver.resolve(checked.toString(), "");
  } catch (failure) {
    console.warn(`agent card ${checked.toString()} could not be read: ${failure instanceof Error ? failure.message : String(failure)}`);
    throw new MaestroError("INVALID_ARGUMENT", "The agent card could not be read there (not reachable, redirected, too large, or not an agent card).");
  }
  return { cardUrl: checked.toString(), card: checkCard(card, allowPrivate) };
}

/** A client for an agent already added: its card is not fetched again, only its checked endpoint used. */
async function clientFor(endpointUrl: string, protocolVersion: string): Promise<Client> {
  const fetchImpl = guardedFetch(A2A_REMOTE_LIMITS.responseBytes);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, ...LEGACY })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, ...LEGACY }),
      clientConfig: { polling: true },
    }),
  );
  const card: AgentCard = {
    name: "remote",
    description: "",
    supportedInterfaces: [{ url: endpointUrl, protocolBinding: "JSONRPC", tenant: "", protocolVersion }],
    provider: undefined,
    version: "",
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  return await factory.createFromAgentCard(card);
}

/** A part as plain data (a file's bytes are not kept: only its name and size). */
function plainPart(part: Part): RemotePart {
  const content = part.content;
  if (content === undefined) return { kind: "text", text: "" };
  switch (content.$case) {
    case "text":
      return { kind: "text", text: content.value };
    case "data":
      return { kind: "data", data: content.value };
    case "url":
      return { kind: "url", url: content.value, filename: part.filename };
    case "raw":
      return { kind: "raw", bytes: content.value.length, filename: part.filename };
  }
}

/** The spec's state name (`input_required`) from the SDK's enum. */
function stateName(task: Task): RemoteState {
  const name = task.status === undefined ? "TASK_STATE_UNSPECIFIED" : taskStateToJSON(task.status.state);
  const plain = name.replace(/^TASK_STATE_/, "").toLowerCase();
  const known: RemoteState[] = ["submitted", "working", "input_required", "completed", "failed", "canceled", "rejected", "auth_required"];
  return (known as string[]).includes(plain) ? (plain as RemoteState) : "unknown";
}

const MAX_ARTIFACTS = 20;

/** What an answer says, as plain data cut to size (the thread's own limits are the hard ones). */
function viewOf(result: Task | Message): RemoteTaskView {
  const each = A2A_REMOTE_LIMITS.deliverableChars;
  if (!("status" in result)) {
    // A message instead of a task: the agent answered at once, and its answer is the deliverable.
    return { contextId: result.contextId || undefined, state: "completed", statusText: cutText(partsText(result.parts.map(plainPart)), each), artifacts: [] };
  }
  return {
    remoteTaskId: result.id,
    contextId: result.contextId || undefined,
    state: stateName(result),
    statusText: cutText(partsText((result.status?.message?.parts ?? []).map(plainPart)), each),
    artifacts: result.artifacts.slice(0, MAX_ARTIFACTS).map((a) => ({ name: cutText(a.name, 200), text: cutText(partsText(a.parts.map(plainPart)), each) })),
  };
}

/** Why a call failed, for the thread note: never the remote's own words. */
function failureReason(failure: unknown): string {
  if (failure instanceof RefusedAddress) return "its address is one A2A agents may not be reached at";
  if (failure instanceof MaestroError) return failure.data.message;
  const message = failure instanceof Error ? failure.message : "";
  if (/no answer within|timeout|aborted/i.test(message)) return `no answer within ${callTimeoutMs() / 1000} s`;
  if (/larger than/.test(message)) return "its answer was too large";
  return "the call failed";
}

const vCardPreview = v.object({ cardUrl: v.string(), name: v.string(), description: v.string(), skills: v.array(vA2aSkill) });

/** An agent card, fetched and checked, for the add dialog to show before the admin adds it (owners and admins). */
export const preview = userAction({
  args: { departmentId: v.id("departments"), cardUrl: v.string() },
  returns: vCardPreview,
  handler: async (ctx, { departmentId, cardUrl }) => {
    await ctx.runQuery(internal.a2aRemote.checkMayAdd, { departmentId });
    const { cardUrl: url, card } = await fetchCheckedCard(cardUrl);
    return { cardUrl: url, name: card.name, description: card.description, skills: card.skills };
  },
});

/**
 * Adds an A2A agent by its agent card URL (owners and admins): the card is
 * fetched (checked as webhooks are) and its name, description and skills
 * become the agent's. It runs outside Maestro, reached through the card's
 * JSON-RPC endpoint.
 */
export const add = userAction({
  args: { departmentId: v.id("departments"), cardUrl: v.string() },
  returns: v.object({ agentId: v.id("agents"), name: v.string(), description: v.string(), skills: v.array(vA2aSkill) }),
  handler: async (ctx, { departmentId, cardUrl }): Promise<{ agentId: Id<"agents">; name: string; description: string; skills: CheckedCard["skills"] }> => {
    await ctx.runQuery(internal.a2aRemote.checkMayAdd, { departmentId });
    const { cardUrl: url, card } = await fetchCheckedCard(cardUrl);
    const a2aRemote = { cardUrl: url, endpointUrl: card.endpointUrl, protocolVersion: card.protocolVersion, description: card.description, skills: card.skills };
    const agentId: Id<"agents"> = await ctx.runMutation(internal.a2aRemote.insertAgentFromCard, { departmentId, name: card.name, a2aRemote });
    return { agentId, name: card.name, description: card.description, skills: card.skills };
  },
});

/** `message/send`: a remote task's first message, or the answer to its question; what it answered goes onto the card. */
export const send = internalAction({
  args: { remoteId: v.id("a2aRemoteTasks") },
  returns: v.null(),
  handler: async (ctx, { remoteId }) => {
    const plan = await ctx.runQuery(internal.a2aRemote.sendPlan, { remoteId });
    if (plan === null) return null;
    let view: RemoteTaskView;
    try {
      const client = await clientFor(plan.endpointUrl, plan.protocolVersion);
      const result = await client.sendMessage(
        {
          tenant: "",
          message: {
            messageId: plan.messageId,
            // A new task gets a context of its own, named by the card's correlation id; a reply goes to its task and context.
            contextId: plan.contextId ?? plan.correlationId,
            taskId: plan.remoteTaskId ?? "",
            role: 1,
            parts: [{ content: { $case: "text", value: plan.text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
            metadata: { maestroCorrelationId: plan.correlationId },
            extensions: [],
            referenceTaskIds: [],
          },
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
          metadata: { maestroCorrelationId: plan.correlationId },
        },
        { signal: AbortSignal.timeout(callTimeoutMs()) },
      );
      view = viewOf(result);
    } catch (failure) {
      console.warn(`A2A message/send for ${remoteId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
      await ctx.runMutation(internal.a2aRemote.callFailed, { remoteId, step: "send", reason: failureReason(failure) });
      return null;
    }
    await ctx.runMutation(internal.a2aRemote.answered, { remoteId, step: "send", view });
    return null;
  },
});

/** `tasks/get`: where a followed remote task stands. */
export const poll = internalAction({
  args: { remoteId: v.id("a2aRemoteTasks") },
  returns: v.null(),
  handler: async (ctx, { remoteId }) => {
    const target = await ctx.runQuery(internal.a2aRemote.callTarget, { remoteId, forCancel: false });
    if (target === null) return null;
    let view: RemoteTaskView;
    try {
      const client = await clientFor(target.endpointUrl, target.protocolVersion);
      view = viewOf(await client.getTask({ tenant: "", id: target.remoteTaskId, historyLength: 0 }, { signal: AbortSignal.timeout(callTimeoutMs()) }));
    } catch (failure) {
      console.warn(`A2A tasks/get for ${remoteId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
      await ctx.runMutation(internal.a2aRemote.callFailed, { remoteId, step: "poll", reason: failureReason(failure) });
      return null;
    }
    await ctx.runMutation(internal.a2aRemote.answered, { remoteId, step: "poll", view });
    return null;
  },
});

/** `tasks/cancel`, once, best effort (Stop, a deadline, a remote agent given up on): the card already says so. */
export const cancel = internalAction({
  args: { remoteId: v.id("a2aRemoteTasks") },
  returns: v.null(),
  handler: async (ctx, { remoteId }) => {
    const target = await ctx.runQuery(internal.a2aRemote.callTarget, { remoteId, forCancel: true });
    if (target === null) return null;
    try {
      const client = await clientFor(target.endpointUrl, target.protocolVersion);
      await client.cancelTask({ tenant: "", id: target.remoteTaskId, metadata: { maestroCorrelationId: target.correlationId } }, { signal: AbortSignal.timeout(callTimeoutMs()) });
    } catch (failure) {
      console.warn(`A2A tasks/cancel for ${remoteId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
    return null;
  },
});
