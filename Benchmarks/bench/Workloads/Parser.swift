import RJIterator

// A tokenizer generator and a recursive-descent parser that pulls its tokens from it, one at a
// time, evaluating arithmetic (+ - * and parentheses, modulo 1,000,003), as
// Benchmarks/peers/workloads/parser.py and parser.js. SIZE random expressions; the input is
// made before the clock starts.
enum ParserWorkload {
    static let modulus = 1_000_003

    enum Token: Equatable {
        case number(Int)
        case op(UInt8)
        case end
    }

    static func makeExpression(_ rng: inout Lcg, _ depth: Int, _ out: inout String) {
        if depth > 3 || rng.next(3) == 0 {
            out += String(rng.next(100_000))
            return
        }
        out += "("
        makeExpression(&rng, depth + 1, &out)
        for _ in 0..<(1 + rng.next(3)) {
            out += [" + ", " - ", " * "][rng.next(3)]
            makeExpression(&rng, depth + 1, &out)
        }
        out += ")"
    }

    static func makeInput(_ size: Int) -> String {
        var rng = Lcg(7)
        var text = ""
        for _ in 0..<size {
            makeExpression(&rng, 0, &text)
            text += ";\n"
        }
        return text
    }

    static func tokens(_ text: [UInt8]) -> Generator<Token, Void, Void> {
        Generator { y in
            var i = 0
            while i < text.count {
                let c = text[i]
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) {
                    var value = 0
                    while i < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[i]) {
                        value = value * 10 + Int(text[i] - UInt8(ascii: "0"))
                        i += 1
                    }
                    try y.yield(.number(value))
                } else if c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") {
                    i += 1
                } else {
                    try y.yield(.op(c))
                    i += 1
                }
            }
            try y.yield(.end)
        }
    }

    struct UnexpectedToken: Error { let token: Token }

    final class Parser {
        let tokens: Generator<Token, Void, Void>
        var token = Token.end

        init(_ tokens: Generator<Token, Void, Void>) throws {
            self.tokens = tokens
            try advance()
        }

        func advance() throws { token = try tokens.nextValue() ?? .end }

        func expression() throws -> Int {
            var value = try term()
            while case .op(let op) = token, op == UInt8(ascii: "+") || op == UInt8(ascii: "-") {
                try advance()
                let right = try term()
                value = op == UInt8(ascii: "+") ? (value + right) % modulus : ((value - right) % modulus + modulus) % modulus
            }
            return value
        }

        func term() throws -> Int {
            var value = try factor()
            while token == .op(UInt8(ascii: "*")) {
                try advance()
                value = value * (try factor()) % modulus
            }
            return value
        }

        func factor() throws -> Int {
            switch token {
            case .number(let n):
                try advance()
                return n % modulus
            case .op(UInt8(ascii: "(")):
                try advance()
                let value = try expression()
                try advance()  // ")"
                return value
            default:
                throw UnexpectedToken(token: token)
            }
        }

        func statements() throws -> [Int] {
            var results: [Int] = []
            while token != .end {
                results.append(try expression())
                try advance()  // ";"
            }
            return results
        }
    }

    /// The input is made before the clock starts, as in the peers.
    static func run(_ size: Int) -> (lines: [String], nanoseconds: UInt64) {
        let text = makeInput(size)
        let bytes = Array(text.utf8)
        let t0 = now()
        let results = try! Parser(tokens(bytes)).statements()
        let elapsed = now() - t0
        var checksum = 0
        for r in results { checksum = (checksum * 31 + r) % 1_000_000_007 }
        return (["parsed \(results.count) statements from \(text.utf8.count) characters",
                 "first " + results.prefix(8).map(String.init).joined(separator: " "),
                 "checksum \(checksum)"], elapsed)
    }
}
