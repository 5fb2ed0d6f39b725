// Knight's tours through conjoin (CPython's Lib/test/test_generators.py: class Knights, the
// `advance` heuristic), with yield*. The first SIZE tours of a 10x10 board are counted.
"use strict";

const harness = require("./harness");
const { conjoin } = harness;

class Knights {
  constructor(m, n) {
    this.m = m;
    this.n = n;
    const succs = (this.succs = []);
    this.lastij = 0;
    this.final = 0;
    const self = this;

    function removeFromSuccessors(i0) {
      let ne0 = 0, ne1 = 0;
      for (const i of succs[i0]) {
        const s = succs[i];
        s.splice(s.indexOf(i0), 1);
        const e = s.length;
        if (e === 0) ne0++;
        else if (e === 1) ne1++;
      }
      return ne0 === 0 && ne1 < 2;
    }

    function addToSuccessors(i0) {
      for (const i of succs[i0]) succs[i].push(i0);
    }

    function* first() {
      const corner = self.coords2index(0, 0);
      removeFromSuccessors(corner);
      self.lastij = corner;
      yield corner;
      addToSuccessors(corner);
    }

    function* second() {
      const corner = self.coords2index(0, 0);
      for (const [i, j] of [[1, 2], [2, 1]]) {
        const thisSquare = self.coords2index(i, j);
        const final = self.coords2index(3 - i, 3 - j);
        self.final = final;
        removeFromSuccessors(thisSquare);
        succs[final].push(corner);
        self.lastij = thisSquare;
        yield thisSquare;
        const s = succs[final];
        s.splice(s.indexOf(corner), 1);
        addToSuccessors(thisSquare);
      }
    }

    function* advance() {
      let candidates = [];
      let forced = false;
      for (const i of succs[self.lastij]) {
        const e = succs[i].length;
        if (e === 1) {
          candidates = [[e, i]];
          forced = true;
          break;
        }
        candidates.push([e, i]);
      }
      if (!forced) candidates.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      for (const [, i] of candidates) {
        if (i !== self.final) {
          if (removeFromSuccessors(i)) {
            self.lastij = i;
            yield i;
          }
          addToSuccessors(i);
        }
      }
    }

    function* last() {
      yield self.final;
    }

    this.squaregenerators = [first, second];
    for (let k = 0; k < m * n - 3; k++) this.squaregenerators.push(advance);
    this.squaregenerators.push(last);
  }

  coords2index(i, j) {
    return i * this.n + j;
  }

  initBoard() {
    const succs = this.succs;
    succs.length = 0;
    const offsets = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
    for (let i = 0; i < this.m; i++) {
      for (let j = 0; j < this.n; j++) {
        const s = [];
        for (const [io, jo] of offsets) {
          if (i + io >= 0 && i + io < this.m && j + jo >= 0 && j + jo < this.n) s.push(this.coords2index(i + io, j + jo));
        }
        succs.push(s);
      }
    }
  }

  *solve() {
    this.initBoard();
    yield* conjoin(this.squaregenerators);
  }
}

function run(size) {
  const side = 10;
  let tours = 0;
  let checksum = 0;
  let first = null;
  for (const tour of new Knights(side, side).solve()) {
    tours++;
    if (first === null) first = tour.slice();
    for (let k = 0; k < tour.length; k++) checksum = (checksum * 31 + tour[k] * (k + 1)) % 1000000007;
    if (tours === size) break;
  }
  return [`knights ${side}x${side}: ${tours} tours`, "first " + first.slice(0, 20).join(" "), `checksum ${checksum}`];
}

harness.main(run, 100);
