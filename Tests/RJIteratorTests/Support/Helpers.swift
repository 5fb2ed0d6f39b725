import Foundation
import XCTest

@testable import RJIterator

struct TestError: Error, Equatable {
    let code: Int
}

/// Moves a non-Sendable value to another thread in a test that makes sure the two threads
/// never touch it at once (what a generator's user vouches for).
final class UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Records events from several threads.
final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.withLock { items.append(s) } }
    var all: [String] { lock.withLock { items } }
    func clear() { lock.withLock { items = [] } }
}

/// Counts live instances, to prove a stack's references are released.
final class Tracked {
    nonisolated(unsafe) static var alive = 0
    static let lock = NSLock()
    init() { Tracked.lock.withLock { Tracked.alive += 1 } }
    deinit { Tracked.lock.withLock { Tracked.alive -= 1 } }
    static var count: Int { lock.withLock { alive } }
}

/// Runs `body` on a new thread and waits for it.
func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
    done.wait()
}

func yieldedValues<E, R>(_ gen: Generator<E, Void, R>) throws -> [E] {
    var out: [E] = []
    while case .yielded(let x) = try gen.next() { out.append(x) }
    return out
}

/// Runs `body` once with generators on the fast backend and once on the ucontext backend
/// (where the build has only ucontext, twice on it). Restores the build's default.
func onBothBackends(_ body: () throws -> Void) rethrows {
    defer { RJRuntime.useUContextBackend(false) }
    RJRuntime.useUContextBackend(false)
    try body()
    RJRuntime.useUContextBackend(true)
    try body()
}

/// How much more stack a frame takes in this build: instrumented builds (ASan's redzones,
/// TSan's bookkeeping) take several times what a plain one does, so tests that size a stack
/// for a depth scale it by this.
let sanitizerStackFactor = RJRuntime.sanitizer == nil ? 1 : 8

/// How many coroutines a test keeps alive at once, divided in an instrumented build: a
/// sanitizer maps shadow memory and a fiber for every stack, and thousands of them at once
/// exhaust the process's memory map areas (vm.max_map_count) under ThreadSanitizer.
func aliveAtOnce(_ count: Int) -> Int {
    RJRuntime.sanitizer == nil ? count : count / 5
}

/// For the tests of what a dedicated stack is (backends, the pool, stack statistics): they
/// run with dedicated stacks also when the suite runs with shared ones (`RJ_STACK_MODE=shared`).
class DedicatedStackTestCase: XCTestCase {
    private var modeBefore = StackMode.dedicated

    override func setUp() {
        super.setUp()
        modeBefore = RJRuntime.defaultStackMode
        RJRuntime.defaultStackMode = .dedicated
    }

    override func tearDown() {
        RJRuntime.defaultStackMode = modeBefore
        super.tearDown()
    }
}

/// Bodies that hold a stack or a shared-stack record: generators started and not yet ended or
/// released, whatever their stack mode.
var liveBodies: Int { RJRuntime.liveStackCount + RJRuntime.sharedGeneratorCount }
