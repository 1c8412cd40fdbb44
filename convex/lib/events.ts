/** The department's event types (the messaging spec's names); the app's event log filters by them, so they live with the pure helpers. */
export const EVENT_TYPES = [
  ...["messaging.created", "messaging.posted", "messaging.read", "messaging.thread_created"],
  ...["channels.created", "channels.updated", "channels.archived"],
  // Agent-to-agent envelopes (reactions/a2a), linked by correlation id.
  ...["a2a.delegate", "a2a.request_tool", "a2a.status_update"],
  // An admin's test of the department's webhook (webhooks.sendTest): delivered like any event.
  "webhooks.test",
] as const;
