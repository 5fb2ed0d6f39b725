// In-order traversal of a balanced binary tree with a generator per subtree, each delegating
// to its children's (yield*; CPython's Lib/test/test_generators.py, inorder). The tree holds
// 2^SIZE - 1 nodes and is walked 4 times.
"use strict";

const harness = require("./harness");

class Tree {
  constructor(label, left, right) {
    this.label = label;
    this.left = left;
    this.right = right;
  }
}

function tree(lo, hi) {
  if (lo >= hi) return null;
  const mid = Math.floor((lo + hi) / 2);
  return new Tree(mid, tree(lo, mid), tree(mid + 1, hi));
}

function* inorder(t) {
  if (t) {
    yield* inorder(t.left);
    yield t.label;
    yield* inorder(t.right);
  }
}

function run(size) {
  const root = tree(0, 2 ** size - 1);
  const out = [];
  for (let walk = 0; walk < 4; walk++) {
    let total = 0;
    let count = 0;
    let previous = -1;
    let ordered = true;
    for (const label of inorder(root)) {
      total += label * (walk + 1);
      count++;
      if (label < previous) ordered = false;
      previous = label;
    }
    out.push(`walk ${walk}: ${count} labels, sum ${total}, ${ordered ? "ordered" : "NOT ordered"}`);
  }
  return out;
}

harness.main(run, 10);
