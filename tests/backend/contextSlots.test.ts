/**
 * ContextSlot: the AsyncLocalStorage interface the engine and convex-test
 * use, with every slot carried by one real AsyncLocalStorage.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { expect, test } from "vitest";
import { ContextSlot } from "../../tools/local-backend/contextSlots";

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("a slot's value follows its run across awaits, and concurrent runs do not see each other's", async () => {
  const slot = new ContextSlot<string>();
  const seen: string[] = [];
  await Promise.all(
    ["a", "b", "c"].map((name) =>
      slot.run(name, async () => {
        await tick();
        await Promise.resolve();
        seen.push(`${name}=${slot.getStore()}`);
      }),
    ),
  );
  expect(seen.sort()).toEqual(["a=a", "b=b", "c=c"]);
  expect(slot.getStore()).toBeUndefined();
});

test("slots are independent: a run sets one slot and keeps the others; exit unsets only its own", async () => {
  const first = new ContextSlot<number>();
  const second = new ContextSlot<string>();
  await first.run(1, async () => {
    await second.run("x", async () => {
      await tick();
      expect([first.getStore(), second.getStore()]).toEqual([1, "x"]);
      await first.run(2, async () => {
        await tick();
        expect([first.getStore(), second.getStore()]).toEqual([2, "x"]);
      });
      expect(first.getStore()).toBe(1);
      await first.exit(async () => {
        await tick();
        expect([first.getStore(), second.getStore()]).toEqual([undefined, "x"]);
      });
      expect(first.getStore()).toBe(1);
    });
    expect(second.getStore()).toBeUndefined();
  });
});

test("run passes its arguments and returns the function's result; enterWith sets the slot for what follows", async () => {
  const slot = new ContextSlot<string>();
  expect(slot.run("v", (a: number, b: number) => `${slot.getStore()}:${a + b}`, 2, 3)).toBe("v:5");
  await new Promise<void>((resolve) =>
    setImmediate(() => {
      slot.enterWith("entered");
      void Promise.resolve().then(() => {
        expect(slot.getStore()).toBe("entered");
        resolve();
      });
    }),
  );
  expect(slot.getStore()).toBeUndefined();
});

test("a snapshot taken outside every run runs its function with no slot set", async () => {
  const slot = new ContextSlot<string>();
  const outside = AsyncLocalStorage.snapshot();
  await slot.run("inside", async () => {
    expect(outside(() => slot.getStore())).toBeUndefined();
  });
});
