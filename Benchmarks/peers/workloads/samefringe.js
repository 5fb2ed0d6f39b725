// Same fringe: do two trees of different shapes hold the same leaves in the same order? Each
// tree's leaves come from a recursive generator (yield* per subtree), the two compared in
// lock-step, stopping at the first difference. SIZE leaves per tree.
"use strict";

const harness = require("./harness");
const { Lcg } = harness;

class Node {
  constructor(left, right, leaf) {
    this.left = left;
    this.right = right;
    this.leaf = leaf;
  }
}

function build(leaves, lo, hi, rng) {
  if (hi - lo === 1) return new Node(null, null, leaves[lo]);
  const mid = lo + 1 + rng.next(hi - lo - 1);
  return new Node(build(leaves, lo, mid, rng), build(leaves, mid, hi, rng), 0);
}

function* fringe(t) {
  if (t.left === null) {
    yield t.leaf;
  } else {
    yield* fringe(t.left);
    yield* fringe(t.right);
  }
}

function sameFringe(a, b) {
  const gb = fringe(b);
  let compared = 0;
  for (const x of fringe(a)) {
    const r = gb.next();
    if (r.done || x !== r.value) return [false, compared];
    compared++;
  }
  return [gb.next().done, compared];
}

function run(size) {
  const leaves = [];
  for (let i = 0; i < size; i++) leaves.push(i);
  const other = leaves.slice();
  other[Math.floor((size * 3) / 4)] = -1;
  const a = build(leaves, 0, size, new Lcg(1));
  const b = build(leaves, 0, size, new Lcg(2));
  const c = build(other, 0, size, new Lcg(3));
  const out = [];
  for (const [name, x, y] of [["a b", a, b], ["a c", a, c], ["b c", b, c]]) {
    const [same, compared] = sameFringe(x, y);
    out.push(`${name}: ${same ? "same" : "different"} after ${compared} leaves`);
  }
  return out;
}

harness.main(run, 1000);
