import XCTest

@testable import RJIterator

// GeneratorExit caught by type, beside Python's (issue 29), and receive-only coroutines.

final class GeneratorExitTests: XCTestCase {
    private struct Boom: Error {}

    /// Python: `try: ... except GeneratorExit: flush(); raise`. The lexer of a streaming parser
    /// flushes its last token when closed.
    private func lexer(_ log: Log) -> Generator<String, Character, Void> {
        Generator { y in
            var token = ""
            do {
                while true {
                    let c = try y.yield(token)
                    token = c == " " ? "" : token + String(c)
                }
            } catch let exit as GeneratorExit {
                log.add("flushed \(token)")
                throw exit
            } catch {
                log.add("other \(error)")
                throw error
            }
        }
    }

    func testAClosedBodyCatchesGeneratorExitAloneAndTheCloseCompletes() throws {
        let log = Log()
        let lex = lexer(log)
        try lex.start()
        _ = try lex.send("a")
        _ = try lex.send("b")
        try lex.close()
        XCTAssertEqual(log.all, ["flushed ab"])
        XCTAssertEqual(lex.state, .completed)
        XCTAssertThrowsError(try lex.next("c")) { XCTAssertEqual($0 as? GeneratorError, .closed) }
    }

    func testReturnIsAGeneratorExitToo() throws {
        let log = Log()
        let g = Generator<Int, Void, String> { y in
            do { try y.yield(1) } catch let exit as GeneratorExit {
                log.add("exit")
                throw exit
            }
            return "end"
        }
        _ = try g.next()
        XCTAssertEqual(try g.return("early"), .returned("early"))
        XCTAssertEqual(log.all, ["exit"])
    }

    // Python: gen.throw(ValueError) is never caught by `except GeneratorExit`.
    func testAThrownInErrorIsNeverTakenForIt() throws {
        let log = Log()
        let lex = lexer(log)
        try lex.start()
        XCTAssertThrowsError(try lex.throw(Boom())) { XCTAssertTrue($0 is Boom) }
        XCTAssertEqual(log.all, ["other Boom()"])
    }

    func testReleaseThrowsItToo() throws {
        let log = Log()
        do {
            let lex = lexer(log)
            try lex.start()
            _ = try lex.send("x")
        }
        XCTAssertEqual(log.all, ["flushed x"])
    }

    // Unchanged: swallowing it and yielding again is an ignored close (Python's RuntimeError).
    func testSwallowingItAndYieldingIsAnIgnoredClose() throws {
        let g = Generator<Int, Void, Void> { y in
            do { try y.yield(1) } catch is GeneratorExit {}
            try y.yield(2)
        }
        _ = try g.next()
        XCTAssertThrowsError(try g.close()) { XCTAssertEqual($0 as? GeneratorError, .ignoredClose) }
        XCTAssertEqual(g.state, .suspended)
    }

    func testItSaysWhatItIs() {
        let g = Generator<String, Void, Void> { y in
            do { try y.yield("") } catch { try? y.yield("\(error)"); throw error }
        }
        _ = try? g.next()
        XCTAssertEqual(try? g.return(()).yieldedValue,
                       "RJIterator: the generator is being closed (GeneratorExit); let this go on after the cleanup")
    }

    // A receive-only coroutine (Python's `x = yield`, primed with next(gen)): receive() where
    // the element is Void, primed with start(), fed with send.
    func testAReceiveOnlySink() throws {
        let log = Log()
        let sink = Generator<Void, String, Void> { y in
            defer { log.add("closed") }
            while true { log.add(try y.receive()) }
        }
        try sink.start()
        try sink.send("a")
        try sink.send("b")
        try sink.close()
        XCTAssertEqual(log.all, ["a", "b", "closed"])
    }

    func testAReceiveOnlyAsyncSink() async throws {
        let log = Log()
        let sink = AsyncGenerator<Void, String, Void> { y in
            while true { log.add(try y.receive()) }
        }
        _ = try await sink.next("ignored, as every first input")
        _ = try await sink.next("a")
        _ = try await sink.next("b")
        XCTAssertEqual(log.all, ["a", "b"])
    }
}
