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
import type * as brain_context from "../brain/context.js";
import type * as brain_dispatch from "../brain/dispatch.js";
import type * as brain_model from "../brain/model.js";
import type * as brain_prompt from "../brain/prompt.js";
import type * as brain_run from "../brain/run.js";
import type * as brain_writes from "../brain/writes.js";
import type * as channelFiles from "../channelFiles.js";
import type * as channelMessages from "../channelMessages.js";
import type * as channels from "../channels.js";
import type * as chat from "../chat.js";
import type * as chatApi from "../chatApi.js";
import type * as crons from "../crons.js";
import type * as departments from "../departments.js";
import type * as events from "../events.js";
import type * as functions from "../functions.js";
import type * as http from "../http.js";
import type * as inbox from "../inbox.js";
import type * as invites from "../invites.js";
import type * as lib_accounts from "../lib/accounts.js";
import type * as lib_actors from "../lib/actors.js";
import type * as lib_agentNames from "../lib/agentNames.js";
import type * as lib_apiKeys from "../lib/apiKeys.js";
import type * as lib_boardFilters from "../lib/boardFilters.js";
import type * as lib_brainConfig from "../lib/brainConfig.js";
import type * as lib_channels from "../lib/channels.js";
import type * as lib_chat from "../lib/chat.js";
import type * as lib_config from "../lib/config.js";
import type * as lib_contextPack from "../lib/contextPack.js";
import type * as lib_delegation from "../lib/delegation.js";
import type * as lib_deltaBatcher from "../lib/deltaBatcher.js";
import type * as lib_errors from "../lib/errors.js";
import type * as lib_files from "../lib/files.js";
import type * as lib_guards from "../lib/guards.js";
import type * as lib_httpJson from "../lib/httpJson.js";
import type * as lib_idempotency from "../lib/idempotency.js";
import type * as lib_injection from "../lib/injection.js";
import type * as lib_leadMode from "../lib/leadMode.js";
import type * as lib_limits from "../lib/limits.js";
import type * as lib_mentions from "../lib/mentions.js";
import type * as lib_messagingStats from "../lib/messagingStats.js";
import type * as lib_modelConfig from "../lib/modelConfig.js";
import type * as lib_names from "../lib/names.js";
import type * as lib_notes from "../lib/notes.js";
import type * as lib_nudges from "../lib/nudges.js";
import type * as lib_ordering from "../lib/ordering.js";
import type * as lib_pauses from "../lib/pauses.js";
import type * as lib_roles from "../lib/roles.js";
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
import type * as lib_toolCalls from "../lib/toolCalls.js";
import type * as lib_validate from "../lib/validate.js";
import type * as lib_webhooks from "../lib/webhooks.js";
import type * as mcp from "../mcp.js";
import type * as members from "../members.js";
import type * as messages from "../messages.js";
import type * as messagingApi from "../messagingApi.js";
import type * as notifications from "../notifications.js";
import type * as plans from "../plans.js";
import type * as presence from "../presence.js";
import type * as questions from "../questions.js";
import type * as reactions_delegation from "../reactions/delegation.js";
import type * as reactions_delivery from "../reactions/delivery.js";
import type * as reactions_pauses from "../reactions/pauses.js";
import type * as reactions_questions from "../reactions/questions.js";
import type * as reactions_runEnd from "../reactions/runEnd.js";
import type * as reactions_runQueue from "../reactions/runQueue.js";
import type * as reactions_taskChange from "../reactions/taskChange.js";
import type * as reactions_threadPost from "../reactions/threadPost.js";
import type * as reactions_triggers from "../reactions/triggers.js";
import type * as records_accounts from "../records/accounts.js";
import type * as records_activities from "../records/activities.js";
import type * as records_agentApiKeys from "../records/agentApiKeys.js";
import type * as records_agents from "../records/agents.js";
import type * as records_channelFiles from "../records/channelFiles.js";
import type * as records_channelMessages from "../records/channelMessages.js";
import type * as records_channels from "../records/channels.js";
import type * as records_chat from "../records/chat.js";
import type * as records_departments from "../records/departments.js";
import type * as records_events from "../records/events.js";
import type * as records_inbox from "../records/inbox.js";
import type * as records_members from "../records/members.js";
import type * as records_messages from "../records/messages.js";
import type * as records_notifications from "../records/notifications.js";
import type * as records_pauseCards from "../records/pauseCards.js";
import type * as records_projectGraph from "../records/projectGraph.js";
import type * as records_rateLimits from "../records/rateLimits.js";
import type * as records_runEvents from "../records/runEvents.js";
import type * as records_runs from "../records/runs.js";
import type * as records_settings from "../records/settings.js";
import type * as records_slashCommands from "../records/slashCommands.js";
import type * as records_tasks from "../records/tasks.js";
import type * as records_toolEffects from "../records/toolEffects.js";
import type * as records_triggers from "../records/triggers.js";
import type * as records_viewer from "../records/viewer.js";
import type * as records_webhooks from "../records/webhooks.js";
import type * as runEvents from "../runEvents.js";
import type * as runs from "../runs.js";
import type * as search from "../search.js";
import type * as seed from "../seed.js";
import type * as setup from "../setup.js";
import type * as signInApi from "../signInApi.js";
import type * as slash_registry from "../slash/registry.js";
import type * as slashCommands from "../slashCommands.js";
import type * as sweeps from "../sweeps.js";
import type * as tasks from "../tasks.js";
import type * as tools_delegation from "../tools/delegation.js";
import type * as tools_messaging from "../tools/messaging.js";
import type * as tools_registry from "../tools/registry.js";
import type * as tools_thread from "../tools/thread.js";
import type * as triggers from "../triggers.js";
import type * as uploadApi from "../uploadApi.js";
import type * as users from "../users.js";
import type * as validators from "../validators.js";
import type * as webhookDelivery from "../webhookDelivery.js";
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
  "brain/context": typeof brain_context;
  "brain/dispatch": typeof brain_dispatch;
  "brain/model": typeof brain_model;
  "brain/prompt": typeof brain_prompt;
  "brain/run": typeof brain_run;
  "brain/writes": typeof brain_writes;
  channelFiles: typeof channelFiles;
  channelMessages: typeof channelMessages;
  channels: typeof channels;
  chat: typeof chat;
  chatApi: typeof chatApi;
  crons: typeof crons;
  departments: typeof departments;
  events: typeof events;
  functions: typeof functions;
  http: typeof http;
  inbox: typeof inbox;
  invites: typeof invites;
  "lib/accounts": typeof lib_accounts;
  "lib/actors": typeof lib_actors;
  "lib/agentNames": typeof lib_agentNames;
  "lib/apiKeys": typeof lib_apiKeys;
  "lib/boardFilters": typeof lib_boardFilters;
  "lib/brainConfig": typeof lib_brainConfig;
  "lib/channels": typeof lib_channels;
  "lib/chat": typeof lib_chat;
  "lib/config": typeof lib_config;
  "lib/contextPack": typeof lib_contextPack;
  "lib/delegation": typeof lib_delegation;
  "lib/deltaBatcher": typeof lib_deltaBatcher;
  "lib/errors": typeof lib_errors;
  "lib/files": typeof lib_files;
  "lib/guards": typeof lib_guards;
  "lib/httpJson": typeof lib_httpJson;
  "lib/idempotency": typeof lib_idempotency;
  "lib/injection": typeof lib_injection;
  "lib/leadMode": typeof lib_leadMode;
  "lib/limits": typeof lib_limits;
  "lib/mentions": typeof lib_mentions;
  "lib/messagingStats": typeof lib_messagingStats;
  "lib/modelConfig": typeof lib_modelConfig;
  "lib/names": typeof lib_names;
  "lib/notes": typeof lib_notes;
  "lib/nudges": typeof lib_nudges;
  "lib/ordering": typeof lib_ordering;
  "lib/pauses": typeof lib_pauses;
  "lib/roles": typeof lib_roles;
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
  "lib/toolCalls": typeof lib_toolCalls;
  "lib/validate": typeof lib_validate;
  "lib/webhooks": typeof lib_webhooks;
  mcp: typeof mcp;
  members: typeof members;
  messages: typeof messages;
  messagingApi: typeof messagingApi;
  notifications: typeof notifications;
  plans: typeof plans;
  presence: typeof presence;
  questions: typeof questions;
  "reactions/delegation": typeof reactions_delegation;
  "reactions/delivery": typeof reactions_delivery;
  "reactions/pauses": typeof reactions_pauses;
  "reactions/questions": typeof reactions_questions;
  "reactions/runEnd": typeof reactions_runEnd;
  "reactions/runQueue": typeof reactions_runQueue;
  "reactions/taskChange": typeof reactions_taskChange;
  "reactions/threadPost": typeof reactions_threadPost;
  "reactions/triggers": typeof reactions_triggers;
  "records/accounts": typeof records_accounts;
  "records/activities": typeof records_activities;
  "records/agentApiKeys": typeof records_agentApiKeys;
  "records/agents": typeof records_agents;
  "records/channelFiles": typeof records_channelFiles;
  "records/channelMessages": typeof records_channelMessages;
  "records/channels": typeof records_channels;
  "records/chat": typeof records_chat;
  "records/departments": typeof records_departments;
  "records/events": typeof records_events;
  "records/inbox": typeof records_inbox;
  "records/members": typeof records_members;
  "records/messages": typeof records_messages;
  "records/notifications": typeof records_notifications;
  "records/pauseCards": typeof records_pauseCards;
  "records/projectGraph": typeof records_projectGraph;
  "records/rateLimits": typeof records_rateLimits;
  "records/runEvents": typeof records_runEvents;
  "records/runs": typeof records_runs;
  "records/settings": typeof records_settings;
  "records/slashCommands": typeof records_slashCommands;
  "records/tasks": typeof records_tasks;
  "records/toolEffects": typeof records_toolEffects;
  "records/triggers": typeof records_triggers;
  "records/viewer": typeof records_viewer;
  "records/webhooks": typeof records_webhooks;
  runEvents: typeof runEvents;
  runs: typeof runs;
  search: typeof search;
  seed: typeof seed;
  setup: typeof setup;
  signInApi: typeof signInApi;
  "slash/registry": typeof slash_registry;
  slashCommands: typeof slashCommands;
  sweeps: typeof sweeps;
  tasks: typeof tasks;
  "tools/delegation": typeof tools_delegation;
  "tools/messaging": typeof tools_messaging;
  "tools/registry": typeof tools_registry;
  "tools/thread": typeof tools_thread;
  triggers: typeof triggers;
  uploadApi: typeof uploadApi;
  users: typeof users;
  validators: typeof validators;
  webhookDelivery: typeof webhookDelivery;
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
