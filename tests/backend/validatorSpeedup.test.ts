/**
 * The offline backend's `validateValidator` (convexTestInternals.ts's
 * PREDICATE_SPEEDUPS: a compiled predicate first, convex-test's own code for
 * what it refuses) beside convex-test's as published: for the app's table
 * validators, its shared validators and hand-made edge cases, each value is
 * accepted by both or refused by both with the same error.
 */
import { runInNewContext } from "node:vm";
import { CommitTsPlaceholder, type GenericValidator } from "convex/values";
import { afterEach, beforeAll, expect, test } from "vitest";
import schema from "../../convex/schema";
import * as appValidators from "../../convex/validators";
import { importConvexTest } from "../../tools/local-backend/convexTestInternals";
import { validatorPredicates, type Predicate } from "../../tools/local-backend/validatorPredicates";
import { PROJECT_ROOT } from "./helpers";

/* eslint-disable @typescript-eslint/no-explicit-any -- validators here are convex-test's untyped JSON */
type Validate = (validator: any, value: unknown) => void;

let published: Validate;
let patched: Validate;
let predicateFor: (validator: any) => Predicate;

beforeAll(async () => {
  const original = await importConvexTest(PROJECT_ROOT, ["validateValidator", "isSimpleObject", "tableNameFromId"], "published");
  published = original.validateValidator as Validate;
  patched = (await importConvexTest(PROJECT_ROOT, ["validateValidator"], "offline backend")).validateValidator as Validate;
  predicateFor = validatorPredicates({
    isSimpleObject: original.isSimpleObject as (value: unknown) => boolean,
    tableNameFromId: original.tableNameFromId as (id: string) => string | null,
    CommitTsPlaceholder,
  });
});

const RealError = globalThis.Error;
afterEach(() => {
  globalThis.Error = RealError;
});

/** "ok", or the error's class and message. */
function verdict(validate: Validate, validator: unknown, value: unknown): string {
  try {
    validate(validator, value);
    return "ok";
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

class Point {
  x = 1;
}
class Empty {}

/** Values of every kind, most of them wrong for any given validator. */
function oddValues(): unknown[] {
  const sparse: number[] = [1];
  sparse[2] = 3;
  const withUndefined = { a: undefined };
  const nullProto = Object.create(null) as Record<string, unknown>;
  nullProto.kind = "member";
  const hidden = {};
  Object.defineProperty(hidden, "extra", { value: 1, enumerable: false });
  const symbolKeyed = { [Symbol("s")]: 1 };
  return [
    null,
    undefined,
    0,
    -0,
    1.5,
    Number.NaN,
    Infinity,
    1n,
    "",
    "x",
    "10001tasks",
    "10001users",
    "10001",
    "tasks",
    true,
    false,
    [],
    [1, "a"],
    sparse,
    [undefined],
    [[1]],
    {},
    withUndefined,
    nullProto,
    hidden,
    symbolKeyed,
    { toString: "x" },
    { constructor: "x" },
    JSON.parse('{"__proto__": 1}'),
    Object.create({ inherited: 1 }),
    runInNewContext("({ kind: 'system' })"),
    new Map(),
    new Set(),
    new Date(0),
    new Point(),
    new Empty(),
    new ArrayBuffer(2),
    new Uint8Array(2),
    new CommitTsPlaceholder(),
    Symbol("s"),
    () => 1,
  ];
}

/** A value `validator` should accept (optional fields left out or not, union members in turn). */
function sample(validator: any, seed: number): unknown {
  switch (validator.type) {
    case "null":
      return null;
    case "number":
      return [0, 2.5, -1, Number.NaN][seed % 4];
    case "bigint":
      return 5n;
    case "commitTs":
      return seed % 2 === 0 ? 7n : new CommitTsPlaceholder();
    case "boolean":
      return seed % 2 === 0;
    case "string":
      return `s${seed}`;
    case "bytes":
      return new ArrayBuffer(3);
    case "literal":
      return validator.value;
    case "id":
      return `${10_000 + seed}${validator.tableName}`;
    case "array":
      return Array.from({ length: seed % 3 }, (_, i) => sample(validator.value, seed + i + 1));
    case "union":
      if (validator.value.length === 0) return "matches no member";
      return sample(validator.value[seed % validator.value.length], Math.floor(seed / validator.value.length));
    case "object": {
      const result: Record<string, unknown> = {};
      Object.entries(validator.value as Record<string, { fieldType: any; optional: boolean }>).forEach(([key, field], i) => {
        if (!field.optional || (seed + i) % 3 !== 0) result[key] = sample(field.fieldType, seed + i);
        else if ((seed + i) % 2 === 0) result[key] = undefined;
      });
      return result;
    }
    case "record":
      return { a: sample(validator.values.fieldType, seed) };
    default:
      return { any: [seed] };
  }
}

/** `value` broken in every way one step away from it: each field and item replaced, removed or added to. */
function broken(validator: any, value: unknown, depth = 0): unknown[] {
  const out = depth === 0 ? oddValues() : oddValues().filter((_, i) => i % 4 === depth % 4);
  if (depth > 3) return out;
  if (validator.type === "union") {
    for (const member of validator.value) out.push(...broken(member, value, depth));
  }
  if (validator.type === "array" && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const item of broken(validator.value, value[i], depth + 1)) out.push(value.map((v, j) => (j === i ? item : v)));
    }
    out.push([...value, Symbol("s")], Object.assign({}, value));
  }
  if (validator.type === "object" && typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const [key, field] of Object.entries(validator.value as Record<string, { fieldType: any }>)) {
      for (const replacement of broken(field.fieldType, record[key] ?? sample(field.fieldType, depth), depth + 1)) {
        out.push({ ...record, [key]: replacement });
      }
      const { [key]: _removed, ...rest } = record;
      out.push(rest, { ...record, [key]: undefined });
    }
    out.push({ ...record, unexpected: 1 }, { ...record, unexpected: undefined }, { ...record, toString: 1 });
    out.push(Object.assign(Object.create(null), record), Object.assign(new Point(), record), new Map(Object.entries(record)));
    // "Simple" to convex-test though their prototype is not Object.prototype:
    // another plain object (whose enumerable keys are inherited, not own), and
    // an object of another realm.
    out.push(Object.assign(Object.create({ inherited: 1 }), record), Object.assign(runInNewContext("({})") as object, record));
  }
  return out;
}

