import CRJContext
import Foundation

/// Moves a value that is not `Sendable` across a queue hop whose ordering makes it safe (the
/// value is written before the hop and read after it, never at the same time).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}

/// One pending `rj_await`: completed once, by the callback, by the callback's release, by a
/// timeout or by cancellation, whichever comes first. The task's driver arms it once the body
/// has suspended, so a completion can never resume a body that is still running.
final class AwaitSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var result: RJResult?
    private var resume: (@Sendable (UncheckedBox<RJResult>) -> Void)?
    private var completed = false
    /// Run if the task is cancelled while this await is pending: stops the work behind it.
    var onCancel: (@Sendable () -> Void)?

    /// Completes the await with `result` unless something else did first.
    @discardableResult
    func complete(_ result: RJResult) -> Bool {
        lock.lock()
        if completed {
            lock.unlock()
            return false
        }
        completed = true
        if let resume {
            self.resume = nil
            lock.unlock()
            resume(UncheckedBox(value: result))
        } else {
            self.result = result
            lock.unlock()
        }
        return true
    }

    /// Called by the driver after the body suspended: resumes it now if the result is in.
    func arm(_ resume: @escaping @Sendable (UncheckedBox<RJResult>) -> Void) {
        lock.lock()
        if let result {
            self.result = nil
            lock.unlock()
            resume(UncheckedBox(value: result))
            return
        }
        self.resume = resume
        lock.unlock()
    }

    var isCompleted: Bool { lock.withLock { completed } }
}

/// What the callback closure handed to the awaited work holds. Called twice: the second call
/// is ignored (and reported in debug builds). Released uncalled: the await completes with
/// `RJAsyncError.callbackDropped`, so the body goes on and its stack is freed.
final class CallbackToken: @unchecked Sendable {
    private let slot: AwaitSlot
    private let lock = NSLock()
    private var called = false

    init(_ slot: AwaitSlot) {
        self.slot = slot
    }

    func call(_ value: Any?, _ error: (any Error)?) {
        let first = lock.withLock { () -> Bool in
            defer { called = true }
            return !called
        }
        guard first else {
            #if DEBUG
            rj_report("RJIterator: an rj_await callback was called twice; the second call is ignored")
            #endif
            return
        }
        slot.complete(RJResult(value: value, error: error, done: false))
    }

    deinit {
        if !called { slot.complete(RJResult(value: nil, error: RJAsyncError.callbackDropped, done: false)) }
    }
}
