/**
 * validatorPredicates: a validator compiled once into a yes/no check that
 * leaves every doubtful case (a malformed validator, a value whose reading
 * throws) to convex-test by saying no. Its agreement with convex-test over
 * the app's validators is in validatorSpeedup.test.ts.
 */
import { CommitTsPlaceholder } from "convex/values";
import { expect, test } from "vitest";
import { validatorPredicates } from "../../tools/local-backend/validatorPredicates";

const predicateFor = validatorPredicates({
  isSimpleObject: (value) => [null, Object.prototype].includes(Object.getPrototypeOf(value) as object | null),
  tableNameFromId: (id) => /^[0-9]+([a-z]+)$/i.exec(id)?.[1] ?? null,
  CommitTsPlaceholder,
});

const actor = {
  type: "union",
  value: [
    { type: "object", value: { kind: { fieldType: { type: "literal", value: "member" }, optional: false }, userId: { fieldType: { type: "id", tableName: "users" }, optional: false } } },
    { type: "object", value: { kind: { fieldType: { type: "literal", value: "system" }, optional: false }, note: { fieldType: { type: "string" }, optional: true } } },
  ],
};

test("a validator is compiled once: the same predicate answers every later call", () => {
  const first = predicateFor(actor);
  expect(predicateFor(actor)).toBe(first);
  expect(predicateFor(structuredClone(actor))).not.toBe(first);
  expect(first({ kind: "member", userId: "10001users" })).toBe(true);
  expect(first({ kind: "system" })).toBe(true);
  expect(first({ kind: "system", note: undefined })).toBe(true);
  expect(first({ kind: "member", userId: "10001agents" })).toBe(false);
  expect(first({ kind: "system", extra: 1 })).toBe(false);
  expect(first({ kind: "member" })).toBe(false);
});

test("each kind accepts its own values only", () => {
  expect(predicateFor({ type: "bigint" })(1n)).toBe(true);
  expect(predicateFor({ type: "bigint" })(1)).toBe(false);
  expect(predicateFor({ type: "commitTs" })(new CommitTsPlaceholder())).toBe(true);
  expect(predicateFor({ type: "commitTs" })(2n)).toBe(true);
  expect(predicateFor({ type: "commitTs" })(2)).toBe(false);
  expect(predicateFor({ type: "bytes" })(new ArrayBuffer(1))).toBe(true);
  expect(predicateFor({ type: "bytes" })(new Uint8Array(1))).toBe(false);
  expect(predicateFor({ type: "null" })(undefined)).toBe(false);
  expect(predicateFor({ type: "literal", value: 1 })(1)).toBe(true);
  expect(predicateFor({ type: "literal", value: 1 })("1")).toBe(false);
  expect(predicateFor({ type: "array", value: { type: "string" } })(["a", "b"])).toBe(true);
  expect(predicateFor({ type: "array", value: { type: "string" } })({ 0: "a", length: 1 })).toBe(false);
  expect(predicateFor({ type: "union", value: [] })(null)).toBe(false);
});

test("kinds convex-test's check does not know (record) pass anything, as they pass there", () => {
  const record = { type: "record", keys: { type: "string" }, values: { fieldType: { type: "number" }, optional: false } };
  expect(predicateFor(record)({ a: "not a number" })).toBe(true);
  expect(predicateFor(record)(null)).toBe(true);
  expect(predicateFor({ type: "union", value: [{ type: "null" }, record] })("anything")).toBe(true);
});

test("a validator it cannot read, or a value whose reading throws, gets no (convex-test decides)", () => {
  expect(predicateFor({ type: "array" })([])).toBe(false);
  expect(predicateFor({ type: "object", value: { a: null } })({})).toBe(false);
  const getterThrows = Object.defineProperty({}, "a", {
    enumerable: true,
    get() {
      throw new Error("read");
    },
  });
  expect(predicateFor({ type: "object", value: { a: { fieldType: { type: "any" }, optional: true } } })(getterThrows)).toBe(false);
});
