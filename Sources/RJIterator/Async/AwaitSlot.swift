import CRJContext
import RJLocks

/// Moves a value that is not `Sendable` across a queue hop whose ordering makes it safe (the
/// value is written before the hop and read after it, never at the same time).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}

/// The awaits of one task, one at a time: each `rj_await` begins a new *generation* and is
/// completed once, by the callback, by the callback's release, by a timeout or by
/// cancellation, whichever comes first; a completion for an earlier generation (a late
/// callback, a timer that fires after the result came) is ignored. The body starts the work,
/// then either takes a result that is already there (`takeEarlyResult`) or suspends; the
/// task's driver arms the slot once the body has suspended, so a completion can never resume
/// a body that is still running.
///
/// One object per task, made with it: an await allocates nothing but its callback's token.
final class AwaitSlot: @unchecked Sendable {
    // A lock in the object (no allocation, unlike NSLock).
    private let lock = RJLock()
    // Guarded by `lock`, which already makes every access exclusive: no dynamic check.
    @exclusivity(unchecked) private var generation: UInt64 = 0
    @exclusivity(unchecked) private var completed = true
    @exclusivity(unchecked) private var result: RJResult?
    @exclusivity(unchecked) private var resume: (@Sendable (UncheckedBox<RJResult>) -> Void)?
    /// Run if the task is cancelled while the await is pending: stops the work behind it.
    @exclusivity(unchecked) private var onCancel: (@Sendable () -> Void)?
    /// A token no work holds any more, for the next await. Touched only by the body's thread
    /// (in `rj_await`, and by the driver once the body has ended); it refers to this slot, so
    /// the driver drops it when the body ends (`dropSpareToken`), or the two would leak.
    @exclusivity(unchecked) var spareToken: CallbackToken?

    /// Starts the next await and returns its generation. Called by the body, which awaits one
    /// thing at a time.
    func begin() -> UInt64 {
        lock.withLock {
            generation &+= 1
            completed = false
            result = nil
            resume = nil
            onCancel = nil
            return generation
        }
    }

    /// What stops the work of await `generation` if the task is cancelled while it waits.
    func setOnCancel(_ body: @escaping @Sendable () -> Void, for generation: UInt64) {
        lock.withLock {
            if generation == self.generation, !completed { onCancel = body }
        }
    }

    /// The result, if await `generation` completed before the body suspended (the work called
    /// back inside its closure); the body then goes on without suspending.
    func takeEarlyResult(_ generation: UInt64) -> RJResult? {
        lock.withLock { completed && generation == self.generation ? result.take() : nil }
    }

    /// Completes await `generation` with `result` unless something else did first (or a later
    /// await began).
    @discardableResult
    func complete(_ result: RJResult, for generation: UInt64) -> Bool {
        enum Next { case lost, stored, resume(@Sendable (UncheckedBox<RJResult>) -> Void) }
        let next: Next = lock.withLock {
            if completed || generation != self.generation { return .lost }
            completed = true
            onCancel = nil
            if let resume = resume.take() { return .resume(resume) }
            self.result = result
            return .stored
        }
        switch next {
        case .lost:
            return false
        case .stored:
            return true
        case .resume(let resume):
            resume(UncheckedBox(value: result))
            return true
        }
    }

    /// Completes await `generation` with ``RJAsyncError/cancelled`` and stops its work.
    func cancel(_ generation: UInt64) {
        let stop: (@Sendable () -> Void)?? = lock.withLock {
            if completed || generation != self.generation { return .none }
            return .some(onCancel)
        }
        guard case .some(let work) = stop else { return }
        if complete(RJResult(value: nil, error: RJAsyncError.cancelled, done: false), for: generation) {
            work?()
        }
    }

    /// Called by the driver after the body suspended in await `generation`: resumes it now if
    /// the result is in.
    func arm(_ generation: UInt64, _ resume: @escaping @Sendable (UncheckedBox<RJResult>) -> Void) {
        let ready: RJResult? = lock.withLock {
            precondition(generation == self.generation, "RJIterator: internal error: armed a stale await")
            if completed { return result.take() }
            self.resume = resume
            return nil
        }
        if let ready { resume(UncheckedBox(value: ready)) }
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
final class CallbackToken: @unchecked Sendable {
    private let slot: AwaitSlot
    /// Rewritten only by `reuse`, when nobody else holds the token.
    @exclusivity(unchecked) private var generation: UInt64
    private let called = RJAtomic<Bool>(false)

    init(_ slot: AwaitSlot, _ generation: UInt64) {
        self.slot = slot
        self.generation = generation
    }

    func call(_ value: Any?, _ error: (any Error)?) {
        // Read before the exchange, whose release publishes it to `settle`: after the
        // exchange this call touches nothing of the token that `reuse` rewrites.
        let generation = self.generation
        guard !called.exchange(true, ordering: .acquiringAndReleasing) else {
            #if DEBUG
            rj_report("RJIterator: an rj_await callback was called twice; the second call is ignored")
            #endif
            return
        }
        slot.complete(RJResult(value: value, error: error, done: false), for: generation)
    }

    /// Called by the awaiting body once the work's closure has returned, with the body's only
    /// reference. If the work kept no reference to the callback, the token is settled here (a
    /// callback dropped uncalled completes the await, as `deinit` would) and can serve the next
    /// await (`true`); otherwise it is left to the work.
    static func settle(_ token: inout CallbackToken) -> Bool {
        // Unique: every other reference is gone (a reference count is never seen lower than it
        // is), so nobody can call it again.
        guard isKnownUniquelyReferenced(&token) else { return false }
        if !token.called.exchange(true, ordering: .acquiring) {
            token.slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: token.generation)
        }
        return true
    }

    /// Makes a settled token (see `settle`) the callback of await `generation`.
    func reuse(for generation: UInt64) {
        self.generation = generation
        called.store(false, ordering: .relaxed)
    }

    deinit {
        if !called.load(ordering: .acquiring) {
            slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false), for: generation)
        }
    }
}
