// The prime sieve of chained filter generators (CPython's Lib/test/test_generators.py): every
// prime found adds a filter of its multiples in front of the numbers, and a sieve level that
// delegates to the next (yield*). The first SIZE primes are taken.
"use strict";

const harness = require("./harness");

function* intsfrom(i) {
  for (;;) {
    yield i;
    i++;
  }
}

function* excludeMultiples(n, ints) {
  for (const i of ints) {
    if (i % n) yield i;
  }
}

function* sieve(ints) {
  const prime = ints.next().value;
  yield prime;
  yield* sieve(excludeMultiples(prime, ints));
}

function run(size) {
  const primes = sieve(intsfrom(2));
  let total = 0;
  const first = [];
  let last = 0;
  for (let k = 0; k < size; k++) {
    last = primes.next().value;
    total += last;
    if (k < 10) first.push(last);
  }
  return ["primes: " + first.join(" "), `prime ${size}: ${last}`, `sum ${total}`];
}

harness.main(run, 100);
