import assert from "node:assert/strict";

/** A connection's `pageInfo`, as every connection answers it. */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** A connection as a query with {@link PAGE_INFO} and `edges { cursor node { … } }` answers it. */
export interface Connection<N> {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Array<{ cursor: string; node: N }>;
}

/** The cursor arguments as the tests pass them. */
export interface PageArgs {
  first?: number;
  last?: number;
  after?: string | null;
  before?: string | null;
}

/** The selection a connection's total and page info need. */
export const PAGE_INFO = "totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }";

/** Pages forward with `first`, then backward with `last`; both must list `expected` in order. */
export async function assertPagesBothWays(
  load: (args: PageArgs) => Promise<Connection<{ id: string }>>,
  size: number,
  expected: readonly string[],
): Promise<void> {
  const forward: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page = await load({ first: size, after: cursor });
    assert.equal(page.totalCount, expected.length);
    assert.equal(page.pageInfo.hasPreviousPage, n > 0, `forward page ${n} hasPreviousPage`);
    forward.push(...page.edges.map((e) => e.node.id));
    if (!page.pageInfo.hasNextPage) break;
    assert.equal(page.edges.length, size);
    cursor = page.pageInfo.endCursor;
  }
  assert.deepEqual(forward, expected, "forward");
  const backward: string[] = [];
  cursor = null;
  for (let n = 0; ; n++) {
    const page = await load({ last: size, before: cursor });
    assert.equal(page.pageInfo.hasNextPage, n > 0, `backward page ${n} hasNextPage`);
    backward.unshift(...page.edges.map((e) => e.node.id));
    if (!page.pageInfo.hasPreviousPage) break;
    assert.equal(page.edges.length, size);
    cursor = page.pageInfo.startCursor;
  }
  assert.deepEqual(backward, expected, "backward");
}
