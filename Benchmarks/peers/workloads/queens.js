// N-Queens through conjoin (CPython's Lib/test/test_generators.py), with yield*. The columns
// and the two diagonals a queen covers are three bit masks, as in queens.py.
"use strict";

const harness = require("./harness");
const { conjoin } = harness;

class Queens {
  constructor(n) {
    this.n = n;
    this.cols = this.down = this.up = 0;
    this.rowgenerators = [];
    const self = this;
    for (let i = 0; i < n; i++) {
      this.rowgenerators.push(function* rowgen() {
        for (let j = 0; j < n; j++) {
          const col = 1 << j, down = 1 << (i - j + n - 1), up = 1 << (i + j);
          if ((self.cols & col) === 0 && (self.down & down) === 0 && (self.up & up) === 0) {
            self.cols |= col;
            self.down |= down;
            self.up |= up;
            yield j;
            self.cols &= ~col;
            self.down &= ~down;
            self.up &= ~up;
          }
        }
      });
    }
  }

  *solve() {
    this.cols = this.down = this.up = 0;
    yield* conjoin(this.rowgenerators);
  }
}

function run(n) {
  let count = 0;
  let first = null;
  let last = null;
  for (const solution of new Queens(n).solve()) {
    count++;
    if (first === null) first = solution.slice();
    last = solution.slice();
  }
  return [`queens ${n}: ${count} solutions`, "first " + first.join(" "), "last " + last.join(" ")];
}

harness.main(run, 8);
