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
import type * as agents from "../agents.js";
import type * as departments from "../departments.js";
import type * as lib_activity from "../lib/activity.js";
import type * as lib_actors from "../lib/actors.js";
import type * as lib_auth from "../lib/auth.js";
import type * as lib_errors from "../lib/errors.js";
import type * as lib_limits from "../lib/limits.js";
import type * as lib_mentions from "../lib/mentions.js";
import type * as lib_names from "../lib/names.js";
import type * as lib_notify from "../lib/notify.js";
import type * as lib_ordering from "../lib/ordering.js";
import type * as lib_validate from "../lib/validate.js";
import type * as members from "../members.js";
import type * as messages from "../messages.js";
import type * as notifications from "../notifications.js";
import type * as seed from "../seed.js";
import type * as tasks from "../tasks.js";
import type * as tools_registry from "../tools/registry.js";
import type * as triggers from "../triggers.js";
import type * as validators from "../validators.js";

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
  agents: typeof agents;
  departments: typeof departments;
  "lib/activity": typeof lib_activity;
  "lib/actors": typeof lib_actors;
  "lib/auth": typeof lib_auth;
  "lib/errors": typeof lib_errors;
  "lib/limits": typeof lib_limits;
  "lib/mentions": typeof lib_mentions;
  "lib/names": typeof lib_names;
  "lib/notify": typeof lib_notify;
  "lib/ordering": typeof lib_ordering;
  "lib/validate": typeof lib_validate;
  members: typeof members;
  messages: typeof messages;
  notifications: typeof notifications;
  seed: typeof seed;
  tasks: typeof tasks;
  "tools/registry": typeof tools_registry;
  triggers: typeof triggers;
  validators: typeof validators;
}>;
export declare const api: FilterApi<
  typeof fullApi,
  FunctionReference<any, "public">
>;
export declare const internal: FilterApi<
  typeof fullApi,
  FunctionReference<any, "internal">
>;
