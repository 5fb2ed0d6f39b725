import CRJContext
import Foundation
import RJLocks

/// The callback of an asynchronous task: call it once, from any thread, with a value or an error.
public typealias RJAsyncCallback = @Sendable (Any?, (any Error)?) -> Void

/// An asynchronous task in the seed's sense: a closure that starts work and calls its callback.
///
/// ```swift
/// func login(_ user: String) -> RJAsyncClosure {
///     return { callback in api.login(user) { json, error in callback(json, error) } }
/// }
/// ```
public typealias RJAsyncClosure = @Sendable (@escaping RJAsyncCallback) -> Void

/// Runs `body` as a coroutine on `queue` (the main queue by default, as in the seed): inside
/// it, `rj_await(_:)` waits for a callback, a promise or a value without blocking `queue`.
/// Returns at once, so `.finally` can be attached afterwards.
///
/// ```swift
/// rj_async {
///     let login = rj_await(self.login(account: "112233", pwd: "445566"))
///     if login.error != nil { return }
///     print(rj_await(self.query(uid: "80022", token: "6762")).value ?? "no info")
/// }
/// .finally { ProgressHud.dismiss() }
/// ```
///
/// What the body throws goes to ``RJAsyncTask/catch(_:)``, ``RJAsyncTask/error`` and
/// ``RJAsyncTask/wait()``; `finally` still runs, once. On Linux nothing runs the main queue
/// unless the program does: ``RJAsyncTask/runMainLoop(timeout:)``.
///
/// Without `on:`, the main-actor form below is chosen: same queue, and the body may use
/// main-actor state. With `on:` the body is `@Sendable` and runs on that queue.
@discardableResult @_disfavoredOverload
public func rj_async(on queue: DispatchQueue = .main, file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable () throws -> Void) -> RJAsyncTask {
    let task = RJAsyncTask(queue: queue, file: file, line: line, body: body)
    task.start()
    if queue === DispatchQueue.main { watchMainQueue(task, file: file, line: line) }
    return task
}

/// Runs `body` on the main queue, isolated to the main actor (the seed's view-controller flow,
/// in Swift 6): the body only ever runs on the main thread, so main-actor state is used
/// directly across every `rj_await`. `finally` handlers on the returned task are main-actor too.
///
/// ```swift
/// @MainActor final class LoginController {
///     var status = ""
///     func loginTapped() {
///         rj_async { self.status = rj_await(login()).error == nil ? "welcome" : "login failed" }
///     }
/// }
/// ```
@discardableResult
public func rj_async(file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @MainActor () throws -> Void) -> RJMainActorTask {
    let isolated = UncheckedBox(value: body)
    let task = RJMainActorTask(queue: .main, file: file, line: line) {
        // Runs on the main queue (the task's queue), so on the main thread.
        try MainActor.assumeIsolated { try isolated.value() }
    }
    task.start()
    watchMainQueue(task, file: file, line: line)
    return task
}

/// A running `rj_async` body: attach ``finally(_:)`` and ``catch(_:)`` handlers, ``cancel()``
/// it, or wait for it; every member may be called from any thread. Lifetime: docs/async.md
/// ("Lifetime of a suspended body").
public class RJAsyncTask: _RJAwaitHost, @unchecked Sendable {
    private let state: RJHintedMutex<RJAsyncTaskStateMachine>

    init(queue: DispatchQueue, file: StaticString, line: UInt, body: @escaping @Sendable () throws -> Void) {
        let core = Generator<UInt64, RJResult, Void>(checkedStackSize: 0, kind: .rjAsync, file: file, line: line) { _ in
            try body()
        }
        state = RJHintedMutex(RJAsyncTaskStateMachine(core: core))
        super.init(queue: queue)
        adopt(core)
    }

    final func start() {
        queue.async { self.step(afterAwait: false) }
    }

