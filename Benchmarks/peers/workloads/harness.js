// What the workload scripts share: the command line and the timing (README.md), the LCG that
// makes their inputs, and conjoin.
"use strict";

// Runs `run(size)` once to warm up and once timed; prints its lines, then time_ns.
function main(run, defaultSize) {
  const size = Number(process.argv[2] || defaultSize);
  run(size);
  const t0 = process.hrtime.bigint();
  const out = run(size);
  const t1 = process.hrtime.bigint();
  console.log(out.join("\n"));
  console.log(`time_ns ${t1 - t0}`);
}

// The Park-Miller "minimal standard" LCG: the same numbers in every language.
class Lcg {
  constructor(seed) { this.x = seed; }
  next(bound) {
    this.x = (this.x * 48271) % 2147483647;
    return this.x % bound;
  }
}

// CPython's Lib/test/test_generators.py conjoin: every combination of the generators' values,
// the last varying fastest, in one array updated in place.
function* conjoin(gs) {
  const n = gs.length;
  const values = new Array(n).fill(null);
  function* gen(i) {
    if (i >= n) {
      yield values;
    } else {
      for (const v of gs[i]()) {
        values[i] = v;
        yield* gen(i + 1);
      }
    }
  }
  yield* gen(0);
}

module.exports = { main, conjoin, Lcg };
