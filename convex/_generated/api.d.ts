/* eslint-disable */
/**
 * Generated `api` utility.
 *
 * THIS CODE IS AUTOMATICALLY GENERATED.
 *
 * To regenerate, run `npx convex dev`.
 * @module
 */

import type {
  ApiFromModules,
  FilterApi,
  FunctionReference,
} from "convex/server";
import type * as activities from "../activities.js";
import type * as agentApiKeys from "../agentApiKeys.js";
import type * as agents from "../agents.js";
import type * as approvals from "../approvals.js";
import type * as auth from "../auth.js";
import type * as brain_config from "../brain/config.js";
import type * as brain_context from "../brain/context.js";
import type * as brain_dispatch from "../brain/dispatch.js";
import type * as brain_model from "../brain/model.js";
import type * as brain_prompt from "../brain/prompt.js";
import type * as brain_run from "../brain/run.js";
import type * as brain_toolCalls from "../brain/toolCalls.js";
import type * as channelFiles from "../channelFiles.js";
import type * as channelMessages from "../channelMessages.js";
import type * as channels from "../channels.js";
import type * as chat from "../chat.js";
import type * as crons from "../crons.js";
import type * as departments from "../departments.js";
import type * as events from "../events.js";
import type * as functions from "../functions.js";
import type * as http from "../http.js";
import type * as inbox from "../inbox.js";
import type * as invites from "../invites.js";
import type * as lib_accounts from "../lib/accounts.js";
import type * as lib_activity from "../lib/activity.js";
import type * as lib_actors from "../lib/actors.js";
import type * as lib_agentNames from "../lib/agentNames.js";
import type * as lib_auth from "../lib/auth.js";
import type * as lib_boardFilters from "../lib/boardFilters.js";
import type * as lib_channels from "../lib/channels.js";
import type * as lib_config from "../lib/config.js";
import type * as lib_contextPack from "../lib/contextPack.js";
import type * as lib_deltaBatcher from "../lib/deltaBatcher.js";
import type * as lib_errors from "../lib/errors.js";
import type * as lib_events from "../lib/events.js";
import type * as lib_files from "../lib/files.js";
import type * as lib_httpJson from "../lib/httpJson.js";
import type * as lib_injection from "../lib/injection.js";
import type * as lib_leadMode from "../lib/leadMode.js";
import type * as lib_limits from "../lib/limits.js";
import type * as lib_mentions from "../lib/mentions.js";
import type * as lib_messagingStats from "../lib/messagingStats.js";
import type * as lib_names from "../lib/names.js";
import type * as lib_notify from "../lib/notify.js";
import type * as lib_ordering from "../lib/ordering.js";
import type * as lib_resumePoint from "../lib/resumePoint.js";
import type * as lib_runEvents from "../lib/runEvents.js";
import type * as lib_runLease from "../lib/runLease.js";
import type * as lib_runTimeline from "../lib/runTimeline.js";
import type * as lib_secrets_index from "../lib/secrets/index.js";
import type * as lib_secrets_keywords from "../lib/secrets/keywords.js";
import type * as lib_secrets_normalize from "../lib/secrets/normalize.js";
import type * as lib_secrets_rules from "../lib/secrets/rules.js";
import type * as lib_secrets_scanner from "../lib/secrets/scanner.js";
import type * as lib_secrets_userText from "../lib/secrets/userText.js";
import type * as lib_sha256 from "../lib/sha256.js";
import type * as lib_slashCommands from "../lib/slashCommands.js";
import type * as lib_tokens from "../lib/tokens.js";
import type * as lib_userText from "../lib/userText.js";
import type * as lib_validate from "../lib/validate.js";
import type * as lib_webhooks from "../lib/webhooks.js";
import type * as mcp from "../mcp.js";
import type * as members from "../members.js";
import type * as messages from "../messages.js";
import type * as messagingApi from "../messagingApi.js";
import type * as notifications from "../notifications.js";
import type * as pauses from "../pauses.js";
import type * as plans from "../plans.js";
import type * as presence from "../presence.js";
import type * as projectGraph from "../projectGraph.js";
import type * as questions from "../questions.js";
import type * as rateLimits from "../rateLimits.js";
import type * as runEvents from "../runEvents.js";
import type * as runs from "../runs.js";
import type * as search from "../search.js";
import type * as seed from "../seed.js";
import type * as setup from "../setup.js";
import type * as slashCommands from "../slashCommands.js";
import type * as tasks from "../tasks.js";
import type * as tools_delegation from "../tools/delegation.js";
import type * as tools_effects from "../tools/effects.js";
import type * as tools_guards from "../tools/guards.js";
import type * as tools_idempotency from "../tools/idempotency.js";
import type * as tools_messaging from "../tools/messaging.js";
import type * as tools_notes from "../tools/notes.js";
import type * as tools_registry from "../tools/registry.js";
import type * as tools_thread from "../tools/thread.js";
import type * as triggers from "../triggers.js";
import type * as users from "../users.js";
import type * as validators from "../validators.js";
import type * as wakeups from "../wakeups.js";
import type * as webhooks from "../webhooks.js";

