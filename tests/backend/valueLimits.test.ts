import { runInNewContext } from "node:vm";
import { getConvexSize, getDocumentSize } from "convex/values";
import { expect, test } from "vitest";
import { importConvexTest } from "../../tools/local-backend/convexTestInternals";
import { binarySize, MAX_DOCUMENT_BYTES, valueLimits } from "../../tools/local-backend/valueLimits";
import { PROJECT_ROOT } from "./helpers";

// Objects judged as convex-test judges them, with its own helper.
const { isSimpleObject } = (await importConvexTest(PROJECT_ROOT, ["isSimpleObject"], "published")) as { isSimpleObject: (value: unknown) => boolean };
const { checkArgsSize, checkDocument, checkResultSize, checkValue, convexSize } = valueLimits({ isSimpleObject });

test("byte counts read as the deployment writes them", () => {
  expect(binarySize(512)).toBe("512 B");
  expect(binarySize(1024)).toBe("1 KiB");
  expect(binarySize(1536)).toBe("1.5 KiB");
  expect(binarySize(MAX_DOCUMENT_BYTES)).toBe("1 MiB");
  expect(binarySize(1_100_000)).toBe("1.05 MiB");
});

test("nesting counts arrays and objects, not bytes, strings or undefined fields", () => {
  expect(checkValue("text")).toBe(0);
  expect(checkValue(new ArrayBuffer(8))).toBe(0);
  expect(checkValue([])).toBe(1);
  expect(checkValue({ a: [1, { b: [] }] })).toBe(4);
  // An undefined field is no field: 1,025 keys of which one is undefined is within the 1,024.
  const fields: Record<string, unknown> = Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`f${i}`, i]));
  fields.gone = undefined;
  expect(checkValue(fields)).toBe(1);
  fields.gone = 1;
  expect(() => checkValue(fields)).toThrow("Object has too many fields (1025 > maximum number 1024)");
  // An object made in another realm (the edge-runtime unit tests' arguments) is an object all the same.
  const foreign = runInNewContext("Object.fromEntries(Array.from({ length: 1025 }, (_, i) => ['f' + i, { i }]))") as object;
  expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
  expect(() => checkValue(foreign)).toThrow("Object has too many fields (1025 > maximum number 1024)");
});

test("limits hold for values deep inside others, and a document's size is Convex's own count", () => {
  expect(() => checkValue({ rows: [{ cells: Array.from({ length: 8193 }, () => 0) }] })).toThrow("Array length is too long (8193 > maximum length 8192)");
  const id = "1notes";
  const body = "é".repeat(524_250); // two bytes each in UTF-8
  const document = { _id: id, _creationTime: 1, channel: "c", body };
  const size = getDocumentSize(document);
  expect(size).toBeLessThanOrEqual(MAX_DOCUMENT_BYTES);
  expect(() => checkDocument(document)).not.toThrow();
  const over = { ...document, body: body + "é".repeat(Math.ceil((MAX_DOCUMENT_BYTES - size + 1) / 2)) };
  expect(getDocumentSize(over)).toBeGreaterThan(MAX_DOCUMENT_BYTES);
  expect(() => checkDocument(over)).toThrow(/^Value is too large \(1 MiB > maximum size 1 MiB\)$/);
});

test("a value's size is Convex's count, and arguments or a result over 16 MiB are refused with Convex's messages", () => {
  const value = { text: "héllo 🎉", n: 1, big: 2n, bytes: new ArrayBuffer(5), list: [null, true, { gone: undefined, key: "v" }] };
  expect(convexSize(value)).toBe(getConvexSize(value));
  const limit = 16 * 1024 * 1024;
  // Arguments are measured as Convex measures them, as the one-element array of the object: 2 + 2 + "text" + 1 + the string.
  expect(() => checkArgsSize({ text: "x".repeat(limit - 11) }, "tasks:create")).not.toThrow();
  expect(() => checkArgsSize({ text: "x".repeat(limit - 10) }, "tasks:create")).toThrow(/^Arguments for tasks\.js:create are too large \(actual: 16 MiB, limit: 16 MiB\)$/);
  const result = "é".repeat(limit / 2);
  expect(() => checkResultSize(result, JSON.stringify(result).length, "folder/tasks:list")).toThrow(
    /^Function folder\/tasks\.js:list return value is too large \(actual: 16 MiB, limit: 16 MiB\)$/,
  );
  // A short JSON text is within the limit whatever it holds: no walk.
  expect(() => checkResultSize(result, 1000, "tasks:list")).not.toThrow();
});
