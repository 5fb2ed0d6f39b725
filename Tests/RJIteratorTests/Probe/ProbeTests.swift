import Foundation
import XCTest

import RJIterator

/// Runs the `rj-probe` program (built with the tests) and checks how it ended.
final class ProbeTests: XCTestCase {
    struct Outcome {
        var stdout: String
        var stderr: String
        var status: Int32
        var signaled: Bool
    }

    private func probe(_ mode: String, environment extra: [String: String] = [:]) throws -> Outcome {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let url = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("rj-probe")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            // `swift test` builds every product, rj-probe with it: missing, it is a failure, not
            // a skip (a skip would let CI pass without these checks).
            struct ProbeMissing: Error, CustomStringConvertible {
                let path: String
                var description: String { "rj-probe not found beside the test binary at \(path): build it (swift build --build-tests)" }
            }
            throw ProbeMissing(path: url.path)
        }
        let process = Process()
        process.executableURL = url
        process.arguments = [mode]
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        env.merge(extra) { _, new in new }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            status: process.terminationStatus,
            signaled: process.terminationReason == .uncaughtSignal)
    }

    /// The overflow message of a Generator made in the probe with a 64 KiB stack: its kind, its
    /// creation site and the remedy that exists for it (the default size does not apply to it).
    private let overflowMessage = "(stack size 64 KiB); make it with a larger stackSize (Generator(stackSize:))\n"
    private let overflowHead = "RJIterator: stack overflow in the Generator made at rj_probe/main.swift:"

    func testStackOverflowPrintsMessageAndAborts() throws {
        let r = try probe("overflow")
        XCTAssertTrue(r.stderr.contains(overflowHead), r.stderr)
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertEqual(r.status, SIGABRT)
        XCTAssertFalse(r.stdout.contains("probe finished"))
    }

    func testSharedStackOverflowPrintsMessageAndAborts() throws {
        try XCTSkipUnless(RJRuntime.sharedStacksAvailable, "this build has no fast backend")
        let r = try probe("overflow-shared")
        XCTAssertTrue(r.stderr.contains(overflowHead), r.stderr)
        XCTAssertTrue(r.stderr.contains("(stack size \(RJRuntime.defaultStackSize / 1024) KiB, "
                                        + "a shared run stack); make it with stackMode: .dedicated and a larger "
                                        + "stackSize"), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertEqual(r.status, SIGABRT)
        XCTAssertFalse(r.stdout.contains("probe finished"))
    }

    // The dump signal: the dump reaches stderr from the library's thread, the program goes on.
    func testTheDumpSignalWritesTheDumpAndTheProgramGoesOn() throws {
        // The probe's task stays stuck until the process ends, by design: what it holds (the
        // task, the await's token, the kept callback) is a cycle through its suspended stack,
        // which LeakSanitizer reports at exit whenever no stale copy of a pointer to it is left
        // on the main thread's stack. Leaks are not what this test is about.
        let r = try probe("dump-signal", environment: ["ASAN_OPTIONS": "detect_leaks=0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("still running, task finished: false"), r.stdout)
        XCTAssertTrue(r.stderr.contains("RJIterator: 2 coroutines (2 suspended"), r.stderr)
        XCTAssertTrue(r.stderr.contains("rj_async task, suspended in rj_await of a callback"), r.stderr)
        XCTAssertTrue(r.stderr.contains("[STUCK? callback not called after "), r.stderr)
        XCTAssertTrue(r.stderr.contains("rj_probe.probeParseLine("), r.stderr)
        XCTAssertTrue(r.stderr.contains("made at rj_probe/main.swift:"), r.stderr)
    }

    func testTheDumpSignalRefusesASignalThatCannotBeCaught() throws {
        try assertEachStops([("dump-signal-kill", "RJIterator: installDumpSignal cannot use signal 9")])
    }

    func testAStackSizeForASharedStackGeneratorIsRefused() throws {
        try assertEachStops([("stack-size-with-shared",
                              "RJIterator: stackSize does not apply to a shared-stack generator, which runs on a run stack of "
                                  + "RJRuntime.defaultStackSize; pass stackMode: .dedicated")])
    }

    // One stack-size rule, one message, for a generator's own size and for the default.
    func testStackSizesOutsideTheRuleStopTheProgramWithTheSameMessage() throws {
        for (mode, message) in [
            ("stack-size-too-small", "RJIterator: stackSize 1024 is below the minimum of 16384 bytes; pass at least 16 KiB"),
            ("default-stack-size-too-small",
             "RJIterator: RJRuntime.defaultStackSize 1024 is below the minimum of 16384 bytes; pass at least 16 KiB"),
            ("stack-size-too-large", "RJIterator: stackSize \(Int.max) is larger than any address space; pass at most"),
        ] {
            let r = try probe(mode)
            XCTAssertTrue(r.stderr.contains(message), "\(mode): \(r.stderr)")
            XCTAssertTrue(r.signaled, mode)
        }
    }

    // A stack the system cannot give (address space limited to what the process has and 256
    // MiB more; a 1 GiB stack): the first next throws an error that names the cause and the
    // knobs, and the generator stays `created`, so that a later next may succeed.
    func testStackTheSystemCannotGiveThrowsAClearError() throws {
        let r = try probe("stack-allocation-fails")
        XCTAssertTrue(r.stdout.contains("RJIterator: cannot allocate a generator stack of 1048576 KiB: mmap failed with ENOMEM"),
                      r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("RJRuntime.defaultStackSize"), r.stdout)
        XCTAssertTrue(r.stdout.contains("state created"), r.stdout)
        XCTAssertEqual(r.status, 0)
    }

    func testStackOverflowOnSecondaryThread() throws {
        let r = try probe("overflow-thread")
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
    }

    // A Generator made without a stackSize: both remedies apply (issue 29's newcomer raised the
    // default for a generator made with a size of its own, which the default does not reach).
    func testStackOverflowOfADefaultSizeGeneratorNamesBothRemedies() throws {
        let r = try probe("overflow-default-size")
        XCTAssertTrue(r.stderr.contains(overflowHead), r.stderr)
        XCTAssertTrue(r.stderr.contains("(stack size \(RJRuntime.defaultStackSize / 1024) KiB); make it with a stackSize larger "
                                        + "than the default (Generator(stackSize:)), or raise RJRuntime.defaultStackSize before it is made"),
                      r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
    }

    func testStackOverflowWithUContextBackend() throws {
        let r = try probe("overflow-ucontext")
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
    }

    func testFrameLargerThanTheOldGuardGivesTheOverflowMessage() throws {
        // 40 KiB of locals in a 16 KiB stack: the write lands 24+ KiB below the stack, inside
        // the 64 KiB default guard, not in a neighbouring mapping.
        let r = try probe("big-frame")
        XCTAssertTrue(r.stderr.contains("(stack size 16 KiB); make it with a larger stackSize (Generator(stackSize:))\n"), r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
        XCTAssertTrue(r.signaled)
    }

    // Issue 29: an rj_async body or an async generator takes no stackSize; the message names
    // what it is, where it was made, and the setting that exists.
    func testStackOverflowInAnRJAsyncBodyOrAnAsyncGeneratorNamesWhatToChange() throws {
        for (mode, kind) in [("overflow-rj-async", "rj_async body"), ("overflow-async-generator", "AsyncGenerator")] {
            let r = try probe(mode)
            XCTAssertTrue(r.stderr.contains("RJIterator: stack overflow in the \(kind) made at rj_probe/main.swift:"), "\(mode): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("raise RJRuntime.defaultStackSize"), "\(mode): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("larger stackSize"), "\(mode): names no parameter it lacks: \(r.stderr)")
            XCTAssertEqual(r.status, SIGABRT, mode)
        }
    }

    func testGuardIsInstalledBelowEveryStack() throws {
        // A write just below the usable stack, and one at the far end of the guard, both end
        // in the overflow message: the guard is there and as large as RJRuntime.guardSize says.
        for mode in ["write-below-stack", "write-guard-bottom"] {
            let r = try probe(mode)
            XCTAssertTrue(r.stderr.contains(overflowMessage), "\(mode): \(r.stderr)")
            XCTAssertEqual(r.status, SIGABRT, mode)
        }
    }

    func testSentSegvAndBusKillTheProcessAsWithoutThePackage() throws {
        // raise, kill and sigqueue after the handler was installed: the process dies of the
        // signal (the handler must not swallow it), and says nothing about generators.
        for (mode, signal) in [("raise-segv", SIGSEGV), ("kill-segv", SIGSEGV), ("sigqueue-segv", SIGSEGV),
                               ("raise-bus", SIGBUS)] {
            let r = try probe(mode)
            assertEndedAsWithoutThePackage(r, by: signal, mode)
            XCTAssertFalse(r.stdout.contains("survived"), mode)
        }
    }

    func testOtherFaultsGoToThePreviousHandler() throws {
        let r = try probe("segv-elsewhere")
        assertEndedAsWithoutThePackage(r, by: SIGSEGV, "segv-elsewhere")
    }

    /// The process died of `signal` as it would have without the package: killed by it, or,
    /// in a sanitized build, reported by the sanitizer (whose handler was there before ours)
    /// and ended with its exit code. Nothing said about generators.
    private func assertEndedAsWithoutThePackage(_ r: Outcome, by signal: Int32, _ mode: String) {
        XCTAssertFalse(r.stderr.contains("RJIterator"), "\(mode): \(r.stderr)")
        if RJRuntime.sanitizer != nil {
            XCTAssertNotEqual(r.status, 0, mode)
            XCTAssertTrue(r.stderr.contains("Sanitizer"), "\(mode): \(r.stderr)")
        } else {
            XCTAssertTrue(r.signaled, "\(mode) did not end the process: \(r.stdout)")
            XCTAssertEqual(r.status, signal, mode)
        }
    }

    func testForInBodyErrorStopsWithMessage() throws {
        let r = try probe("forin-throws")
        XCTAssertTrue(r.stdout.contains("got 1"))
        // Issue 29: outside any generator body there is nobody to give the error to; the message
        // names the idioms that throw, and (issue 54) the generator read.
        let line = try said(r, "made at line ")
        XCTAssertTrue(r.stderr.contains("RJIterator: a for-in outside any generator body read the Generator made at "
                                        + "rj_probe/main.swift:\(line), whose body threw Boom(); for-in cannot rethrow it."), r.stderr)
        XCTAssertTrue(r.stderr.contains("while let x = try g.nextValue()"), r.stderr)
        XCTAssertTrue(r.stderr.contains("try g.forEach"), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    // Issue 54: a body that reads its own generator with a for-in gets alreadyRunning there; the
    // for-in outside any body then stops, and its message leads with that mistake and its fix,
    // without quoting a second "RJIterator:" inside its own message.
    func testAForInOfABodyReadingItsOwnGeneratorLeadsWithThatMistake() throws {
        let r = try probe("forin-reads-itself")
        let site = "rj_probe/main.swift:\(try said(r, "made at line "))"
        XCTAssertTrue(r.stderr.contains("RJIterator: the body of the Generator made at \(site) read its own generator with a "
                                        + "for-in: a running generator cannot be read (GeneratorError.alreadyRunning)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Do not read a generator from its own body: yield the values there, or read another generator"),
                      r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "RJIterator:").count, 2, r.stderr)
        XCTAssertFalse(r.stdout.contains("got"), r.stdout)
        XCTAssertTrue(r.signaled)
    }

    // A recursive generator's levels are all made at one line: the message says the error came
    // from a for-in inside the body, which read another generator of that line, not that the
    // body read its own generator.
    func testAForInOfARecursiveGeneratorThatThrowsDoesNotSayItReadItself() throws {
        let r = try probe("forin-recursive-throws")
        let site = "rj_probe/main.swift:\(try said(r, "made at line "))"
        XCTAssertTrue(r.stderr.contains("RJIterator: a for-in outside any generator body read the Generator made at \(site), "
                                        + "whose body threw Deepest()"), r.stderr)
        XCTAssertTrue(r.stderr.contains("It comes from a for-in inside that generator's body, which read the Generator made at \(site)"),
                      r.stderr)
        XCTAssertFalse(r.stderr.contains("read its own generator"), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    func testGeneratorIgnoringCloseIsReportedAndAbandoned() throws {
        // The abandoned body leaks what its frames hold, by design and documented: in an ASan
        // build, LeakSanitizer is told not to fail the probe for it.
        let r = try probe("ignored-close", environment: ["ASAN_OPTIONS": "detect_leaks=0"])
        XCTAssertTrue(r.stderr.contains("RJIterator: generator ignored close"), r.stderr)
        // Where it was made and what to do (issue 40).
        XCTAssertTrue(r.stderr.contains("the generator made at rj_probe/main.swift:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("close it before releasing it (try gen.close())"), r.stderr)
        XCTAssertTrue(r.stdout.contains("still running"))
        XCTAssertEqual(r.status, 0)
    }

    // A cleanup that throws while release closes the body: the message names where the generator
    // was made, the error, and the fix (close it first, which throws the error).
    func testACleanupThatThrowsOnReleaseNamesWhereAndWhatToDo() throws {
        let r = try probe("cleanup-throws-on-release")
        XCTAssertTrue(r.stdout.contains("cleanup ran"), r.stdout)
        XCTAssertTrue(r.stderr.contains("RJIterator: the generator made at rj_probe/main.swift:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("threw CleanupFailed() from a cleanup while being closed on release"), r.stderr)
        XCTAssertTrue(r.stderr.contains("close the generator before releasing it: try gen.close() throws it"), r.stderr)
        XCTAssertTrue(r.stdout.contains("still running"))
        XCTAssertEqual(r.status, 0)
    }

    // Adoption (Adoption.swift): a body run on its delegator's stack is still its own body for
    // the misuse checks, and an overflow in it names it and the stack it was promised. The
    // message names the yielder's generator and the body that used it (issue 54).
    func testYieldersOfAdoptedBodiesAreCheckedAsAnyOther() throws {
        for (mode, owner, user) in [("adopted-outer-yielder", 1, 2), ("adopted-yielder-escape", 2, 1)] {
            let r = try probe(mode)
            let lines = try said(r, "outer made at line ").components(separatedBy: ", inner at line ")
            let site = { (n: Int) in "rj_probe/main.swift:\(lines[n - 1])" }
            XCTAssertTrue(r.stderr.contains("RJIterator: yield called outside its generator's body: the Yielder of the "
                                            + "Generator made at \(site(owner)) was used in the body of the Generator made at "
                                            + "\(site(user))."), "\(mode): \(r.stderr)")
            XCTAssertTrue(r.signaled, mode)
        }
    }

    func testOverflowInAnAdoptedBodyNamesIt() throws {
        let r = try probe("overflow-adopted")
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("adopted one made at line ") }?.split(separator: " ").last)
        XCTAssertTrue(r.stderr.contains("RJIterator: stack overflow in the Generator made at rj_probe/main.swift:\(line) "), r.stderr)
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    func testEscapedYielderStopsWithMessage() throws {
        let r = try probe("yielder-escape")
        XCTAssertTrue(r.stderr.contains("RJIterator: yield called outside its generator's body: the Yielder of the Generator "
                                        + "made at rj_probe/main.swift:\(try said(r, "made at line ")) was used where no "
                                        + "generator body runs"), r.stderr)
        XCTAssertTrue(r.stderr.contains("do not store it"), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    // The yielder's generator is gone by then, and another generator lives at its address: the
    // message names the old one, which the yielder carries, and the body that used it.
    func testEscapedYielderUsedInAGeneratorAtTheSameAddressStopsWithMessage() throws {
        // ASan's quarantine would keep the old address from being reused: turned off here.
        let r = try probe("yielder-reused-address", environment: ["ASAN_OPTIONS": "quarantine_size_mb=0"])
        XCTAssertTrue(r.stdout.contains("address reused after"), "the probe could not force the reuse: \(r.stdout)")
        XCTAssertTrue(r.stderr.contains("RJIterator: yield called outside its generator's body: the Yielder of the Generator "
                                        + "made at rj_probe/main.swift:\(try said(r, "a made at line ")) was used in the body "
                                        + "of the Generator made at rj_probe/main.swift:\(try said(r, "b made at line "))."), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertFalse(r.stdout.contains("probe finished"))
    }

    // Issue 53: rj_yield outside an RJIterator's body stops (the seed's returned nil, and the
    // value went nowhere), naming the call, where it was made and what to write there instead.
    func testRjYieldOutsideAnIteratorsBodyStopsNamingTheFix() throws {
        let head = "RJIterator: rj_yield called outside an RJIterator's body"
        try assertEachStops([
            ("rj-yield-no-body", head + " (no generator body runs on this thread)"),
            ("rj-yield-no-body", "in a Generator's body, yield with try y.yield(value)"),
            ("rj-yield-in-generator", head + ", in the body of the Generator made at rj_probe/main.swift:"),
            ("rj-yield-in-generator", "in a Generator's body, yield with try y.yield(value)"),
            ("rj-yield-in-rj-async", head + ", in the rj_async body made at rj_probe/main.swift:"),
            ("rj-yield-in-rj-async", "in an rj_async body, wait for work with rj_await(...)"),
            ("rj-yield-in-async-generator", head + ", in the body of the AsyncGenerator made at rj_probe/main.swift:"),
            ("rj-yield-in-async-generator", "in an AsyncGenerator's body, yield with try y.yield(value)"),
        ])
    }

    func testAsyncGeneratorMisuseStopsWithAClearMessage() throws {
        let cases = [
            ("async-yielder-escape", "RJIterator: yield called outside its async generator's body"),
            ("async-buffer-negative", "RJIterator: bufferingUpTo needs a capacity of 0 or more, got -1"),
        ]
        try assertEachStops(cases)
    }

    // Issue 30's review: the outer's forwarded close got CancellationError (a released async
    // generator's awaits cannot wait) and its body ended with it, reported on stderr.
    func testReleasingAnAsyncGeneratorDelegatingToAnotherClosesBothQuietly() throws {
        let r = try probe("async-delegation-release")
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init), ["first 1", "inner closed", "outer closed", "probe finished"],
                       r.stdout)
        XCTAssertFalse(r.stderr.contains("RJIterator:"), r.stderr)
    }

    // Issue 33: a released async generator is cancelled as well as closed, so a cleanup that
    // yields gets CancellationError and the body ends: nothing is abandoned and nothing is
    // reported (a Generator's body there is abandoned, "generator ignored close").
    func testAReleasedAsyncGeneratorWhoseCleanupYieldsEndsQuietly() throws {
        let r = try probe("async-release-cleanup-yields")
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init),
                       ["yield in cleanup threw CancellationError", "cleanup ran", "probe finished"], r.stdout)
        XCTAssertFalse(r.stderr.contains("RJIterator:"), r.stderr)
        XCTAssertEqual(r.status, 0)
    }

    // A released async generator whose body swallows the refusal and yields again ignored the
    // close: reported and its stack dropped, as a Generator's (the body's frames leak, as
    // documented: LeakSanitizer is told not to fail the probe for it). It looped forever on the
    // releasing thread before (every yield refused).
    func testAReleasedAsyncGeneratorThatSwallowsTheCloseIsAnIgnoredClose() throws {
        let r = try probe("async-release-cleanup-swallows", environment: ["ASAN_OPTIONS": "detect_leaks=0"])
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init),
                       ["swallowed GeneratorExit", "swallowed CancellationError", "probe finished"], r.stdout)
        XCTAssertTrue(r.stderr.contains("RJIterator: generator ignored close"), r.stderr)
        XCTAssertEqual(r.status, 0)
    }

    // Issue 52: a body that swallows the cancellation of its yields no longer holds its last
    // reader: the reader is answered within 200 ms, the body reported (it ignored its
    // cancellation) and closed as on release, its cleanups run.
    func testABodyThatSwallowsItsLastReadersCancellationIsReportedAndClosed() throws {
        let r = try probe("async-cancellation-swallowed")
        // The reader is answered first; the body is closed on the generator's queue meanwhile.
        XCTAssertEqual(Set(r.stdout.split(separator: "\n").map(String.init)),
                       ["body closed", "reader got CancellationError within 200 ms: true", "probe finished"], r.stdout)
        XCTAssertTrue(r.stderr.contains("RJIterator: the AsyncGenerator made at rj_probe/main.swift:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("ignored its cancellation"), r.stderr)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    // Issue 29: in every build (CI runs this suite optimised too), once per await, with the
    // await's file and line.
    func testACallbackCalledTwiceIsReportedOncePerAwaitWithItsSite() throws {
        let r = try probe("callback-twice")
        XCTAssertTrue(r.stdout.contains("values 1 4"), r.stdout)
        let reports = r.stderr.split(separator: "\n").filter { $0.contains("was called twice") }
        XCTAssertEqual(reports.count, 2, r.stderr)
        XCTAssertTrue(reports.allSatisfy { $0.hasPrefix("RJIterator: the callback of the rj_await at rj_probe/main.swift:") }, r.stderr)
        XCTAssertNotEqual(reports.first, reports.last, "each names its own await's line")
    }

    // Issue 29: a closure that reaches rj_await(value:) is not handed back uncalled.
    func testAClosureGivenToAwaitValueStopsWithTheTypedForm() throws {
        let r = try probe("await-value-closure")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertFalse(r.stdout.contains("not stopped"), r.stdout)
        XCTAssertTrue(r.stderr.contains("RJIterator: rj_await at rj_probe/main.swift:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("was given a closure, which it would return uncalled"), r.stderr)
        XCTAssertTrue(r.stderr.contains("use try rj_awaitValue { done in ... }"), r.stderr)
    }

    // Issue 29: runMainLoop off the main thread (as after a top-level await) names the remedy.
    func testRunMainLoopOffTheMainThreadNamesTheAsyncForm() throws {
        let r = try probe("run-main-loop-off-main")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("RJIterator: runMainLoop() must be called on the main thread"), r.stderr)
        XCTAssertTrue(r.stderr.contains("try await task.wait()"), r.stderr)
    }

    // Issue 29: rj_async on the main queue in a process whose main queue never runs says so.
    func testAMainQueueTaskThatNeverStartsIsReported() throws {
        let r = try probe("main-queue-never-runs")
        XCTAssertTrue(r.stderr.contains("RJIterator: the rj_async task made at rj_probe/main.swift:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("has not started after 2 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("task.runMainLoop()"), r.stderr)
    }

    func testReleasedSuspendedSeedIteratorGivesItsStackBack() throws {
        // Abandoning leaks what the frames hold (documented), so LeakSanitizer is told not to
        // fail the probe for it in an ASan build.
        let r = try probe("seed-abandon", environment: ["ASAN_OPTIONS": "detect_leaks=0"])
        XCTAssertTrue(r.stdout.contains("first 1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("live while suspended +1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("live after release +0"), r.stdout)
        XCTAssertTrue(r.stdout.contains("iterator freed: true"), r.stdout)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testBodyLeakingTheRoundingModeIsStoppedInDebugBuilds() throws {
        let r = try probe("fpu-leak")
        var debugBuild = false
        assert({ debugBuild = true; return true }())
        if !RJRuntime.switchesInline {
            // swapcontext and the out-of-line switch (sanitized builds) keep the state per side.
            XCTAssertTrue(r.stdout.contains("to nearest"), r.stdout)
            XCTAssertEqual(r.status, 0, r.stderr)
        } else if debugBuild {
            XCTAssertTrue(r.stderr.contains("RJIterator: the generator body changed the floating-point control state"),
                          r.stderr)
            XCTAssertTrue(r.signaled)
        } else {
            // Optimised builds do not check: the state belongs to the thread, as documented.
            XCTAssertTrue(r.stdout.contains("upward (leaked)"), r.stdout)
        }
    }

    func testBodyRestoringTheRoundingModeRunsInEveryBuild() throws {
        let r = try probe("fpu-restored")
        XCTAssertTrue(r.stdout.contains("to nearest"), r.stdout)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testNodeMisuseStopsWithAClearMessage() throws {
        let cases = [
            ("node-take-negative", "RJNodes: take needs a count of zero or more, got -1"),
            ("node-skip-negative", "RJNodes: skip needs a count of zero or more, got -2"),
            ("node-throttle-zero", "RJNodes: throttle needs a positive interval in seconds, got 0.0"),
            ("node-delay-negative", "RJNodes: delay needs a positive interval in seconds, got -1.0"),
            ("wait-for-promises-off", "RJPromises: waitForPromises needs Promises.isTestingMode = true"),
        ]
        try assertEachStops(cases)
    }

    /// Each probe mode stops the program (a signal, before the probe's last line) with its
    /// message on stderr.
    /// What follows `prefix` on the probe's line that starts with it (a line number it said).
    private func said(_ r: Outcome, _ prefix: String) throws -> String {
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no line \(prefix)in \(r.stdout)")
        return String(line.dropFirst(prefix.count))
    }

    private func assertEachStops(_ cases: [(mode: String, message: String)], file: StaticString = #filePath, line: UInt = #line) throws {
        for (mode, message) in cases {
            let r = try probe(mode)
            XCTAssertTrue(r.stderr.contains(message), "\(mode): \(r.stderr)", file: file, line: line)
            XCTAssertTrue(r.signaled, mode, file: file, line: line)
            XCTAssertFalse(r.stdout.contains("probe finished"), mode, file: file, line: line)
        }
    }
}
