// Hamming numbers (2^i 3^j 5^k in increasing order) by generators that run after their own
// tail through a tee (CPython's Lib/test/test_generators.py, m235 with itertools.tee; the tee
// written here, as JavaScript has none). The first 5,000 (all below 2^53) are taken SIZE
// times, from new generators each time.
"use strict";

const harness = require("./harness");

// itertools.tee: n iterators over one source, sharing a linked list of the values not yet
// read by all of them.
function tee(source, n) {
  const it = source[Symbol.iterator]();
  let tail = { value: undefined, next: null };
  const readers = [];
  for (let k = 0; k < n; k++) {
    let at = tail;
    readers.push({
      [Symbol.iterator]() { return this; },
      next() {
        if (at.next === null) {
          const r = it.next();
          if (r.done) return r;
          tail.next = { value: r.value, next: null };
          tail = tail.next;
        }
        at = at.next;
        return { value: at.value, done: false };
      },
    });
  }
  return readers;
}

function* times(n, g) {
  for (const i of g) yield n * i;
}

function* merge(g, h) {
  let ng = g.next().value;
  let nh = h.next().value;
  for (;;) {
    if (ng < nh) {
      yield ng;
      ng = g.next().value;
    } else if (ng > nh) {
      yield nh;
      nh = h.next().value;
    } else {
      yield ng;
      ng = g.next().value;
      nh = h.next().value;
    }
  }
}

function m235() {
  let m2, m3, m5;
  function* _m235() {
    yield 1;
    yield* merge(times(2, m2), merge(times(3, m3), times(5, m5)));
  }
  const readers = tee(_m235(), 4);
  [m2, m3, m5] = readers;
  return readers[3];
}

function run(size) {
  const count = 5000;
  let total = 0;
  let last = 0;
  const first = [];
  for (let r = 0; r < size; r++) {
    const it = m235();
    for (let k = 0; k < count; k++) {
      last = it.next().value;
      if (k < 15 && first.length < 15) first.push(last);
      total = (total + last) % 1000000007;
    }
  }
  return ["hamming: " + first.join(" "), `number ${count}: ${last}`, `sum mod 1e9+7: ${total}`];
}

harness.main(run, 10);