    /// Runs the body (on `queue`) until its next `rj_await` or its end; `afterAwait`: resumed
    /// from an await, whose result is in the await state.
    private func step(afterAwait: Bool) {
        var afterAwait = afterAwait
        // An await completed while the body was suspending: resumed here, on its queue already.
        while true {
            // Cancelled before it ever ran: the body never starts.
            let (found, input) = state.withLock { machine in
                (machine.coreToRun(), afterAwait ? machine.takeResumedAwait() : RJResult())
            }
            guard let core = found else { return finish() }
            let step: GeneratorStep<UInt64, Void>
            do {
                step = try core.next(input)
            } catch {
                _ = consume core
                return finish(throwing: error)
            }
            switch step {
            case .returned:
                // Not kept across `finish`, which lets the generator and its stack go before `finally` runs.
                _ = consume core
                return finish()
            case .yielded(let generation):
                switch state.withLock({ $0.awaitSuspended(generation) }) {
                case .wait: return
                case .resumeNow: afterAwait = true
                }
            }
        }
    }

    private func finish(throwing error: (any Error)? = nil) {
        let (toRun, toResume, ended) = state.withLock { $0.finish(throwing: error) }
        // Released outside the lock (the body's captures are released with it, and their
        // deinits may call into this task) and before the handlers: when `finally` runs, the
        // body's stack is back in the pool. The spare callback token refers back to the task.
        _ = consume ended
        bodyEnded()
        for handler in toRun { handler() }
        for waiter in toResume {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Runs `handler` on the task's queue, exactly once, once the body has ended (or was
    /// cancelled before it started); attached after the end, it still runs. By then the body's
    /// stack and captures are released.
    ///
    /// ```swift
    /// rj_async { ... }.finally { spinner.stop() }
    /// ```
    @discardableResult @_disfavoredOverload
    public final func finally(_ handler: @escaping @Sendable () -> Void) -> RJAsyncTask {
        let runNow = state.withLock { $0.addHandler(handler) }
        if runNow { queue.async(execute: handler) }
        return self
    }

    /// Runs `handler` on the task's queue with what the body threw, once it has ended by throwing
    /// (never if it returned), with the `finally` handlers in attachment order, even if attached late.
    ///
    /// ```swift
    /// rj_async(on: queue) { try save() }.catch { error in print("not saved: \(error)") }
    /// ```
    @discardableResult @_disfavoredOverload
    public final func `catch`(_ handler: @escaping @Sendable (any Error) -> Void) -> RJAsyncTask {
        // Strong: a handler attached after the end is queued, and may run after the caller let the
        // task go. A handler stored before the end is dropped by `finish`, which breaks the cycle.
        finally { [self] in
            // Read once the body has ended: `thrown` no longer changes.
            if let error = self.error { handler(error) }
        }
    }

    /// What the body threw, once it has ended by throwing; `nil` while it runs and if it returned.
    ///
    /// ```swift
    /// if let error = task.error { print(error) }
    /// ```
    public final var error: (any Error)? { state.withLock { $0.thrown } }

    /// Cancels the task: the pending `rj_await`, and every later one, returns `CancellationError`
    /// at once, and the pending await's work is stopped where it can be (an awaited promise is
    /// cancelled). A body that has not started never starts. `finally` handlers still run.
    ///
    /// ```swift
    /// let task = rj_async { ... }; task.cancel()
    /// ```
    public final func cancel() {
        let cancellation = state.withLock { $0.cancelAwaits() }
        cancellation.stop?()
        if cancellation.resume { resumeAfterAwait() }
    }

    /// Whether the body has ended (or was cancelled before it started); `finally` handlers started.
    public final var isFinished: Bool { state.withLock { $0.finished } }

    final var isWaitingToStart: Bool { state.withLock { !$0.finished && $0.core?.state == .created } }

    /// Waits, from Swift concurrency, until the body has ended; throws what the body threw.
    ///
    /// ```swift
    /// try await rj_async(on: .global()) { ... }.wait()
    /// ```
    public final func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { $0.addWaiter(continuation) }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    // MARK: The await host's part

    /// The generator the body runs on, until it has ended.
    final var currentCore: _RJCoroutineHost? { state.withLock { $0.core } }

    override final func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil,
                                   answeredBy stop: (@Sendable () -> Void)? = nil) -> UInt64? {
        state.withLock { $0.beginAwait(kind, count: count, timeout: timeout, answeredBy: stop) }
    }

    override final func registerAwait(_ kind: AwaitKind, count: Int, timeout: Double?, token: CallbackToken) -> AwaitState.Registration {
        state.withLock { $0.registerAwait(kind, count: count, timeout: timeout, token: token) }
    }

    override final func machineSetAwaitStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) -> Bool {
        state.withLock { $0.setAwaitStop(stop, for: generation) }
    }

