/**
 * A department's outbound webhook (messaging spec, events): admins set a
 * URL and get a signing secret once; every event is POSTed as JSON with
 * `X-Maestro-Signature: sha256=<HMAC of the body>`, retried with
 * exponential backoff (honouring Retry-After) up to a bound, and each
 * delivery's outcome is kept for the admin to see (a generic reason, not
 * the receiver's answer). The attempt itself is convex/webhookDelivery.ts.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { internalMutation, internalQuery } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { memberActor } from "./lib/actors";
import { webhookAllowPrivateFromEnv } from "./lib/config";
import { MaestroError } from "./lib/errors";
import { checkWebhookUrl, newWebhookSecret } from "./lib/webhooks";
import { emitEvent } from "./records/events";
import { limitOrThrow } from "./records/rateLimits";
import { pendingDelivery, recentDeliveriesWithType, recordDeliveryAttempt, removeWebhook, saveWebhook, webhookOf } from "./records/webhooks";
import { vActivityData, vActor, vEventType } from "./validators";

const vDelivery = v.object({
  _id: v.id("webhookDeliveries"),
  _creationTime: v.number(),
  status: v.union(v.literal("pending"), v.literal("delivered"), v.literal("failed")),
  attempts: v.number(),
  /** The event it carries; absent when the event is gone (retention). */
  eventType: v.optional(vEventType),
  /** While a failed delivery waits for its next try. */
  nextAttemptAt: v.optional(v.number()),
  /** A generic reason (lib/webhooks DELIVERY_FAILED): never the receiver's status or error. */
  lastError: v.optional(v.string()),
});

export const get = departmentQuery({
  role: "admin",
  args: {},
  returns: v.union(v.null(), v.object({ url: v.string(), secretHint: v.string(), deliveries: v.array(vDelivery) })),
  handler: async (ctx, { departmentId }) => {
    const webhook = await webhookOf(ctx, departmentId);
    if (webhook === null) return null;
    const deliveries = await recentDeliveriesWithType(ctx, webhook._id);
    return {
      url: webhook.url,
      secretHint: `${webhook.secret.slice(0, 10)}…`,
      deliveries: deliveries.map(({ delivery: { _id, _creationTime, status, attempts, lastError, nextAttemptAt }, eventType }) => ({
        _id,
        _creationTime,
        status,
        attempts,
        eventType,
        nextAttemptAt,
        lastError,
      })),
    };
  },
});

/**
 * Sends a `webhooks.test` event to the webhook, through the same delivery
 * (signature, address checks, retries) as every event; it shows among the
 * recent deliveries and in the event log.
 */
export const sendTest = departmentMutation({
  role: "admin",
  args: {},
  returns: v.null(),
  handler: async (ctx, { departmentId }) => {
    if ((await webhookOf(ctx, departmentId)) === null) throw new MaestroError("NOT_FOUND", "Set a webhook URL first.");
    await limitOrThrow(ctx, "webhookTest", departmentId);
    await emitEvent(ctx, { departmentId, type: "webhooks.test", actor: memberActor(ctx.member), data: { test: true } });
    return null;
  },
});

/** Sets (or replaces) the webhook; answers the new signing secret, which is never shown again. */
export const set = departmentMutation({
  role: "admin",
  args: { url: v.string() },
  returns: v.object({ secret: v.string() }),
  handler: async (ctx, { departmentId, url }) => {
    const clean = checkWebhookUrl(url, webhookAllowPrivateFromEnv());
    const secret = newWebhookSecret();
    await saveWebhook(ctx, departmentId, clean, secret, ctx.viewer.user._id);
    return { secret };
  },
});

export const remove = departmentMutation({
  role: "admin",
  args: {},
  returns: v.null(),
  handler: async (ctx, { departmentId }) => {
    await removeWebhook(ctx, departmentId);
    return null;
  },
});

/** What one delivery sends: the webhook's address and key, and the event as the receiver sees it. */
export const deliveryPayload = internalQuery({
  args: { deliveryId: v.id("webhookDeliveries") },
  returns: v.union(
    v.null(),
    v.object({
      url: v.string(),
      secret: v.string(),
      attempts: v.number(),
      event: v.object({
        id: v.id("events"),
        type: vEventType,
        at: v.number(),
        departmentId: v.id("departments"),
        actor: vActor,
        channelId: v.optional(v.id("channels")),
        messageId: v.optional(v.id("channelMessages")),
        correlationId: v.optional(v.string()),
        data: vActivityData,
      }),
    }),
  ),
  handler: async (ctx, { deliveryId }) => {
    const pending = await pendingDelivery(ctx, deliveryId);
    if (pending === null) return null;
    const { delivery, webhook, event } = pending;
    return {
      url: webhook.url,
      secret: webhook.secret,
      attempts: delivery.attempts,
      event: {
        id: event._id,
        type: event.type,
        at: event._creationTime,
        departmentId: event.departmentId,
        actor: event.actor,
        channelId: event.channelId,
        messageId: event.messageId,
        correlationId: event.correlationId,
        data: event.data,
      },
    };
  },
});

export const recordAttempt = internalMutation({
  args: {
    deliveryId: v.id("webhookDeliveries"),
    ok: v.boolean(),
    status: v.optional(v.number()),
    error: v.optional(v.string()),
    retryInMs: v.optional(v.number()),
  },
  returns: v.null(),
  handler: async (ctx, { deliveryId, ok, status, error, retryInMs }) => {
    if (await recordDeliveryAttempt(ctx, deliveryId, { ok, status, error, retryInMs })) await ctx.scheduler.runAfter(retryInMs!, internal.webhookDelivery.deliver, { deliveryId });
    return null;
  },
});
