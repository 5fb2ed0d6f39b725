// A tokenizer generator and a recursive-descent parser that pulls its tokens from it, one at a
// time, evaluating arithmetic (+ - * and parentheses, modulo 1,000,003). The input is SIZE
// random expressions separated by ';', made by the same LCG as every language's version.
"use strict";

const { Lcg } = require("./harness");

const MOD = 1000003;

function makeExpression(rng, depth, parts) {
  if (depth > 3 || rng.next(3) === 0) {
    parts.push(String(rng.next(100000)));
    return;
  }
  parts.push("(");
  makeExpression(rng, depth + 1, parts);
  const n = 1 + rng.next(3);
  for (let k = 0; k < n; k++) {
    parts.push(" " + "+-*"[rng.next(3)] + " ");
    makeExpression(rng, depth + 1, parts);
  }
  parts.push(")");
}

function makeInput(size) {
  const rng = new Lcg(7);
  const parts = [];
  for (let k = 0; k < size; k++) {
    makeExpression(rng, 0, parts);
    parts.push(";\n");
  }
  return parts.join("");
}

function isDigit(c) {
  return c >= "0" && c <= "9";
}

function* tokenize(text) {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (isDigit(c)) {
      let j = i + 1;
      while (j < n && isDigit(text[j])) j++;
      yield ["num", Number(text.slice(i, j))];
      i = j;
    } else if (c === " " || c === "\n") {
      i++;
    } else {
      yield ["op", c];
      i++;
    }
  }
  yield ["end", null];
}

class Parser {
  constructor(tokens) {
    this.tokens = tokens;
    this.advance();
  }

  advance() {
    [this.kind, this.value] = this.tokens.next().value;
  }

  expression() {
    let value = this.term();
    while (this.kind === "op" && (this.value === "+" || this.value === "-")) {
      const op = this.value;
      this.advance();
      const right = this.term();
      value = op === "+" ? (value + right) % MOD : (((value - right) % MOD) + MOD) % MOD;
    }
    return value;
  }

  term() {
    let value = this.factor();
    while (this.kind === "op" && this.value === "*") {
      this.advance();
      value = (value * this.factor()) % MOD;
    }
    return value;
  }

  factor() {
    if (this.kind === "num") {
      const value = this.value % MOD;
      this.advance();
      return value;
    }
    if (this.kind === "op" && this.value === "(") {
      this.advance();
      const value = this.expression();
      this.advance(); // ")"
      return value;
    }
    throw new Error(`unexpected token ${this.value}`);
  }

  statements() {
    const results = [];
    while (this.kind !== "end") {
      results.push(this.expression());
      this.advance(); // ";"
    }
    return results;
  }
}

function run(size) {
  const text = makeInput(size);
  const t0 = process.hrtime.bigint();
  const results = new Parser(tokenize(text)).statements();
  const elapsed = process.hrtime.bigint() - t0;
  let checksum = 0;
  for (const r of results) checksum = (checksum * 31 + r) % 1000000007;
  return [[`parsed ${results.length} statements from ${text.length} characters`, "first " + results.slice(0, 8).join(" "),
           `checksum ${checksum}`], elapsed];
}

const size = Number(process.argv[2] || 100);
run(size);
const [out, elapsed] = run(size);
console.log(out.join("\n"));
console.log(`time_ns ${elapsed}`);
