import { describe, expect, test } from "vitest";
import { ORDER_STEP, orderAtStart, planMove, type Ordered } from "../../convex/lib/ordering";

const column = (...orders: number[]): Ordered[] => orders.map((order, i) => ({ id: `t${i}`, order }));

describe("planMove", () => {
  test("into an empty column: the first step", () => {
    expect(planMove([], "x", 0)).toEqual({ kind: "single", order: ORDER_STEP });
    expect(planMove([], "x", 5)).toEqual({ kind: "single", order: ORDER_STEP });
  });

  test("at the top, the bottom and between two cards", () => {
    const cards = column(1024, 2048, 3072);
    expect(planMove(cards, "x", 0)).toEqual({ kind: "single", order: 0 });
    expect(planMove(cards, "x", 3)).toEqual({ kind: "single", order: 4096 });
    expect(planMove(cards, "x", 1)).toEqual({ kind: "single", order: 1536 });
    expect(planMove(cards, "x", 2)).toEqual({ kind: "single", order: 2560 });
  });

  test("positions outside the column are clamped", () => {
    const cards = column(1024, 2048);
    expect(planMove(cards, "x", 99)).toEqual({ kind: "single", order: 3072 });
    expect(planMove(cards, "x", -3)).toEqual({ kind: "single", order: 0 });
  });

  test("the moved card itself is ignored when it is already in the column", () => {
    const cards = column(1024, 2048, 3072); // t0, t1, t2
    // t0 dropped at position 1 goes between t1 and t2.
    expect(planMove(cards, "t0", 1)).toEqual({ kind: "single", order: 2560 });
    // t2 dropped at the end stays after t1.
    expect(planMove(cards, "t2", 2)).toEqual({ kind: "single", order: 3072 });
    // The only card of its column, dropped anywhere.
    expect(planMove(column(7), "t0", 3)).toEqual({ kind: "single", order: ORDER_STEP });
  });

  test("a gap too small to split renumbers the column, moved card included, in the new order", () => {
    const cards = [
      { id: "a", order: 1 },
      { id: "b", order: 1 + 1e-7 },
      { id: "c", order: 5 },
      { id: "m", order: 9 },
    ];
    expect(planMove(cards, "m", 1)).toEqual({
      kind: "renumber",
      orders: [
        { id: "a", order: ORDER_STEP },
        { id: "m", order: 2 * ORDER_STEP },
        { id: "b", order: 3 * ORDER_STEP },
        { id: "c", order: 4 * ORDER_STEP },
      ],
    });
  });

  test("repeated drops into one gap stay in order, renumbering when they must", () => {
    let cards: Ordered[] = column(1024, 2048);
    let renumbered = 0;
    for (let i = 0; i < 100; i++) {
      const id = `n${i}`;
      const plan = planMove(cards, id, 1);
      if (plan.kind === "single") {
        cards = [...cards, { id, order: plan.order }];
      } else {
        renumbered += 1;
        cards = plan.orders;
      }
      cards.sort((x, y) => x.order - y.order);
      expect(cards[1].id).toBe(id);
      expect(new Set(cards.map((c) => c.order)).size).toBe(cards.length);
    }
    expect(renumbered).toBeGreaterThan(0);
    expect(cards.map((c) => c.id)).toEqual(["t0", ...Array.from({ length: 100 }, (_, i) => `n${99 - i}`), "t1"]);
  });
});

describe("orderAtStart", () => {
  test("one step before the first card, or the first step in an empty column", () => {
    expect(orderAtStart(undefined)).toBe(ORDER_STEP);
    expect(orderAtStart(5)).toBe(5 - ORDER_STEP);
    expect(orderAtStart(-1024)).toBe(-2048);
  });
});
