# A tokenizer generator and a recursive-descent parser that pulls its tokens from it, one at a
# time, evaluating arithmetic (+ - * and parentheses, modulo 1,000,003). The input is SIZE
# random expressions separated by ';', made by the same LCG as every language's version.
import sys
import time

from harness import Lcg

MOD = 1000003


def make_expression(rng, depth, parts):
    if depth > 3 or rng.next(3) == 0:
        parts.append(str(rng.next(100000)))
        return
    parts.append("(")
    make_expression(rng, depth + 1, parts)
    for _ in range(1 + rng.next(3)):
        parts.append(" " + "+-*"[rng.next(3)] + " ")
        make_expression(rng, depth + 1, parts)
    parts.append(")")


def make_input(size):
    rng = Lcg(7)
    parts = []
    for _ in range(size):
        make_expression(rng, 0, parts)
        parts.append(";\n")
    return "".join(parts)


def tokenize(text):
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isdigit():
            j = i + 1
            while j < n and text[j].isdigit():
                j += 1
            yield ("num", int(text[i:j]))
            i = j
        elif c in " \n":
            i += 1
        else:
            yield ("op", c)
            i += 1
    yield ("end", None)


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.advance()

    def advance(self):
        self.kind, self.value = next(self.tokens)

    def expression(self):
        value = self.term()
        while self.kind == "op" and self.value in "+-":
            op = self.value
            self.advance()
            right = self.term()
            value = (value + right) % MOD if op == "+" else (value - right) % MOD
        return value

    def term(self):
        value = self.factor()
        while self.kind == "op" and self.value == "*":
            self.advance()
            value = value * self.factor() % MOD
        return value

    def factor(self):
        if self.kind == "num":
            value = self.value % MOD
            self.advance()
            return value
        if self.kind == "op" and self.value == "(":
            self.advance()
            value = self.expression()
            self.advance()  # ")"
            return value
        raise ValueError("unexpected token %r" % (self.value,))

    def statements(self):
        results = []
        while self.kind != "end":
            results.append(self.expression())
            self.advance()  # ";"
        return results


def run(size):
    text = make_input(size)
    t0 = time.perf_counter_ns()
    results = Parser(tokenize(text)).statements()
    elapsed = time.perf_counter_ns() - t0
    checksum = 0
    for r in results:
        checksum = (checksum * 31 + r) % 1000000007
    return ["parsed %d statements from %d characters" % (len(results), len(text)),
            "first " + " ".join(map(str, results[:8])),
            "checksum %d" % checksum], elapsed


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    run(size)
    out, elapsed = run(size)
    print("\n".join(out))
    print("time_ns %d" % elapsed)


main()
