import RJLocks

/// A request that could not be answered at once: queued behind others, or served while the
/// body awaits. Its answer comes from whichever thread runs the body then; the caller waits
/// for it with a continuation (Swift concurrency) or a callback (an `rj_await`).
///
/// Not generic: its fields hold their generator's types erased (`Any`), because a generic
/// class's deinit is generic code that looks the types of its fields up in the runtime's cache,
/// once per request. The typed accessors below are specialised where they are used.
@usableFromInline
final class AsyncRequest: @unchecked Sendable {
    /// A `GeneratorOperation<Input, Return>` of its generator.
    @usableFromInline let operation: Any
    @usableFromInline let lock = RJLock()
    // Guarded by `lock`.
    /// A `Result<GeneratorStep<Element, Return>, any Error>` once answered.
    @usableFromInline @exclusivity(unchecked) var answer: Any?
    /// A `CheckedContinuation<GeneratorStep<Element, Return>, any Error>` waiting for it.
    @usableFromInline @exclusivity(unchecked) var continuation: Any?
    @usableFromInline @exclusivity(unchecked) var callback: (@Sendable () -> Void)?
    /// Its caller was cancelled while it was served: whatever the body answers, the caller
    /// gets `CancellationError`.
    @usableFromInline @exclusivity(unchecked) var cancelRequested = false

    @usableFromInline init(_ operation: Any) {
        self.operation = operation
    }

    /// Answers the request; only the first answer counts (a dropped request is answered
    /// first). A request whose caller was cancelled is answered `CancellationError`.
    @inlinable
    func answer<Element: Sendable, Return: Sendable>(_ result: Result<GeneratorStep<Element, Return>, any Error>) {
        let (given, waiting, notify): (Result<GeneratorStep<Element, Return>, any Error>, Any?, (@Sendable () -> Void)?) = lock.withLock {
            if answer != nil { return (result, nil, nil) }
            let given = cancelRequested ? .failure(CancellationError()) : result
            answer = given
            return (given, continuation.take(), callback.take())
        }
        if let waiting { (waiting as! CheckedContinuation<GeneratorStep<Element, Return>, any Error>).resume(with: given) }
        notify?()
    }

    /// Marks the request cancelled by its caller; false if it was answered already.
    @inlinable
    func cancel() -> Bool {
        lock.withLock {
            if answer != nil { return false }
            cancelRequested = true
            return true
        }
    }

    /// The answer, once given (an `rj_await` reads it after its callback).
    @inlinable
    func result<Element: Sendable, Return: Sendable>(_: GeneratorStep<Element, Return>.Type) -> Result<GeneratorStep<Element, Return>, any Error>? {
        lock.withLock { answer }.map { $0 as! Result<GeneratorStep<Element, Return>, any Error> }
    }

    /// Waits, from Swift concurrency, for the answer.
    @inlinable
    func wait<Element: Sendable, Return: Sendable>(_: GeneratorStep<Element, Return>.Type) async throws -> GeneratorStep<Element, Return> {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<GeneratorStep<Element, Return>, any Error>) in
            let ready: Any? = lock.withLock {
                if let answer { return answer }
                continuation = waiter
                return nil
            }
            if let ready { waiter.resume(with: ready as! Result<GeneratorStep<Element, Return>, any Error>) }
        }
    }

    /// Calls `notify` once answered (at once if it is).
    @inlinable
    func onAnswer(_ notify: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if answer != nil { return true }
            callback = notify
            return false
        }
        if now { notify() }
    }
}

/// The last answer of a serving turn, given by whoever ran the turn once it no longer holds
/// the generator (see `AsyncGenerator.drive`).
@usableFromInline
struct FinalAnswer: Sendable {
    @usableFromInline let give: @Sendable () -> Void

    @inlinable init(_ give: @escaping @Sendable () -> Void) {
        self.give = give
    }
}
