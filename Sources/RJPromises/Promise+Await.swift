import Dispatch

extension Promise {
    /// Blocks the calling thread until the promise settles; returns the value or throws the
    /// error.
    ///
    /// Deadlock rule: the thread you block must not be the one that has to run the work that
    /// settles the promise. Never call this on the queue that promise's work or blocks run on
    /// (by default `DispatchQueue.promises`, the main queue), nor on the main thread while it
    /// must drain the main queue. The wait itself needs no queue: the promise wakes the thread
    /// directly when it settles.
    ///
    /// ```swift
    /// let page = try fetch(url).awaitPromise()   // from a background thread
    /// ```
    public func awaitPromise() throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let box = OutcomeBox<Value>()
        observeInline { source in
            let outcome = source.settledOutcome
            box.outcome = outcome
            done.signal()
        }
        done.wait()
        return try box.outcome!.get()
    }

    /// The value, awaited from Swift concurrency: suspends the task (not a thread) until the
    /// promise settles, then returns the value or throws the error.
    ///
    /// ```swift
    /// let page = try await fetch(url).value
    /// ```
    public var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                observeInline { continuation.resume(with: $0.settledOutcome) }
            }
        }
    }
}

/// Carries an outcome from the settling thread to the one waiting on the semaphore, which
/// orders the two accesses.
private final class OutcomeBox<Value: Sendable>: @unchecked Sendable {
    var outcome: Result<Value, any Error>?
}
