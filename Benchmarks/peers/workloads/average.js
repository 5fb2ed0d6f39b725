// A pipeline of coroutines driven with next(value): every value goes into a scaler, which
// sends it on to a running averager and passes the averager's answer back (each started with
// next()). SIZE values are sent.
"use strict";

const harness = require("./harness");

function* averager() {
  let total = 0.0;
  let count = 0;
  let average = null;
  for (;;) {
    const term = yield average;
    total += term;
    count++;
    average = total / count;
  }
}

function* scaler(factor, target) {
  let answer = null;
  for (;;) {
    const x = yield answer;
    answer = target.next(x * factor).value;
  }
}

function run(size) {
  const avg = averager();
  avg.next();
  const pipe = scaler(0.5, avg);
  pipe.next();
  let checksum = 0;
  let answer = null;
  for (let i = 0; i < size; i++) {
    answer = pipe.next(i % 1000).value;
    if (i % 1000 === 999) checksum += Math.trunc(answer * 1000);
  }
  return [`average of ${size} values: ${Math.trunc(answer * 1000)}/1000`, `checksum ${checksum}`];
}

harness.main(run, 1000);