/**
 * A utility for referencing Convex functions in your app's API.
 *
 * Usage:
 * ```js
 * const myFunctionReference = api.myModule.myFunction;
 * ```
 */
declare const fullApi: ApiFromModules<{
  activities: typeof activities;
  agentApiKeys: typeof agentApiKeys;
  agents: typeof agents;
  approvals: typeof approvals;
  auth: typeof auth;
  "brain/config": typeof brain_config;
  "brain/context": typeof brain_context;
  "brain/dispatch": typeof brain_dispatch;
  "brain/model": typeof brain_model;
  "brain/prompt": typeof brain_prompt;
  "brain/run": typeof brain_run;
  "brain/toolCalls": typeof brain_toolCalls;
  channelFiles: typeof channelFiles;
  channelMessages: typeof channelMessages;
  channels: typeof channels;
  chat: typeof chat;
  crons: typeof crons;
  departments: typeof departments;
  events: typeof events;
  functions: typeof functions;
  http: typeof http;
  inbox: typeof inbox;
  invites: typeof invites;
  "lib/accounts": typeof lib_accounts;
  "lib/activity": typeof lib_activity;
  "lib/actors": typeof lib_actors;
  "lib/agentNames": typeof lib_agentNames;
  "lib/auth": typeof lib_auth;
  "lib/boardFilters": typeof lib_boardFilters;
  "lib/channels": typeof lib_channels;
  "lib/config": typeof lib_config;
  "lib/contextPack": typeof lib_contextPack;
  "lib/deltaBatcher": typeof lib_deltaBatcher;
  "lib/errors": typeof lib_errors;
  "lib/events": typeof lib_events;
  "lib/files": typeof lib_files;
  "lib/httpJson": typeof lib_httpJson;
  "lib/injection": typeof lib_injection;
  "lib/leadMode": typeof lib_leadMode;
  "lib/limits": typeof lib_limits;
  "lib/mentions": typeof lib_mentions;
  "lib/messagingStats": typeof lib_messagingStats;
  "lib/names": typeof lib_names;
  "lib/notify": typeof lib_notify;
  "lib/ordering": typeof lib_ordering;
  "lib/resumePoint": typeof lib_resumePoint;
  "lib/runEvents": typeof lib_runEvents;
  "lib/runLease": typeof lib_runLease;
  "lib/runTimeline": typeof lib_runTimeline;
  "lib/secrets/index": typeof lib_secrets_index;
  "lib/secrets/keywords": typeof lib_secrets_keywords;
  "lib/secrets/normalize": typeof lib_secrets_normalize;
  "lib/secrets/rules": typeof lib_secrets_rules;
  "lib/secrets/scanner": typeof lib_secrets_scanner;
  "lib/secrets/userText": typeof lib_secrets_userText;
  "lib/sha256": typeof lib_sha256;
  "lib/slashCommands": typeof lib_slashCommands;
  "lib/tokens": typeof lib_tokens;
  "lib/userText": typeof lib_userText;
  "lib/validate": typeof lib_validate;
  "lib/webhooks": typeof lib_webhooks;
  mcp: typeof mcp;
  members: typeof members;
  messages: typeof messages;
  messagingApi: typeof messagingApi;
  notifications: typeof notifications;
  pauses: typeof pauses;
  plans: typeof plans;
  presence: typeof presence;
  projectGraph: typeof projectGraph;
  questions: typeof questions;
  rateLimits: typeof rateLimits;
  runEvents: typeof runEvents;
  runs: typeof runs;
  search: typeof search;
  seed: typeof seed;
  setup: typeof setup;
  slashCommands: typeof slashCommands;
  tasks: typeof tasks;
  "tools/delegation": typeof tools_delegation;
  "tools/effects": typeof tools_effects;
  "tools/guards": typeof tools_guards;
  "tools/idempotency": typeof tools_idempotency;
  "tools/messaging": typeof tools_messaging;
  "tools/notes": typeof tools_notes;
  "tools/registry": typeof tools_registry;
  "tools/thread": typeof tools_thread;
  triggers: typeof triggers;
  users: typeof users;
  validators: typeof validators;
  wakeups: typeof wakeups;
  webhooks: typeof webhooks;
}>;
export declare const api: FilterApi<
  typeof fullApi,
  FunctionReference<any, "public">
>;
export declare const internal: FilterApi<
  typeof fullApi,
  FunctionReference<any, "internal">
>;

export declare const components: {
  "rateLimiter": import("@convex-dev/rate-limiter/_generated/component.js").ComponentApi<"rateLimiter">;
  "presence": import("@convex-dev/presence/_generated/component.js").ComponentApi<"presence">;
};
