import CRJContext
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

/// The inner generator of a delegation test, made in one of the two ways a delegate runs, so
/// that a test runs both: adopted (a temporary that the delegating body holds alone, it runs on
/// that body's stack: Adoption.swift) or on a stack of its own (held by the test too). Its body
/// takes a reference to its generator as it starts (after an adoption has been decided), so that
/// the test reads `generator` after the delegation; the delegation checks it ran as asked.
final class Delegate<Element, Input, Return> {
    let adopted: Bool
    private let body: (Yielder<Element, Input>) throws -> Return
    private var made: Generator<Element, Input, Return>?

    init(adopted: Bool, _ body: @escaping (Yielder<Element, Input>) throws -> Return) {
        self.adopted = adopted
        self.body = body
        if !adopted { made = make() }
    }

    private func make() -> Generator<Element, Input, Return> {
        let itself = Box<Unmanaged<Generator<Element, Input, Return>>?>(nil)
        let body = self.body
        let generator = Generator<Element, Input, Return> { [weak self] y in
            self?.made = itself.value?.takeUnretainedValue()
            return try body(y)
        }
        itself.value = Unmanaged.passUnretained(generator)
        return generator
    }

    /// `y.yieldAll` of the delegate, from the body `y` was given to.
    func yieldAll(from y: Yielder<Element, Input>, file: StaticString = #filePath, line: UInt = #line) throws -> Return {
        let mayAdopt = adoptionFits()
        defer {
            if let mayAdopt {
                XCTAssertEqual(made?.machine.ranAdopted, adopted && mayAdopt, adopted ? "not adopted" : "adopted", file: file, line: line)
            }
        }
        return try y.yieldAll(adopted ? make() : made!)
    }

    /// The delegate, once its body has started.
    var generator: Generator<Element, Input, Return> { made! }
}

/// Runs `body` for both kinds of delegate (`Delegate`), each on both backends.
func onBothBackendsAndDelegates(_ body: (_ adopted: Bool) throws -> Void) rethrows {
    for adopted in [true, false] {
        try onBothBackends { try body(adopted) }
    }
}

extension Yielder {
    /// `yieldAll(inner)` of a fresh `inner` (a temporary), adopted (this body holds it alone) or on
    /// a stack of its own (held here a second time), as `adopted` says; checks it ran that way.
    func yieldAll<R>(_ inner: Generator<Element, Input, R>, adopted: Bool, file: StaticString = #filePath,
                     line: UInt = #line) throws -> R {
        let second = adopted ? nil : inner
        let itself = Unmanaged.passUnretained(inner)
        let mayAdopt = adoptionFits()
        defer {
            if let mayAdopt {
                XCTAssertEqual(itself.takeUnretainedValue().machine.ranAdopted, adopted && mayAdopt,
                               adopted ? "not adopted" : "adopted", file: file, line: line)
            }
            withExtendedLifetime(second) {}
        }
        return try yieldAll(inner)
    }
}

/// Whether a fresh delegate of the body running on this thread can be adopted: false on a
/// shared-stack coroutine past its bound (a debug build's frames reach it within two levels);
/// nil within a kilobyte of the bound, where the frames between here and the check decide.
func adoptionFits() -> Bool? {
    guard let current = rj_coro_current() else { return false }
    if rj_coro_is_shared(current) == 0 { return true }
    let used = rj_coro_stack_used(current), bound = rj_shared_adopt_bound()
    if used + 1024 < bound { return true }
    if used > bound + 1024 { return false }
    return nil
}

/// Whether the body running on this thread runs adopted on another's stack (Adoption.swift).
func runningBodyIsAdopted() -> Bool {
    guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { return false }
    return Unmanaged<_RJCoroutineHost>.fromOpaque(owner).takeUnretainedValue().adoption != nil
}