/** A validator's JSON form, what convex-test validates with (`json` is internal to convex/values' types). */
function jsonOf(validator: GenericValidator): unknown {
  return (validator as unknown as { json: unknown }).json;
}

/** The JSON form of every validator `module` exports. */
function exportedValidators(module: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(module)
    .filter(([, value]) => (value as GenericValidator | undefined)?.isConvexValidator === true)
    .map(([name, value]) => [name, jsonOf(value as GenericValidator)]);
}

/** Validators a naive predicate gets wrong, and the kinds the app's validators lack. */
const EDGE_CASES: Array<[string, unknown]> = [
  ["optional field named like an Object.prototype member", { type: "object", value: { constructor: { fieldType: { type: "string" }, optional: true } } }],
  ["required field named like an Object.prototype member", { type: "object", value: { toString: { fieldType: { type: "any" }, optional: false } } }],
  ["empty object", { type: "object", value: {} }],
  ["array of numbers (holes are undefined items)", { type: "array", value: { type: "number" } }],
  ["nested arrays", { type: "array", value: { type: "array", value: { type: "union", value: [{ type: "null" }, { type: "bigint" }] } } }],
  ["union of objects", {
    type: "union",
    value: [
      { type: "object", value: { kind: { fieldType: { type: "literal", value: "member" }, optional: false }, id: { fieldType: { type: "id", tableName: "users" }, optional: false } } },
      { type: "object", value: { kind: { fieldType: { type: "literal", value: "agent" }, optional: false }, id: { fieldType: { type: "id", tableName: "agents" }, optional: false } } },
      { type: "object", value: { kind: { fieldType: { type: "literal", value: "system" }, optional: false } } },
    ],
  }],
  ["union of literals and an object", { type: "union", value: [{ type: "literal", value: "a" }, { type: "literal", value: 0 }, { type: "literal", value: false }, { type: "object", value: {} }] }],
  ["empty union", { type: "union", value: [] }],
  ["union with a record member (passes anything)", { type: "union", value: [{ type: "string" }, { type: "record", keys: { type: "string" }, values: { fieldType: { type: "number" }, optional: false } }] }],
  ["id of a table", { type: "id", tableName: "tasks" }],
  ["bigint", { type: "bigint" }],
  ["commitTs", { type: "commitTs" }],
  ["bytes", { type: "bytes" }],
  ["null", { type: "null" }],
  ["any", { type: "any" }],
  ["number", { type: "number" }],
  ["boolean", { type: "boolean" }],
  ["literal true", { type: "literal", value: true }],
  ["literal 0", { type: "literal", value: 0 }],
  ["a kind convex-test does not know", { type: "someday" }],
  ["nested objects", {
    type: "object",
    value: {
      inner: { fieldType: { type: "object", value: { at: { fieldType: { type: "bytes" }, optional: true }, n: { fieldType: { type: "bigint" }, optional: false } } }, optional: false },
      list: { fieldType: { type: "array", value: { type: "object", value: { id: { fieldType: { type: "id", tableName: "files" }, optional: false } } } }, optional: true },
    },
  }],
];

