import Dispatch
import Foundation
import XCTest

@testable import RJIterator

/// A task in the seed's shape that calls back after `delay` seconds on a global queue.
func later(_ value: Any?, error: (any Error)? = nil, after delay: Double = 0.005) -> RJAsyncClosure {
    let box = UncheckedBox(value: value)
    return { callback in
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { callback(box.value, error) }
    }
}

/// What the rj_async and rj_await tests share: a serial queue for the bodies, marked so a
/// body can tell it runs there, and a way to run a body and wait for its `finally`.
class RJAsyncTestCase: XCTestCase {

    let queue = DispatchQueue(label: "rj.async.tests")
    let key = DispatchSpecificKey<String>()

    override func setUp() {
        super.setUp()
        queue.setSpecific(key: key, value: "body queue")
    }

    /// Runs `body` in rj_async on the test queue and waits for its finally.
    @discardableResult
    func runAsync(on q: DispatchQueue? = nil, timeout: Double = 10, _ body: @escaping @Sendable () -> Void) -> RJAsyncTask {
        let done = expectation(description: "finally")
        let task = rj_async(on: q ?? queue, body).finally { done.fulfill() }
        wait(for: [done], timeout: timeout)
        return task
    }
}

final class LockedCallback: @unchecked Sendable {
    private let lock = NSLock()
    private var callback: RJAsyncCallback?
    func set(_ callback: RJAsyncCallback?) { lock.withLock { self.callback = callback } }
    func call(_ value: Any?, _ error: (any Error)?) { lock.withLock { callback }?(value, error) }
}

/// Tasks collected from several threads.
final class LockedTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [RJAsyncTask] = []
    func add(_ task: RJAsyncTask) { lock.withLock { tasks.append(task) } }
    var all: [RJAsyncTask] { lock.withLock { tasks } }
}

/// A callback that answers `value` on another queue (for async generators' bodies) after `delay` seconds.
func answerLater<T: Sendable>(_ value: T, after delay: Double = 0.001) -> RJAsyncClosure {
    { callback in DispatchQueue.global().asyncAfter(deadline: .now() + delay) { callback(value, nil) } }
}

/// Counts events from several threads.
final class EventCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func add(_ key: String) { lock.withLock { counts[key, default: 0] += 1 } }
    subscript(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }
}

/// Waits (polling, up to 5 s) until `condition` holds.
func eventually(_ condition: @escaping @Sendable () -> Bool) async throws {
    for _ in 0..<500 where !condition() { try await Task.sleep(nanoseconds: 10_000_000) }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// `XCTAssertThrowsError` for an async expression.
func XCTAssertThrowsAsync<T>(_ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line,
                             _ check: (any Error) -> Void = { _ in }) async {
    do {
        _ = try await expression()
        XCTFail("no error thrown", file: file, line: line)
    } catch {
        check(error)
    }
}
