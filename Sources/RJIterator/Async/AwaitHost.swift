import CRJContext
import Foundation
import RJLocks

/// What `rj_await` needs from the body it runs in, an ``RJAsyncTask``'s or an async generator's
/// (recorded as the body's generator's client). Every step of an await is written here once;
/// each kind gives its state machine's await events (an `AwaitingMachine`, under its lock), how
/// its body switches out, how a completion resumes it.
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

    // MARK: What each kind of host gives: its state machine's await events, under its lock

    /// The body begins an await of `kind`, before its work starts: its generation, or `nil` when
    /// the host is cancelled (`AwaitingMachine.beginAwait`). `answeredBy`: the work answers the
    /// await even when the host is cancelled (another generator's step): see the machine's method.
    @usableFromInline
    func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil,
                    answeredBy stop: (@Sendable () -> Void)? = nil) -> UInt64? {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// An await of `token`'s callback whose work returned without calling it, under the lock
    /// (`AwaitingMachine.registerAwait`).
    @usableFromInline
    func registerAwait(_ kind: AwaitKind, count: Int, timeout: Double?, token: CallbackToken) -> AwaitState.Registration {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// `AwaitingMachine.setAwaitStop` under the lock: `true` when the await was cancelled already.
    @usableFromInline
    func machineSetAwaitStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) -> Bool {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// `AwaitingMachine.completeAwait` under the lock.
    @usableFromInline
    func machineCompleteAwait(_ result: RJResult, for generation: UInt64) -> AwaitState.Completion {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// `AwaitingMachine.takeEarly` under the lock.
    @usableFromInline
    func takeEarly(for generation: UInt64) -> AwaitState.EarlyTake {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// The result an await completed with before the body suspended (`AwaitingMachine.takeAwaitResult`).
    @usableFromInline
    func takeResult() -> RJResult {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// What a dump reports the body waiting on, read under the lock.
    var awaitRecord: AwaitRecord {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// Whether the host was cancelled: every `rj_await` of its body gives `CancellationError` at once.
    ///
    /// ```swift
    /// if task.isCancelled { print("cancelled") }
    /// ```
    public var isCancelled: Bool {
        preconditionFailure("RJIterator: internal error: an await host without its own state machine")
    }

    /// Resumes the body, whose await has its result: called once, outside the lock, by whoever
    /// completed the await (any thread).
    @usableFromInline
    func resumeAfterAwait() {
        preconditionFailure("RJIterator: internal error: an await host without its own resume")
    }

    /// The body's side of a suspension in await `generation`: switches out, and returns the
    /// await's result once resumed (`takeResumedAwait`). On the body's own stack.
    @usableFromInline
    func switchOut(awaiting generation: UInt64) -> RJResult {
        preconditionFailure("RJIterator: internal error: an await host without its own switch")
    }

    // MARK: The steps of an await, the same for every host

    /// What stops the work of await `generation` if the host is cancelled while it waits.
    /// (An await whose work answers it on cancellation sets its stop as it begins:
    /// `beginAwait(_:answeredBy:)`.)
    @usableFromInline
    final func setStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) {
        if machineSetAwaitStop(stop, for: generation) { stop() }
    }

    /// Completes await `generation` with `result`, unless something did first; any thread.
    @usableFromInline
    final func completeAwait(_ result: RJResult, for generation: UInt64) {
        if case .resume = machineCompleteAwait(result, for: generation) { resumeAfterAwait() }
    }

    /// The body's side of an await begun before its work started (`beginAwait`): the result if
    /// it came already, or the suspension until it comes.
    @usableFromInline
    final func suspend(awaiting generation: UInt64) -> RJResult {
        if case .stored = takeEarly(for: generation) { return takeResult() }
        return suspendRegistered(generation)
    }

    /// The suspension of the body in await `generation` (begun, or registered by an await of a
    /// callback), until a completion resumes it.
    @usableFromInline
    final func suspendRegistered(_ generation: UInt64) -> RJResult {
        // While the body waits nothing else may hold the host (its caller may have let it go):
        // this frame keeps it, and the coroutine and stack it owns, alive until the resume.
        let keptAlive = Unmanaged.passRetained(self)
        defer { keptAlive.release() }
        return switchOut(awaiting: generation)
    }

    // MARK: The spare callback token

    /// A callback token no work holds any more, for the body's next await of a callback. Only the
    /// body touches it (one await at a time), and the host once the body has ended (`bodyEnded`).
    /// It refers back to the host: dropped when the body ends, or the two would keep each other.
    @usableFromInline @exclusivity(unchecked) final var spareToken: CallbackToken?

    /// The body has ended: its spare token goes (released here, outside any lock).
    @usableFromInline
    final func bodyEnded() {
        spareToken = nil
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
        guard let current = rj_coro_current() else { return nil }
        return host(of: current)
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
