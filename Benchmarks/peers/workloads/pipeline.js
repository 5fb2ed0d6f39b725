// An itertools-style pipeline, every stage a generator function of its own: count -> map ->
// filter -> takewhile -> chunked -> map -> islice (every 3rd) -> sum. SIZE bounds the squares.
"use strict";

const harness = require("./harness");

function* count(start) {
  for (let n = start; ; n++) yield n;
}

function* map(f, source) {
  for (const x of source) yield f(x);
}

function* filter(predicate, source) {
  for (const x of source) if (predicate(x)) yield x;
}

function* takewhile(predicate, source) {
  for (const x of source) {
    if (!predicate(x)) return;
    yield x;
  }
}

function* chunked(size, source) {
  let chunk = [];
  for (const x of source) {
    chunk.push(x);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

function* islice(step, source) {
  let k = 0;
  for (const x of source) {
    if (k % step === 0) yield x;
    k++;
  }
}

function sum(values) {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

function run(size) {
  const squares = map((x) => x * x, count(1));
  const odd = filter((x) => x % 2 === 1, squares);
  const bounded = takewhile((x) => x < size, odd);
  const sums = map(sum, chunked(7, bounded));
  let total = 0;
  let n = 0;
  for (const s of islice(3, sums)) {
    total = (total + s) % 1000000007;
    n++;
  }
  return [`pipeline below ${size}: ${n} chunk sums taken`, `total mod 1e9+7: ${total}`];
}

harness.main(run, 1000000);
