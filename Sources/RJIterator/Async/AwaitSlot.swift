import CRJContext
import RJLocks

/// Moves a value that is not `Sendable` across a queue hop whose ordering makes it safe (the
/// value is written before the hop and read after it, never at the same time).
@usableFromInline
struct UncheckedBox<T>: @unchecked Sendable {
    @usableFromInline let value: T

    @usableFromInline init(value: T) {
        self.value = value
    }
}

/// The awaits of one task, one at a time: each `rj_await` begins a new *generation* and is
/// completed once, by the callback, by the callback's release, by a timeout or by
/// cancellation, whichever comes first; a completion for an earlier generation (a late
/// callback, a timer that fires after the result came) is ignored. The body starts the work,
/// then either takes a result that is already there (`hasEarlyResult`) or suspends; the
/// task's driver arms the slot once the body has suspended, so a completion can never resume
/// a body that is still running.
///
/// One object per task, made with it: an await allocates at most its callback's token, and
/// none when the work kept no reference to the previous await's token (`spareToken`).
@usableFromInline
final class AwaitSlot: @unchecked Sendable {
    /// The current await's generation and whether it has completed: `generation << 1 | 1`
    /// once completed. Written by `begin` (the body, when nothing can complete the previous
    /// await any more) and by the one completion that wins, with a compare-exchange.
    private let state = RJAtomic<UInt64>(1)
    // A lock in the object (no allocation, unlike NSLock), for the hand-over between a
    // completion on another thread and the driver that arms the slot.
    private let lock = RJLock()
    // Guarded by `lock`, which already makes every access exclusive: no dynamic check.
    /// A result that came before the body suspended, in `stored` (initialised only while
    /// this is set). Raw memory rather than an `RJResult?`: every store, take or nil test of
    /// an optional `RJResult` goes through `Optional`'s generic value witnesses.
    @exclusivity(unchecked) private var hasResult = false
    private let stored = UnsafeMutablePointer<RJResult>.allocate(capacity: 1)
    @exclusivity(unchecked) private var resume: (@Sendable (UncheckedBox<RJResult>) -> Void)?
    /// Run if the task is cancelled while the await is pending: stops the work behind it.
    @exclusivity(unchecked) private var onCancel: (@Sendable () -> Void)?
    /// A token no work holds any more, for the next await. Touched only by the body's thread
    /// (in `rj_await`, and by the driver once the body has ended); it refers to this slot, so
    /// the driver drops it when the body ends, or the two would leak.
    @usableFromInline @exclusivity(unchecked) var spareToken: CallbackToken?
    /// The coroutine of the body that awaits (as a number), so that a callback can tell it is
    /// being called by that body itself, synchronously, inside the work's closure.
    private let bodyCoroutine = RJAtomic<UInt>(0)
    /// Set when the awaiting body's own callback completed the await (`completeFromBody`): the
    /// result is in `stored` and nobody else will touch it. Only ever touched on the body's
    /// thread, while the body runs.
    @exclusivity(unchecked) private var completedByBody = false

    deinit {
        if hasResult || completedByBody { stored.deinitialize(count: 1) }
        stored.deallocate()
    }

    @inline(__always)
    private static func pending(_ generation: UInt64) -> UInt64 { generation << 1 }
    @inline(__always)
    private static func completed(_ generation: UInt64) -> UInt64 { generation << 1 | 1 }

    /// Starts the next await and returns its generation. Called by the body, which awaits one
    /// thing at a time, once it has taken the previous await's result: nothing can complete
    /// that one any more, so the body alone writes the state here.
    @usableFromInline func begin() -> UInt64 {
        bodyCoroutine.store(UInt(bitPattern: rj_coro_current()), ordering: .relaxed)
        let generation = (state.load(ordering: .relaxed) >> 1) &+ 1
        // Whatever completed the last await took `resume` and `onCancel`; the body took the
        // result.
        assert(!hasResult && !completedByBody)
        state.store(Self.pending(generation), ordering: .releasing)
        return generation
    }

