import Foundation
import XCTest

@testable import RJIterator
import CRJContext

/// The backend of the coroutine running this code.
private func runningBackend() -> rj_backend? {
    rj_coro_current().map { rj_coro_backend($0) }
}

final class ContextBackendTests: XCTestCase {
    func testBackendIsTheOneThisBuildAskedFor() throws {
        // CI runs the suite twice and says which backend each run must use.
        let expected = ProcessInfo.processInfo.environment["RJ_EXPECT_BACKEND"]
        let backend = RJRuntime.contextBackend
        XCTAssertEqual(Generator<Int, Void, Void>.contextBackend, backend)
        switch expected {
        case "ucontext"?:
            XCTAssertEqual(backend, "ucontext")
        case "fast"?:
            XCTAssertTrue(backend.hasPrefix("fast"), backend)
        default:
            #if arch(x86_64) || arch(arm64)
            XCTAssertTrue(backend.hasPrefix("fast") || backend == "ucontext", backend)
            #else
            XCTAssertEqual(backend, "ucontext")
            #endif
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

    func testStackSizeBelowMinimumIsRejectedByTheCore() {
        let saved = RJRuntime.defaultStackSize
        defer { RJRuntime.defaultStackSize = saved }
        RJRuntime.defaultStackSize = 1024
        XCTAssertEqual(RJRuntime.defaultStackSize, RJRuntime.minimumStackSize)
    }

    func testGuardIsInstalledBelowEveryStack() throws {
        XCTAssertGreaterThanOrEqual(RJRuntime.guardSize, 4096)
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
}