    override final func machineCompleteAwait(_ result: RJResult, for generation: UInt64) -> AwaitState.Completion {
        state.withLock { $0.completeAwait(result, for: generation) }
    }

    override final func takeEarly(for generation: UInt64) -> AwaitState.EarlyTake {
        state.withLock { $0.takeEarly(for: generation) }
    }

    override final func takeResult() -> RJResult {
        state.withLock { $0.takeAwaitResult() }
    }

    override final var awaitRecord: AwaitRecord { state.withLock { $0.awaits.record } }

    /// Whether the task was cancelled: its body's `rj_await`s give `CancellationError` at once.
    ///
    /// ```swift
    /// if task.isCancelled { print("cancelled") }
    /// ```
    public override final var isCancelled: Bool {
        if state.carries(RJAsyncTaskStateMachine.notCancelledHint) { return false }
        return state.withLock { $0.awaits.cancelled }
    }

    /// A completed await resumes the body on the task's queue.
    override final func resumeAfterAwait() {
        queue.async { self.step(afterAwait: true) }
    }

    override final func switchOut(awaiting generation: UInt64) -> RJResult {
        guard let core = state.withLock({ $0.core }) else {
            return RJResult(value: nil, error: CancellationError(), done: false)
        }
        // `current` found this task through the running coroutine, which is the body's.
        switch core.suspend(rj_coro_current().unsafelyUnwrapped, yielding: generation, resumedWith: RJResult.self) {
        case .value(let result): return result
        case .error(let error): return RJResult(value: nil, error: error, done: false)
        case .close: return RJResult(value: nil, error: CancellationError(), done: false)
        }
    }
}

extension RJAsyncTask {
    /// Runs the main run loop until the task has finished or `timeout` seconds have passed;
    /// returns whether it finished. For synchronous code on the main thread (a Linux command-line
    /// program or test); async code runs the main queue already: `try await task.wait()`.
    ///
    /// ```swift
    /// rj_async { ... }.runMainLoop()
    /// ```
    @available(*, noasync, message: "async code runs the main queue already: use try await task.wait()")
    @discardableResult
    public final func runMainLoop(timeout: Double = .infinity) -> Bool {
        if !(Thread.isMainThread) {
            fatalError("RJIterator: runMainLoop() must be called on the main thread, from synchronous code; on another thread "
                       + "(as after a top-level await, where Linux runs the main queue on a worker thread) use "
                       + "try await task.wait()")
        }
        let deadline = timeout.isFinite ? Date().addingTimeInterval(timeout) : Date.distantFuture
        while !isFinished && Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: min(deadline, Date().addingTimeInterval(0.05)))
        }
        return isFinished
    }
}

/// The task of a main-actor `rj_async` body (`rj_async { }` without `on:`): an ``RJAsyncTask``
/// whose `finally` handlers are main-actor code too, so they may touch what the body touched.
///
/// ```swift
/// rj_async { self.spinner.start() }.finally { self.spinner.stop() }
/// ```
public final class RJMainActorTask: RJAsyncTask, @unchecked Sendable {
    /// Runs `handler` on the main queue, isolated to the main actor, as ``RJAsyncTask/finally(_:)``.
    ///
    /// ```swift
    /// rj_async { ... }.finally { self.hud.dismiss() }
    /// ```
    @discardableResult
    public func finally(_ handler: @escaping @MainActor () -> Void) -> RJMainActorTask {
        let isolated = UncheckedBox(value: handler)
        // The task's queue is the main queue: the handler runs on the main thread.
        _ = (self as RJAsyncTask).finally { MainActor.assumeIsolated { isolated.value() } }
        return self
    }

    /// Runs `handler` on the main queue, isolated to the main actor, as ``RJAsyncTask/catch(_:)``.
    ///
    /// ```swift
    /// rj_async { try self.save() }.catch { error in self.showAlert(error) }
    /// ```
    @discardableResult
    public func `catch`(_ handler: @escaping @MainActor (any Error) -> Void) -> RJMainActorTask {
        let isolated = UncheckedBox(value: handler)
        _ = (self as RJAsyncTask).catch { error in MainActor.assumeIsolated { isolated.value(error) } }
        return self
    }
}