    /// Whether the caller runs on the awaiting body's coroutine: a callback called by the
    /// body itself, synchronously, inside the work's closure.
    @inline(__always)
    var isBodyCoroutine: Bool {
        UInt(bitPattern: rj_coro_current()) == bodyCoroutine.load(ordering: .relaxed)
    }

    /// What stops the work of await `generation` if the task is cancelled while it waits.
    @usableFromInline func setOnCancel(_ body: @escaping @Sendable () -> Void, for generation: UInt64) {
        lock.withLock {
            if state.load(ordering: .relaxed) == Self.pending(generation) { onCancel = body }
        }
    }

    /// Whether await `generation` completed before the body suspended (the work called back
    /// inside its closure); the body then takes the result (`takeResult`) and goes on without
    /// suspending.
    @usableFromInline func hasEarlyResult(_ generation: UInt64) -> Bool {
        if completedByBody {
            completedByBody = false
            return true
        }
        return lock.withLock {
            guard hasResult, state.load(ordering: .relaxed) == Self.completed(generation) else { return false }
            hasResult = false
            return true
        }
    }

    /// The result `hasEarlyResult` found. Moved out without the lock: nothing but the body
    /// touches `stored` until its next `begin`.
    @usableFromInline func takeResult() -> RJResult {
        stored.move()
    }

    /// Completes await `generation` with `result` unless something else did first (or a later
    /// await began).
    @discardableResult
    @usableFromInline func complete(_ result: consuming RJResult, for generation: UInt64) -> Bool {
        var result = Optional(result)
        return complete(for: generation) { result.take().unsafelyUnwrapped }
    }

    /// Completes await `generation` with what `make` builds (called at most once, only if
    /// this completion wins), unless something else completed it first.
    @inline(__always) @discardableResult
    func complete(for generation: UInt64, _ make: () -> RJResult) -> Bool {
        enum Next { case lost, stored, resume(@Sendable (UncheckedBox<RJResult>) -> Void) }
        let next: Next = lock.withLock {
            let (won, _) = state.compareExchange(
                expected: Self.pending(generation), desired: Self.completed(generation), ordering: .acquiringAndReleasing)
            if !won { return .lost }
            onCancel = nil
            if let resume = resume.take() { return .resume(resume) }
            stored.initialize(to: make())
            hasResult = true
            return .stored
        }
        switch next {
        case .lost:
            return false
        case .stored:
            return true
        case .resume(let resume):
            resume(UncheckedBox(value: make()))
            return true
        }
    }

    /// `complete` for a callback the awaiting body calls itself (`isBodyCoroutine`): the body
    /// is running, so nothing has armed the slot and no `onCancel` is set (plain callback
    /// awaits have none); only the compare-exchange decides against a timer or a cancellation
    /// on another thread, and the body finds the result on its own thread, without the lock.
    @inline(__always) @discardableResult
    func completeFromBody(for generation: UInt64, _ make: () -> RJResult) -> Bool {
        let (won, _) = state.compareExchange(
            expected: Self.pending(generation), desired: Self.completed(generation), ordering: .acquiringAndReleasing)
        guard won else { return false }
        stored.initialize(to: make())
        completedByBody = true
        return true
    }

    /// Completes await `generation` with `error` (the host's cancellation error) and stops its
    /// work.
    @usableFromInline func cancel(_ generation: UInt64, with error: any Error) {
        let stop: (@Sendable () -> Void)?? = lock.withLock {
            if state.load(ordering: .relaxed) != Self.pending(generation) { return .none }
            return .some(onCancel)
        }
        guard case .some(let work) = stop else { return }
        if complete(RJResult(value: nil, error: error, done: false), for: generation) {
            work?()
        }
    }

