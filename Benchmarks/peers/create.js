// The V8 peer of the benchmark's "create + first next + release (pooled)" row: a generator
// made, run once to a body that returns at once, and dropped. Prints nanoseconds per generator
// (loop included) for N after as many for warm-up.
// Run by `swift run -c release bench` when `node` is on the PATH: node create.js N
"use strict";
function* returning(i) {
  return i;
}
const n = Number(process.argv[2] || 2000000);
let sum = 0;
for (let i = 0; i < n; i++) sum += returning(i).next().value;
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) sum += returning(i).next().value;
const t1 = process.hrtime.bigint();
if (sum === 42) console.error("");
console.log((Number(t1 - t0) / n).toFixed(3));
