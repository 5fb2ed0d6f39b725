import CRJContext
import Foundation
import RJLocks

/// What `rj_await` needs from the code it is called in: an `rj_async` task's body
/// (``RJAsyncTask``) or an async generator's body. The body runs as a coroutine whose generator
/// records this object as its client; an await begins a generation of the host's
/// ``AwaitState`` (kept in the host's state machine, under its one lock), starts the work, and
/// suspends the body until the work completes it. This class is the one await host both kinds
/// share: every step of an await is written here once, and each kind gives the three things
/// that differ (where its state is, how its body switches out, how a completion resumes it).
///
/// An implementation detail, public only because ``RJAsyncTask`` derives from it; it has no
/// public member but the cancellation flag (`isCancelled`), cannot be made or subclassed
/// outside this module, and is hidden from the documentation.
@_documentation(visibility: internal)
public class _RJAwaitHost: @unchecked Sendable {
    /// The queue the body runs on after each await (a task's queue; an async generator's `on:`,
    /// or a global queue), and where a cancellation's resume goes.
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

    /// Resumes the body, suspended in an await whose result is in its await state: called once,
    /// outside the lock, by whoever completed the await (any thread).
    @usableFromInline
    func resumeAfterAwait() {
        preconditionFailure("RJIterator: internal error: an await host without its own resume")
    }

    /// The body's side of a suspension in await `generation`: switches out of the body's
    /// coroutine and returns the await's result once it is resumed (`takeResumed`). Called on
    /// the body's own stack.
    @usableFromInline
    func switchOut(awaiting generation: UInt64) -> RJResult {
        preconditionFailure("RJIterator: internal error: an await host without its own switch")
    }

    // MARK: The steps of an await, the same for every host

    /// Whether the host was cancelled: every `rj_await` of its body gives `CancellationError`
    /// at once.
    ///
    /// ```swift
    /// if task.isCancelled { print("cancelled") }
    /// ```
    public var isCancelled: Bool {
        var cancelled = false
        withAwaits { cancelled = $0.cancelled }
        return cancelled
    }

    /// The body begins an await of `kind`: its generation and a callback token to reuse, or
    /// `nil` when the host is cancelled (the await gives `CancellationError` at once).
    /// (Each kind of host overrides it with a direct call of `AwaitState.begin`: it is on the
    /// path of every await; this one goes through `withAwaits`.)
    @usableFromInline
    func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil) -> (generation: UInt64, spare: CallbackToken?)? {
        var generation: UInt64 = 0
        var spare: CallbackToken?
        withAwaits { generation = $0.begin(kind, count: count, timeout: timeout, spare: &spare) }
        if generation == 0 { return nil }
        return (generation, spare)
    }

    /// What stops the work of await `generation` if the host is cancelled while it waits.
    /// `answersAwait`: the stop makes the awaited work answer the await (the await of another
    /// generator's step), so a cancellation runs it and lets that answer complete the await.
    @usableFromInline
    final func setStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64, answersAwait: Bool = false) {
        var cancelledAlready = false
        withAwaits { cancelledAlready = $0.setStop(stop, for: generation, answersAwait: answersAwait) }
        if cancelledAlready { stop() }
    }

    /// Completes await `generation` with `result`, unless something completed it first; any
    /// thread. Resumes the body if it was waiting.
    @usableFromInline
    final func completeAwait(_ result: RJResult, for generation: UInt64) {
        var completion = AwaitState.Completion.ignored
        withAwaits { completion = $0.complete(result, for: generation) }
        if case .resume = completion { resumeAfterAwait() }
    }

    /// The body's side of an `rj_await`, once the work is started: the result if it came
    /// already, or the suspension until it comes. `spare`: the await's callback token when no
    /// work holds it any more, kept for the next await; `completedByBody`: the work gave a
    /// result inside its closure, on the body's thread (`bodyResult` gives it): it completes
    /// the await here, unless a cancellation or a timeout did first.
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

    /// What a dump reports the body waiting on.
    final var awaitRecord: AwaitRecord {
        var record = AwaitRecord()
        withAwaits { record = $0.record }
        return record
    }

    /// Records `self` as the client of `core`, the generator its body runs on, so that an
    /// `rj_await` in the body finds it.
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