    /// Called by the driver, on the body's queue, after the body suspended in await
    /// `generation`: `true` if the result is already in (the driver then takes it with
    /// `takeResult` and resumes the body at once), otherwise the slot keeps `resume` for the
    /// completion to call.
    @usableFromInline func arm(_ generation: UInt64, _ resume: @escaping @Sendable (UncheckedBox<RJResult>) -> Void) -> Bool {
        lock.withLock {
            let now = state.load(ordering: .relaxed)
            precondition(now >> 1 == generation, "RJIterator: internal error: armed a stale await")
            if now == Self.completed(generation) {
                // Completed between the suspension and now: the result is in `stored`.
                hasResult = false
                return true
            }
            self.resume = resume
            return false
        }
    }
}

/// What the callback closure handed to the awaited work holds (it is that closure's whole
/// context). Called twice: the second call is ignored (and reported in debug builds).
/// Released uncalled: the await completes with `RJAsyncError.callbackDropped`, so the body
/// goes on and its stack is freed.
///
/// Work that calls back inside its closure and keeps nothing (the common synchronous case)
/// leaves the token with no other owner: the slot keeps it for the next await (`settle`),
/// so such an await allocates nothing.
@usableFromInline
final class CallbackToken: @unchecked Sendable {
    private let slot: AwaitSlot
    /// Rewritten only by `reuse`, when nobody else holds the token.
    @exclusivity(unchecked) private var generation: UInt64
    /// Where the `rj_await` is (`#fileID`, `#line` of its call), for the message of a callback
    /// called twice; rewritten only by `reuse`.
    @exclusivity(unchecked) private var site: AwaitSite
    /// How many times the callback was called: the first call counts, the second is reported,
    /// later ones are ignored quietly.
    private let calls = RJAtomic<Int>(0)

    init(_ slot: AwaitSlot, _ generation: UInt64, site: AwaitSite) {
        self.slot = slot
        self.generation = generation
        self.site = site
    }

    func call(_ value: Any?, _ error: (any Error)?) {
        // Read before the exchange, whose release publishes it to `settle`: after the
        // exchange this call touches nothing of the token that `reuse` rewrites.
        let generation = self.generation
        let site = self.site
        let earlier = calls.add(1, ordering: .acquiringAndReleasing).oldValue
        guard earlier == 0 else {
            // Once per await, in every build: a callback called twice is a bug of the work.
            if earlier == 1 { site.reportCalledTwice() }
            return
        }
        if slot.isBodyCoroutine {
            // Called by the awaiting body itself, inside the work's closure.
            slot.completeFromBody(for: generation) { RJResult(value: AnyValue.copy(value), error: error, done: false) }
        } else {
            slot.complete(for: generation) { RJResult(value: AnyValue.copy(value), error: error, done: false) }
        }
    }

    /// Called by the awaiting body once the work's closure has returned, with the body's only
    /// reference. If the work kept no reference to the callback, the token is settled here (a
    /// callback dropped uncalled completes the await, as `deinit` would) and can serve the next
    /// await (`true`); otherwise it is left to the work.
    static func settle(_ token: inout CallbackToken) -> Bool {
        // Unique: every other reference is gone (a reference count is never seen lower than it
        // is), so nobody can call it again.
        guard isKnownUniquelyReferenced(&token) else { return false }
        if token.calls.add(1, ordering: .acquiring).oldValue == 0 {
            token.slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: token.generation)
        }
        return true
    }

    /// Makes a settled token (see `settle`) the callback of await `generation`.
    func reuse(for generation: UInt64, site: AwaitSite) {
        self.generation = generation
        self.site = site
        calls.store(0, ordering: .relaxed)
    }

    deinit {
        if calls.load(ordering: .acquiring) == 0 {
            slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: generation)
        }
    }
}

/// Where an `rj_await` was called, for its messages.
@usableFromInline
struct AwaitSite: Sendable {
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt

    @inlinable init(file: StaticString, line: UInt) {
        self.file = file
        self.line = line
    }

    /// The message of a callback called a second time.
    func reportCalledTwice() {
        rj_report("RJIterator: the callback of the rj_await at \(file):\(line) was called twice; the second call is ignored "
                  + "(call an rj_await's callback once)")
    }
}
