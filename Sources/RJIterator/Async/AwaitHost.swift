import CRJContext
import Foundation
import RJLocks

/// What `rj_await` needs from the code it is called in: an `rj_async` task's body
/// (``RJAsyncTask``) or an async generator's body (``AsyncGenerator``). The body runs as a
/// coroutine whose generator records this object as its client; an await begins a generation
/// of the host's ``AwaitSlot``, starts the work, and suspends the body (`suspend(awaiting:)`,
/// which each kind of host implements with its own coroutine) until the work completes it.
///
/// An implementation detail, public only because those two derive from it; it has no public
/// member but the cancellation flag they share (`isCancelled`), cannot be made or subclassed
/// outside this module, and is hidden from the documentation.
@_documentation(visibility: internal)
public class _RJAwaitHost: @unchecked Sendable {
    /// The queue the body runs on after each await.
    @usableFromInline let queue: DispatchQueue
    /// The body's awaits, one at a time.
    @usableFromInline let awaits = AwaitSlot()
    /// Written by `cancel`, read without a lock by every `rj_await`, which checks it before it
    /// starts anything.
    @usableFromInline let cancelled = RJAtomic<Bool>(false)
    /// What the body waits on, for `RJRuntime.dump()` (Runtime/CoroutineRecord.swift).
    @usableFromInline @exclusivity(unchecked) final var wait = AwaitRecord()

    @usableFromInline
    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Whether the host was cancelled: every `rj_await` of its body gives
    /// `cancellationError` at once.
    ///
    /// ```swift
    /// if task.isCancelled { print("cancelled") }
    /// ```
    public final var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// What an await gives once the host is cancelled.
    ///
    /// `CancellationError`, Swift's own, for every await host (an `rj_async` task and an async
    /// generator alike): code that awaits in either catches one error, as it does for a Swift
    /// task (docs/async.md, "One vocabulary").
    @usableFromInline final var cancellationError: any Error { CancellationError() }

    /// Suspends the body until await `generation` completes; called on the body's own stack,
    /// after the awaited work was started. Work that called back already (a callback called
    /// inside the task closure) is not waited for: no switch, no queue hop.
    func suspend(awaiting generation: UInt64) -> RJResult {
        fatalError("RJIterator: internal error: an await host without its own suspend")
    }

    /// Records `self` as the client of `core`, the generator its body runs on, so that an
    /// `rj_await` in the body finds it.
    @usableFromInline
    final func adopt(_ core: _RJCoroutineHost) {
        core.client = Unmanaged.passUnretained(self)
        core.clientKind = awaitHostClientKind
    }

    /// The host whose body is running on this thread, if any.
    static var current: _RJAwaitHost? {
        currentUnretained?.takeUnretainedValue()
    }

    /// `current` without a retain: valid while the body runs (its host outlives it).
    static var currentUnretained: Unmanaged<_RJAwaitHost>? {
        guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { return nil }
        return Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { host in
            guard host.clientKind == awaitHostClientKind, let client = host.client else { return nil }
            return Unmanaged<_RJAwaitHost>.fromOpaque(client.toOpaque())
        }
    }
}

/// The `clientKind` of a generator whose client is an `_RJAwaitHost`.
let awaitHostClientKind: UInt8 = 1
