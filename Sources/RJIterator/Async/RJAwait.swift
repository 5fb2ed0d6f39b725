import Foundation
import RJLocks
import RJPromises

/// Waits, inside an ``rj_async(on:file:line:_:)`` body, for an asynchronous task to call its callback,
/// without blocking the body's queue; returns the callback's value and error.
///
/// - Outside an `rj_async` body: ``RJAsyncError/notInAsync`` at once; in a cancelled task,
///   `CancellationError` at once. The body resumes on its own queue, whichever thread called.
/// - A callback called twice: the second call is ignored and reported on stderr with this
///   await's `file` and `line` (leave them out); released uncalled: ``RJAsyncError/callbackDropped``.
/// - `task` is called once, before `rj_await` returns, and not kept: it need not be
///   `@Sendable`; the callback it is given is (the work may call it from any thread).
///
/// ```swift
/// rj_async {
///     let r = rj_await(self.login(account: "112233", pwd: "445566"))
///     if let error = r.error { print("login failed: \(error)") }
/// }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_await(_ task: (@escaping RJAsyncCallback) -> Void, file: StaticString = #fileID, line: UInt = #line) -> RJResult {
    awaitCallback(as: .callback, site: AwaitSite(file: file, line: line)) { callback in
        task { value, error in callback(value, error) }
    }
}

/// Waits, inside an `rj_async` body, for `promise` to settle: the result carries its value or
/// its error. Cancelling the task cancels the promise.
///
/// ```swift
/// rj_async { if let image = rj_await(fetchImage(url)).value as? Image { show(image) } }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_await<T>(_ promise: Promise<T>) -> RJResult {
    // Inlined, so that a settled promise is read in code specialised for `T`: no generic
    // metadata to look up, no suspension, no allocation.
    switch awaitingTaskState() {
    case .none:
        return RJResult(value: nil, error: RJAsyncError.notInAsync)
    case .cancelled(let error):
        promise.cancel()
        return RJResult(value: nil, error: error)
    case .running:
        if let settled = promise.settledResult { return RJResult(settled) }
        return awaitPending(promise)
    }
}

/// Where the code calling `rj_await` runs.
@usableFromInline
enum AwaitingTaskState {
    case none, running
    /// The body's host was cancelled: its awaits give this error at once.
    case cancelled(any Error)
}

@usableFromInline
func awaitingTaskState() -> AwaitingTaskState {
    guard let current = _RJAwaitHost.currentUnretained else { return .none }
    return current._withUnsafeGuaranteedRef { $0.isCancelled ? .cancelled(CancellationError()) : .running }
}

/// `rj_await(promise)` of a pending promise: suspends until it settles.
@usableFromInline
func awaitPending<T>(_ promise: Promise<T>) -> RJResult {
    guard let current = _RJAwaitHost.current else { return RJResult(value: nil, error: RJAsyncError.notInAsync) }
    guard let generation = current.beginAwait(.promise) else {
        promise.cancel()
        return RJResult(value: nil, error: CancellationError())
    }
    current.setStop({ promise.cancel() }, for: generation)
    promise.whenSettled { result in current.completeAwait(RJResult(result), for: generation) }
    return current.suspend(awaiting: generation)
}

/// An await of an untyped callback (`RJAsyncCallback`), as the seed's result.
private func awaitCallback(as kind: AwaitKind, count: Int = 0, timeout: Double? = nil, site: AwaitSite,
                           _ start: (CallbackOf<Any>) -> Void) -> RJResult {
    var outcome = CallbackOutcome<Any>()
    if let later = awaitCallback(into: &outcome, as: kind, count: count, timeout: timeout, site: site, start) { return later.result }
    return RJResult(value: outcome.value, error: outcome.error, done: false)
}

/// A plain value comes straight back as the result's value, without suspending, as in the
/// seed; outside a body or once cancelled it answers as every form does. Why it is labelled,
/// and why a closure given here stops the program: docs/async.md ("`rj_await`"). Disfavoured,
/// so a callback of optional values goes to ``rj_await(_:file:line:)-((RJAsyncCallback)->Void,_,_)``.
///
/// ```swift
/// rj_await(value: 42).value   // 42
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@_disfavoredOverload
public func rj_await(value: Any?, file: StaticString = #fileID, line: UInt = #line) -> RJResult {
    if let value, isFunction(value) {
        fatalError("RJIterator: rj_await at \(file):\(line) was given a closure, which it would return uncalled: "
                   + "rj_await { callback in ... } takes a callback of (Any?, Error?); for a typed callback "
                   + "((Int) -> Void, (Result<T, Error>) -> Void, (T?, Error?) -> Void) use try rj_awaitValue { done in ... }")
    }
    // Answers as every other form does: outside a body, or once the task is cancelled, with the
    // error that form would give, so that a loop of rj_awaits ends the same whatever it awaits.
    switch awaitingTaskState() {
    case .none: return RJResult(value: nil, error: RJAsyncError.notInAsync)
    case .cancelled(let error): return RJResult(value: nil, error: error)
    case .running: return RJResult(value: value, error: nil, done: false)
    }
}

