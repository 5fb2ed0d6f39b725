import CRJContext
import RJLocks

/// Moves a value that is not `Sendable` across a queue hop whose ordering makes it safe (the
/// value is written before the hop and read after it, never at the same time).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}

/// One pending `rj_await`: completed once, by the callback, by the callback's release, by a
/// timeout or by cancellation, whichever comes first. The body starts the work, then either
/// takes a result that is already there (`takeEarlyResult`) or suspends; the task's driver arms
/// the slot once the body has suspended, so a completion can never resume a body that is still
/// running.
final class AwaitSlot: @unchecked Sendable {
    // A lock in the object (no allocation, unlike NSLock): a slot lives for one await.
    private let lock = RJLock()
    // Guarded by `lock`, which already makes every access exclusive: no dynamic check.
    @exclusivity(unchecked) private var result: RJResult?
    @exclusivity(unchecked) private var resume: (@Sendable (UncheckedBox<RJResult>) -> Void)?
    @exclusivity(unchecked) private var completed = false
    /// Run if the task is cancelled while this await is pending: stops the work behind it.
    var onCancel: (@Sendable () -> Void)?

    /// The result, if the await completed before the body suspended (the work called back
    /// inside its closure); the body then goes on without suspending.
    func takeEarlyResult() -> RJResult? {
        lock.withLock { completed ? result.take() : nil }
    }

    /// Completes the await with `result` unless something else did first.
    @discardableResult
    func complete(_ result: RJResult) -> Bool {
        enum Next { case lost, stored, resume }
        let next: Next = lock.withLock {
            if completed { return .lost }
            completed = true
            if resume != nil { return .resume }
            self.result = result
            return .stored
        }
        switch next {
        case .lost:
            return false
        case .stored:
            return true
        case .resume:
            let resume = self.resume.take()!
            resume(UncheckedBox(value: result))
            return true
        }
    }

    /// Called by the driver after the body suspended: resumes it now if the result is in.
    func arm(_ resume: @escaping @Sendable (UncheckedBox<RJResult>) -> Void) {
        let ready: Bool = lock.withLock {
            if completed { return true }
            self.resume = resume
            return false
        }
        if ready {
            let result = self.result.take()!
            resume(UncheckedBox(value: result))
        }
    }

    var isCompleted: Bool { lock.withLock { completed } }
}

/// What the callback closure handed to the awaited work holds. Called twice: the second call
/// is ignored (and reported in debug builds). Released uncalled: the await completes with
/// `RJAsyncError.callbackDropped`, so the body goes on and its stack is freed.
final class CallbackToken: @unchecked Sendable {
    private let slot: AwaitSlot
    private let called = RJAtomic<Bool>(false)

    init(_ slot: AwaitSlot) {
        self.slot = slot
    }

    func call(_ value: Any?, _ error: (any Error)?) {
        guard !called.exchange(true, ordering: .acquiringAndReleasing) else {
            #if DEBUG
            rj_report("RJIterator: an rj_await callback was called twice; the second call is ignored")
            #endif
            return
        }
        slot.complete(RJResult(value: value, error: error, done: false))
    }

    deinit {
        if !called.load(ordering: .acquiring) {
            slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false))
        }
    }
}
