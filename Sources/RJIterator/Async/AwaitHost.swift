import CRJContext
import Foundation
import RJLocks

/// What `rj_await` needs from the body it runs in, an ``RJAsyncTask``'s or an async generator's
/// (recorded as the body's generator's client). Every step of an await is written here once;
/// each kind gives where its ``AwaitState`` is, how its body switches out, how a completion resumes it.
/// Public only because ``RJAsyncTask`` derives from it; no public member but `isCancelled`,
/// hidden from the documentation (docs/swift-core.md, "One vocabulary").
@_documentation(visibility: internal)
public class _RJAwaitHost: @unchecked Sendable {
    /// The body's queue after each await (a task's queue; an async generator's `on:`, or a global
    /// queue), and where a cancellation's resume goes.
    @usableFromInline let queue: DispatchQueue

    @usableFromInline
    init(queue: DispatchQueue) {
        self.queue = queue
    }

    // MARK: What each kind of host gives

    /// Runs `body` with the await state of the host's state machine, holding the host's lock.
    /// (Not generic: a generic method reached through the class's table runs unspecialised.)
    @usableFromInline
    func withAwaits(_ body: (inout AwaitState) -> Void) {
        preconditionFailure("RJIterator: internal error: an await host without its own state")
    }

    /// Resumes the body, whose await has its result: called once, outside the lock, by whoever
    /// completed the await (any thread).
    @usableFromInline
    func resumeAfterAwait() {
        preconditionFailure("RJIterator: internal error: an await host without its own resume")
    }

    /// The body's side of a suspension in await `generation`: switches out, and returns the
    /// await's result once resumed (`takeResumed`). On the body's own stack.
    @usableFromInline
    func switchOut(awaiting generation: UInt64) -> RJResult {
        preconditionFailure("RJIterator: internal error: an await host without its own switch")
    }

    // MARK: The steps of an await, the same for every host

    /// Whether the host was cancelled: every `rj_await` of its body gives `CancellationError` at once.
    ///
    /// ```swift
    /// if task.isCancelled { print("cancelled") }
    /// ```
    public var isCancelled: Bool {
        var cancelled = false
        withAwaits { cancelled = $0.cancelled }
        return cancelled
    }

    /// The body begins an await of `kind`: its generation and a callback token to reuse, or `nil`
    /// when the host is cancelled. Each kind of host overrides it with a direct call of
    /// `AwaitState.begin` (the path of every await); this one goes through `withAwaits`.
    @usableFromInline
    func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil) -> (generation: UInt64, spare: CallbackToken?)? {
        var generation: UInt64 = 0
        var spare: CallbackToken?
        withAwaits { generation = $0.begin(kind, count: count, timeout: timeout, spare: &spare) }
        if generation == 0 { return nil }
        return (generation, spare)
    }

    /// `beginAwait` for an await that its work answers even when the host is cancelled (another
    /// generator's step): `stop` is set under the same hold of the lock as the await begins, so a
    /// cancellation either comes first (`nil`) or finds the stop and calls it, and never
    /// completes the await itself: the work's answer (a value decided before the cancellation, or
    /// `CancellationError`) is what the body gets.
    @usableFromInline
    final func beginAwait(_ kind: AwaitKind, answeredBy stop: @escaping @Sendable () -> Void)
        -> (generation: UInt64, spare: CallbackToken?)?
    {
        var generation: UInt64 = 0
        var spare: CallbackToken?
        withAwaits { awaits in
            generation = awaits.begin(kind, spare: &spare)
            if generation != 0 { _ = awaits.setStop(stop, for: generation, answersAwait: true) }
        }
        if generation == 0 { return nil }
        return (generation, spare)
    }

    /// What stops the work of await `generation` if the host is cancelled while it waits.
    /// (An await whose work answers it on cancellation sets its stop as it begins:
    /// `beginAwait(_:answeredBy:)`.)
    @usableFromInline
    final func setStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) {
        var cancelledAlready = false
        withAwaits { cancelledAlready = $0.setStop(stop, for: generation) }
        if cancelledAlready { stop() }
    }

    /// Completes await `generation` with `result`, unless something did first; any thread.
    @usableFromInline
    final func completeAwait(_ result: RJResult, for generation: UInt64) {
        var completion = AwaitState.Completion.ignored
        withAwaits { completion = $0.complete(result, for: generation) }
        if case .resume = completion { resumeAfterAwait() }
    }

    /// The body's side of an `rj_await` once the work is started: the result if it came already,
    /// or the suspension until it comes. `spare`: the callback token no work holds any more, kept
    /// for the next await; `completedByBody`: the work gave `bodyResult()` inside its closure, on
    /// the body's thread, which completes the await unless a cancellation or timeout did first.
    @usableFromInline
    final func suspend(awaiting generation: UInt64, keeping spare: CallbackToken? = nil,
                       completedByBody: Bool = false, bodyResult: () -> RJResult = { RJResult() }) -> RJResult {
        switch takeEarly(for: generation, keeping: spare, completedByBody: completedByBody) {
        case .byBody: return bodyResult()
        case .stored: return takeResult()
        case .suspend: break
        }
        // While the body waits nothing else may hold the host (its caller may have let it go):
        // this frame keeps it, and the coroutine and stack it owns, alive until the resume.
        let keptAlive = Unmanaged.passRetained(self)
        defer { keptAlive.release() }
        return switchOut(awaiting: generation)
    }

    /// `AwaitState.takeEarly` under the lock. (Overridden as `beginAwait` is.)
    @usableFromInline
    func takeEarly(for generation: UInt64, keeping spare: CallbackToken?, completedByBody: Bool) -> AwaitState.EarlyTake {
        var take = AwaitState.EarlyTake.suspend
        withAwaits { take = $0.takeEarly(for: generation, keeping: spare, completedByBody: completedByBody) }
        return take
    }

    /// The result an await completed with before the body suspended.
    @usableFromInline @inline(never)
    final func takeResult() -> RJResult {
        var result = RJResult()
        withAwaits { result = $0.takeResult() }
        return result
    }

    final var awaitRecord: AwaitRecord {
        var record = AwaitRecord()
        withAwaits { record = $0.record }
        return record
    }

    /// Records `self` as the client of `core`, its body's generator, so that `rj_await` finds it.
    @usableFromInline
    final func adopt(_ core: _RJCoroutineHost) {
        core.client = Unmanaged.passUnretained(self)
        core.clientKind = awaitHostClientKind
    }

    /// The host whose body is running on this thread, if any.
    @usableFromInline
    static var current: _RJAwaitHost? {
        currentUnretained?.takeUnretainedValue()
    }

    /// `current` without a retain: valid while the body runs (its host outlives it).
    @usableFromInline
    static var currentUnretained: Unmanaged<_RJAwaitHost>? {
        guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { return nil }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { host in
            guard host.clientKind == awaitHostClientKind, let client = host.client else { return nil }
            return Unmanaged<_RJAwaitHost>.fromOpaque(client.toOpaque())
        }
    }
}

/// The `clientKind` of a generator whose client is an `_RJAwaitHost`.
@usableFromInline
let awaitHostClientKind: UInt8 = 1

/// Moves a value that is not `Sendable` across a queue hop whose ordering makes it safe (the
/// value is written before the hop and read after it, never at the same time).
@usableFromInline
struct UncheckedBox<T>: @unchecked Sendable {
    @usableFromInline let value: T

    @usableFromInline init(value: T) {
        self.value = value
    }
}