/// Whether `value` is a function (Swift's function metadata kind, 0x302 in the stable ABI).
private func isFunction(_ value: Any) -> Bool {
    unsafeBitCast(type(of: value), to: UnsafeRawPointer.self).load(as: UInt.self) == 0x302
}

/// `rj_await(_:)` with a deadline: if `task` has not called back within `timeout`
/// seconds, the result's error is ``RJAsyncError/timedOut`` (a later callback is ignored).
///
/// ```swift
/// let r = rj_await(slowRequest(), timeout: 2)
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_await(_ task: (@escaping RJAsyncCallback) -> Void, timeout: Double, file: StaticString = #fileID,
                     line: UInt = #line) -> RJResult {
    // The timer starts once the work's closure has returned without calling back (the await
    // begins then); it is ignored once the await completed another way (the generation moved on).
    awaitCallback(as: .timeout, timeout: timeout, site: AwaitSite(file: file, line: line)) { callback in
        task { value, error in callback(value, error) }
    }
}

/// Waits for all `tasks`, started together, and returns their results in order.
///
/// ```swift
/// let results = rj_await(all: [load("a"), load("b")])
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_await(all tasks: [RJAsyncClosure], file: StaticString = #fileID, line: UInt = #line) -> [RJResult] {
    if tasks.isEmpty { return [] }
    guard _RJAwaitHost.currentUnretained != nil else { return tasks.map { _ in RJResult(value: nil, error: RJAsyncError.notInAsync) } }
    let results = Collector(count: tasks.count, site: AwaitSite(file: file, line: line))
    let combined: RJAsyncClosure = { callback in
        for (index, task) in tasks.enumerated() {
            task { value, error in
                if results.set(index, RJResult(value: value, error: error)) { callback(nil, nil) }
            }
        }
    }
    let outcome = awaitCallback(as: .all, count: tasks.count, site: AwaitSite(file: file, line: line)) { callback in
        combined { value, error in callback(value, error) }
    }
    if let error = outcome.error { return tasks.map { _ in RJResult(value: nil, error: error) } }
    return results.all
}

/// Waits for the first of `tasks` to call back; returns its index and result (the others go on,
/// ignored). When none can win (no tasks: ``RJAsyncError/noTasks``; every callback dropped; the
/// task cancelled) the index is `nil` and the result carries the error.
///
/// ```swift
/// let (index, result) = rj_await(firstOf: [fromCache(), fromNetwork()])
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_await(firstOf tasks: [RJAsyncClosure], file: StaticString = #fileID, line: UInt = #line)
    -> (index: Int?, result: RJResult)
{
    if tasks.isEmpty { return (nil, RJResult(value: nil, error: RJAsyncError.noTasks)) }
    guard _RJAwaitHost.currentUnretained != nil else { return (nil, RJResult(value: nil, error: RJAsyncError.notInAsync)) }
    let winner = Collector(count: tasks.count, site: AwaitSite(file: file, line: line))
    let combined: RJAsyncClosure = { callback in
        for (index, task) in tasks.enumerated() {
            task { value, error in
                if winner.setFirst(RJResult(value: value, error: error), index: index) { callback(nil, nil) }
            }
        }
    }
    let outcome = awaitCallback(as: .firstOf, count: tasks.count, site: AwaitSite(file: file, line: line)) { callback in
        combined { value, error in callback(value, error) }
    }
    if let error = outcome.error { return (nil, RJResult(value: nil, error: error)) }
    return (winner.firstIndex, winner.all[0])
}

/// Results gathered from several callbacks on several threads. A task's callback called twice
/// is ignored and reported, once per await.
private final class Collector: @unchecked Sendable {
    private let lock = RJLock()
    private let site: AwaitSite
    private var results: [RJResult?]
    private var called: [Bool]
    private var remaining: Int
    private var reported = false
    private(set) var firstIndex = -1

    init(count: Int, site: AwaitSite) {
        self.site = site
        results = Array(repeating: nil, count: count)
        called = Array(repeating: false, count: count)
        remaining = count
    }

    /// Whether this is the first call of `index`'s callback (a second is reported, once).
    private func firstCall(_ index: Int) -> Bool {
        let (first, report): (Bool, Bool) = lock.withLock {
            if !called[index] {
                called[index] = true
                return (true, false)
            }
            defer { reported = true }
            return (false, !reported)
        }
        if report { site.reportCalledTwice() }
        return first
    }

    /// Records `result` for `index` (once); true when it was the last one missing.
    func set(_ index: Int, _ result: RJResult) -> Bool {
        guard firstCall(index) else { return false }
        return lock.withLock {
            results[index] = result
            remaining -= 1
            return remaining == 0
        }
    }

    /// Records the first result only; true for the first caller.
    func setFirst(_ result: RJResult, index: Int) -> Bool {
        guard firstCall(index) else { return false }
        return lock.withLock {
            guard firstIndex < 0 else { return false }
            firstIndex = index
            results[0] = result
            return true
        }
    }

    var all: [RJResult] { lock.withLock { results.map { $0 ?? RJResult() } } }
}