function corpus(): Array<[string, unknown]> {
  // As convex-test's database reads them: `export().documentType` of each table.
  const tables = Object.entries(schema.tables).map(([name, table]): [string, unknown] => [
    `table ${name}`,
    (table as unknown as { export(): { documentType: unknown } }).export().documentType,
  ]);
  return [...tables, ...exportedValidators(appValidators), ...EDGE_CASES];
}

test("the patched validateValidator accepts and refuses exactly as convex-test's, with the same errors, and its predicate agrees with convex-test on every value", () => {
  const validators = corpus();
  expect(validators.length).toBeGreaterThan(40);
  let accepted = 0;
  let refused = 0;
  for (const [name, validator] of validators) {
    const values = [0, 1, 2, 3, 4, 5].map((seed) => sample(validator, seed));
    values.push(...broken(validator, values[1]), ...broken(validator, values[2]));
    for (const value of values) {
      const expected = verdict(published, validator, value);
      const got = verdict(patched, validator, value);
      if (got !== expected || predicateFor(validator)(value) !== (expected === "ok")) {
        expect.fail(`${name}: ${shown(value)}: convex-test says ${expected}; patched says ${got}, predicate ${predicateFor(validator)(value)}`);
      }
      if (expected === "ok") accepted++;
      else refused++;
    }
  }
  // The corpus holds plenty of both.
  expect(accepted).toBeGreaterThan(200);
  expect(refused).toBeGreaterThan(2000);
});

function shown(value: unknown): string {
  try {
    return `${Object.prototype.toString.call(value)} ${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))}`;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

test("values a naive predicate would accept are refused, with convex-test's own error", () => {
  const constructorField = EDGE_CASES[0][1];
  // `{}` inherits `constructor` (Object), which is not a string.
  expect(verdict(patched, constructorField, {})).toBe(verdict(published, constructorField, {}));
  expect(verdict(patched, constructorField, {})).toMatch(/Validator error: Expected `string`/);
  const numbers = { type: "array", value: { type: "number" } };
  const sparse: number[] = [1];
  sparse[2] = 3;
  expect(verdict(patched, numbers, sparse)).toBe("Error: Validator error: Expected `number`, got `undefined`");
  expect(verdict(patched, { type: "object", value: {} }, { a: undefined })).toBe("Error: Validator error: Unexpected field `a` in object");
  expect(verdict(patched, { type: "object", value: {} }, new Date(0))).toMatch(/plain old JavaScript `object`/);
  expect(verdict(patched, { type: "id", tableName: "tasks" }, "10001users")).toBe('Error: Validator error: Expected ID for table "tasks", got `10001users`');
  // Refused by convex-test with a TypeError (isSimpleObject(null)); so here.
  expect(verdict(patched, { type: "object", value: {} }, null)).toBe(verdict(published, { type: "object", value: {} }, null));
  expect(verdict(patched, { type: "object", value: {} }, null)).not.toBe("ok");
});

test("a value matching the last member of a union of objects is accepted without an Error constructed; convex-test made one per member it tried", () => {
  const actor = jsonOf(appValidators.vActor);
  const system = (actor as { value: any[] }).value.at(-1);
  const value = sample(system, 0);
  let constructed = 0;
  globalThis.Error = class extends RealError {
    constructor(...args: ConstructorParameters<typeof RealError>) {
      super(...args);
      constructed++;
    }
  } as ErrorConstructor;
  patched(actor, value);
  const byPatched = constructed;
  published(actor, value);
  globalThis.Error = RealError;
  expect(byPatched).toBe(0);
  expect(constructed).toBeGreaterThan(0);
});
