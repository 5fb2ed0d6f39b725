// The V8 peer of the benchmark's `Generator<Int, Int, Void>.next(i)` row: a generator that
// yields x + 1 and receives the next x, resumed with next(i). Prints nanoseconds per round
// trip (loop included) for N round trips after as many for warm-up.
// Run by `swift run -c release bench` when `node` is on the PATH: node generator.js N
"use strict";
function* counter() {
  let x = 0;
  for (;;) x = yield x + 1;
}
const n = Number(process.argv[2] || 2000000);
const it = counter();
it.next(0);
let sum = 0;
for (let i = 0; i < n; i++) sum += it.next(i).value;
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) sum += it.next(i).value;
const t1 = process.hrtime.bigint();
if (sum === 42) console.error("");
console.log((Number(t1 - t0) / n).toFixed(3));
