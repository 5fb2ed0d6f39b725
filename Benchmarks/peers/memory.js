// Memory per suspended generator in V8: N generators, each started and suspended at its first
// yield, kept alive at once. Prints the resident bytes they added, per generator.
"use strict";
const n = Number(process.argv[2] || 1000000);
function* body(i) {
  yield i;
  yield -i;
}
if (global.gc) global.gc();
const before = process.memoryUsage().rss;
const alive = new Array(n);
for (let i = 0; i < n; i++) {
  const g = body(i);
  g.next();
  alive[i] = g;
}
if (global.gc) global.gc();
const after = process.memoryUsage().rss;
console.log(((after - before) / n).toFixed(1));
