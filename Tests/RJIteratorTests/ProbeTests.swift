import Foundation
import XCTest

/// Runs the `rj-probe` program (built with the tests) and checks how it ended.
final class ProbeTests: XCTestCase {
    struct Outcome {
        var stdout: String
        var stderr: String
        var status: Int32
        var signaled: Bool
    }

    private func probe(_ mode: String) throws -> Outcome {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let url = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("rj-probe")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw XCTSkip("rj-probe not found beside the test binary at \(url.path)")
        }
        let process = Process()
        process.executableURL = url
        process.arguments = [mode]
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
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

    private let overflowMessage =
        "RJIterator: generator stack overflow (stack size 64 KiB); create the generator with a larger stackSize"

    func testStackOverflowPrintsMessageAndAborts() throws {
        let r = try probe("overflow")
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertEqual(r.status, SIGABRT)
        XCTAssertFalse(r.stdout.contains("probe finished"))
    }

    func testStackOverflowOnSecondaryThread() throws {
        let r = try probe("overflow-thread")
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
    }

    func testStackOverflowWithUContextBackend() throws {
        let r = try probe("overflow-ucontext")
        XCTAssertTrue(r.stderr.contains(overflowMessage), r.stderr)
        XCTAssertEqual(r.status, SIGABRT)
    }

    func testOtherFaultsGoToThePreviousHandler() throws {
        let r = try probe("segv-elsewhere")
        XCTAssertFalse(r.stderr.contains("RJIterator"), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertEqual(r.status, SIGSEGV)
    }

    func testForInBodyErrorStopsWithMessage() throws {
        let r = try probe("forin-throws")
        XCTAssertTrue(r.stdout.contains("got 1"))
        XCTAssertTrue(r.stderr.contains("RJIterator: the generator threw Boom() during for-in"), r.stderr)
        XCTAssertTrue(r.stderr.contains("try generator.forEach"), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    func testGeneratorIgnoringCloseIsReportedAndAbandoned() throws {
        let r = try probe("ignored-close")
        XCTAssertTrue(r.stderr.contains("RJIterator: generator ignored close"), r.stderr)
        XCTAssertTrue(r.stdout.contains("still running"))
        XCTAssertEqual(r.status, 0)
    }

    func testEscapedYielderStopsWithMessage() throws {
        let r = try probe("yielder-escape")
        XCTAssertTrue(r.stderr.contains("RJIterator: yield called outside its generator's body"), r.stderr)
        XCTAssertTrue(r.signaled)
    }

    func testEscapedYielderUsedInAGeneratorAtTheSameAddressStopsWithMessage() throws {
        let r = try probe("yielder-reused-address")
        XCTAssertTrue(r.stdout.contains("address reused after"), "the probe could not force the reuse: \(r.stdout)")
        XCTAssertTrue(r.stderr.contains("RJIterator: yield called outside its generator's body"), r.stderr)
        XCTAssertTrue(r.signaled)
        XCTAssertFalse(r.stdout.contains("probe finished"))
    }

    func testNodeMisuseStopsWithAClearMessage() throws {
        let cases = [
            ("node-take-negative", "RJIterator: take needs a count of zero or more, got -1"),
            ("node-skip-negative", "RJIterator: skip needs a count of zero or more, got -2"),
            ("node-throttle-zero", "RJIterator: throttle needs a positive interval in seconds, got 0.0"),
            ("node-delay-negative", "RJIterator: delay needs a positive interval in seconds, got -1.0"),
        ]
        for (mode, message) in cases {
            let r = try probe(mode)
            XCTAssertTrue(r.stderr.contains(message), "\(mode): \(r.stderr)")
            XCTAssertTrue(r.signaled, mode)
        }
    }
}
