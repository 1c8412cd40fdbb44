/**
 * A validator's check compiled once into a plain yes/no function.
 *
 * convex-test's `validateValidator` checks every document written against its
 * table's validator, and every function's arguments and return value. It
 * walks the validator's JSON on each call: `Object.entries` of each object
 * validator, and for a union of objects (the Actor union) one thrown Error,
 * stack trace and message included, for every member that does not match.
 * It was the top JS function by self time in a mention's CPU profile.
 *
 * `predicateFor(validator)` answers true exactly for the values
 * `validateValidator` accepts; the patched `validateValidator` returns at once
 * on true and runs its own code on false, so a refused value still gets
 * convex-test's own error. A predicate may say false where convex-test
 * accepts (it would only cost the slow path), but never true where it
 * refuses: tests/backend/validatorSpeedup.test.ts holds the two side by side.
 * A type convex-test's switch does not know (`record`) passes, as it does there.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- validators here are convex-test's untyped JSON */

/** The convex-test internals the checks must share with `validateValidator`. */
export interface ValidatorHelpers {
  isSimpleObject: (value: unknown) => boolean;
  tableNameFromId: (id: string) => string | null;
  /** convex/values' class of a commit timestamp not yet known. */
  CommitTsPlaceholder: abstract new (...args: any[]) => unknown;
}

export type Predicate = (value: unknown) => boolean;

const never: Predicate = () => false;
const always: Predicate = () => true;

/**
 * A function from a validator (its JSON form) to its predicate, compiled on
 * first use and kept while the validator object lives. A validator whose
 * shape the compiler cannot read gets a predicate that always says false, and
 * a predicate that throws (a getter, a stack overflow) counts as false: both
 * leave the verdict to convex-test.
 */
export function validatorPredicates(helpers: ValidatorHelpers): (validator: any) => Predicate {
  const compiled = new WeakMap<object, Predicate>();
  return (validator) => {
    let predicate = compiled.get(validator);
    if (predicate === undefined) {
      let check: Predicate;
      try {
        check = compile(validator, helpers);
      } catch {
        check = never;
      }
      predicate = (value) => {
        try {
          return check(value);
        } catch {
          return false;
        }
      };
      compiled.set(validator, predicate);
    }
    return predicate;
  };
}

/** One check per case of `validateValidator`'s switch, same conditions. */
function compile(validator: any, helpers: ValidatorHelpers): Predicate {
  switch (validator.type) {
    case "null":
      return (value) => value === null;
    case "number":
      return (value) => typeof value === "number";
    case "bigint":
      return (value) => typeof value === "bigint";
    case "commitTs": {
      const { CommitTsPlaceholder } = helpers;
      return (value) => typeof value === "bigint" || value instanceof CommitTsPlaceholder;
    }
    case "boolean":
      return (value) => typeof value === "boolean";
    case "string":
      return (value) => typeof value === "string";
    case "bytes":
      return (value) => value instanceof ArrayBuffer;
    case "any":
      return always;
    case "literal": {
      const literal: unknown = validator.value;
      return (value) => value === literal;
    }
    case "id": {
      const table: unknown = validator.tableName;
      const { tableNameFromId } = helpers;
      return (value) => typeof value === "string" && tableNameFromId(value) === table;
    }
    case "array":
      return compileArray(validator, helpers);
    case "union":
      return compileUnion(validator, helpers);
    case "object":
      return compileObject(validator, helpers);
    default:
      // convex-test's switch has no case (no default) for it: anything passes.
      return always;
  }
}

function compileArray(validator: any, helpers: ValidatorHelpers): Predicate {
  const item = compile(validator.value, helpers);
  return (value) => {
    if (!Array.isArray(value)) return false;
    // `for...of` as convex-test iterates: a hole is an `undefined` item.
    for (const element of value) if (!item(element)) return false;
    return true;
  };
}

function compileUnion(validator: any, helpers: ValidatorHelpers): Predicate {
  const members = (validator.value as any[]).map((member) => compile(member, helpers));
  if (members.length === 0) return never;
  return (value) => {
    for (const member of members) if (member(value)) return true;
    return false;
  };
}

interface Field {
  name: string;
  optional: boolean;
  check: Predicate;
}

function compileObject(validator: any, helpers: ValidatorHelpers): Predicate {
  const shape = validator.value as Record<string, { fieldType: any; optional?: boolean }>;
  // convex-test reads the fields with `Object.entries` on every call.
  const fields: Field[] = Object.entries(shape).map(([name, { fieldType, optional }]) => ({
    name,
    optional: Boolean(optional),
    check: compile(fieldType, helpers),
  }));
  const names = new Set(fields.map((field) => field.name));
  const { isSimpleObject } = helpers;
  return (value) => {
    // `null` is an "object" whose isSimpleObject throws: refused either way.
    if (typeof value !== "object" || value === null) return false;
    // What isSimpleObject says of the usual prototypes, without the call.
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null && !isSimpleObject(value)) return false;
    const record = value as Record<string, unknown>;
    for (const field of fields) {
      // Read as convex-test reads it, inherited properties included: `{}`
      // has a `constructor` field (Object), which is not `undefined`.
      const fieldValue = record[field.name];
      if (fieldValue === undefined) {
        if (!field.optional) return false;
      } else if (!field.check(fieldValue)) {
        return false;
      }
    }
    // convex-test refuses an own enumerable key (`Object.keys`) whose
    // `shape[key]` is undefined; a name the shape inherits (`toString`) is
    // not refused there. `for...in` visits the own enumerable keys without
    // making an array of them, and inherited ones, told apart by `hasOwn`.
    for (const key in record) {
      if (!names.has(key) && shape[key] === undefined && Object.hasOwn(record, key)) return false;
    }
    return true;
  };
}
