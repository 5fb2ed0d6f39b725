import Foundation
import XCTest

@testable import RJIterator
import CRJContext

/// The backend of the coroutine running this code.
private func runningBackend() -> rj_backend? {
    rj_coro_current().map { rj_coro_backend($0) }
}

final class ContextBackendTests: DedicatedStackTestCase {
    func testBackendIsTheOneThisBuildAskedFor() throws {
        // CI says which backend each run must use (RJ_EXPECT_BACKEND); without it, the default
        // build is expected: the fast switch where it exists. Checked on a running body, not
        // only by name.
        let expected = ProcessInfo.processInfo.environment["RJ_EXPECT_BACKEND"] ?? {
            #if arch(x86_64) || arch(arm64)
            return "fast"
            #else
            return "ucontext"
            #endif
        }()
        let name = RJRuntime.contextBackend
        // The old spelling, deprecated (issue 30: one place for the setting), still answers.
        XCTAssertEqual(oldContextBackend(of: Generator<Int, Void, Void>.self), name)
        let gen = Generator<rj_backend?, Void, Void> { y in try y.yield(runningBackend()) }
        let running = try XCTUnwrap(gen.next().yieldedValue)
        switch expected {
        case "ucontext":
            XCTAssertEqual(name, "ucontext")
            XCTAssertEqual(running, RJ_BACKEND_UCONTEXT)
        case "fast":
            XCTAssertTrue(name.hasPrefix("fast"), name)
            XCTAssertEqual(running, RJ_BACKEND_FAST)
        default:
            XCTFail("RJ_EXPECT_BACKEND must be fast or ucontext, not \(expected)")
        }
    }

    func testUContextBackendRunsGeneratorsInTheSameProcess() throws {
        RJRuntime.useUContextBackend(true)
        defer { RJRuntime.useUContextBackend(false) }
        XCTAssertEqual(RJRuntime.contextBackend, "ucontext")
        var log: [String] = []
        let inner = Generator<Int, Int, Int> { y in
            defer { log.append("inner defer") }
            log.append(runningBackend() == RJ_BACKEND_UCONTEXT ? "ucontext" : "other")
            return try y.yield(1) + 100
        }
        let gen = Generator<Int, Int, Int> { y in
            var sum = try y.yieldAll(inner)
            sum += try y.yield(2)
            return sum
        }
        XCTAssertEqual(try gen.next(0), .yielded(1))
        XCTAssertEqual(try gen.next(5), .yielded(2))
        XCTAssertEqual(try gen.next(7), .returned(112))
        XCTAssertEqual(log, ["ucontext", "inner defer"])
    }

    func testBackendsMixInOneNest() throws {
        RJRuntime.useUContextBackend(true)
        let slow = Generator<Int, Void, Void> { y in
            precondition(runningBackend() == RJ_BACKEND_UCONTEXT)
            for i in 0..<3 { try y.yield(i) }
        }
        RJRuntime.useUContextBackend(false)
        let fast = Generator<Int, Void, Void> { y in
            if RJRuntime.fastBackendAvailable { precondition(runningBackend() == RJ_BACKEND_FAST) }
            while case .yielded(let v) = try slow.next() { try y.yield(v * 10) }
        }
        XCTAssertEqual(try yieldedValues(fast), [0, 10, 20])
    }

    func testExclusivityFastPathIsFoundOnLinux() throws {
        #if os(Linux)
        if ProcessInfo.processInfo.environment["RJ_EXCLUSIVITY_SLOW_PATH"].map({ $0 != "" && $0 != "0" }) == true {
            XCTAssertEqual(rj_exclusivity_fast_path(), 0)
        } else {
            // The probe found the runtime's access-set head in libswiftCore's thread-local
            // block; if a toolchain changes that layout, this fails and says so.
            XCTAssertEqual(rj_exclusivity_fast_path(), 1, "the exclusivity fast path was not found")
            let result = UnsafeTransfer(Log())
            onOtherThread { result.value.add("\(rj_exclusivity_fast_path())") }
            XCTAssertEqual(result.value.all, ["1"], "every thread finds it")
        }
        #endif
    }

    // The one stack-size rule: the C core refuses a default below the minimum and keeps the
    // old one (the Swift setter stops the program first: ProbeTests).
    func testStackSizeBelowMinimumIsRejectedByTheCore() {
        let saved = RJRuntime.defaultStackSize
        XCTAssertEqual(rj_set_default_stack_size(1024), -1)
        XCTAssertEqual(RJRuntime.defaultStackSize, saved)
        XCTAssertEqual(String(cString: rj_last_error()),
                       "RJIterator: RJRuntime.defaultStackSize 1024 is below the minimum of 16384 bytes; pass at least 16 KiB")
        XCTAssertEqual(rj_check_stack_size(16 * 1024, "stackSize"), 0)
    }

    func testGuardIsAtLeast64KiBAndUsesMadviseOnNewKernels() throws {
        // That the guard is really there is checked in a child process (ProbeTests).
        XCTAssertGreaterThanOrEqual(RJRuntime.guardSize, 64 * 1024)
        let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
        _ = try gen.next()
        #if os(Linux)
        // The machines this project targets run Linux 6.13 or later.
        let release = ProcessInfo.processInfo.operatingSystemVersion
        if release.majorVersion > 6 || (release.majorVersion == 6 && release.minorVersion >= 13) {
            XCTAssertTrue(RJRuntime.guardUsesMadvise)
        }
        #endif
    }

    func testGuardSizeIsConfigurableAndRoundedToPages() throws {
        let saved = RJRuntime.guardSize
        defer { RJRuntime.guardSize = saved }
        RJRuntime.guardSize = 100_000
        XCTAssertEqual(RJRuntime.guardSize % 4096, 0)
        XCTAssertGreaterThanOrEqual(RJRuntime.guardSize, 100_000)
        let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
        XCTAssertEqual(try gen.next().yieldedValue, 1)
    }

    func testChangingTheDefaultStackSizeDrainsThePool() throws {
        let saved = RJRuntime.defaultStackSize
        defer { RJRuntime.defaultStackSize = saved }
        _ = try Generator<Int, Void, Void> { y in try y.yield(1) }.next()
        XCTAssertGreaterThan(RJRuntime.pooledStackCount, 0)
        RJRuntime.defaultStackSize = saved * 2
        XCTAssertEqual(RJRuntime.pooledStackCount, 0, "stacks of the old size would never be reused")
    }
}

/// `Generator.contextBackend`, deprecated for `RJRuntime.contextBackend`: read through a
/// protocol it satisfies, so the test checks the old name without a deprecation warning.
private protocol HasContextBackend { static var contextBackend: String { get } }
extension Generator: HasContextBackend {}
private func oldContextBackend<T: HasContextBackend>(of _: T.Type) -> String { T.contextBackend }
