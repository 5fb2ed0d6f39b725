import RJLocks

// The pieces an async generator is made of (AsyncGenerator.swift has the whole story).

/// What an async generator's body hands out when its coroutine suspends: a value for the
/// request being served, or the generation of an await it now waits in.
@usableFromInline
enum AsyncEvent<Element> {
    case yielded(Element)
    case awaiting(UInt64)
}

/// What an async generator's body is resumed with: a request's input at a `yield`, or an
/// await's result in `rj_await`.
@usableFromInline
enum AsyncResume<Input> {
    case input(Input)
    case awaited(RJResult)
}

/// One call of `next`, `return` or `throw`, as a request to the body.
@usableFromInline
enum AsyncOperation<Input, Return> {
    case next(Input)
    case returning(Return)
    case throwing(any Error)
    /// The first step of a delegation (`yieldAll` of an async generator): starts a fresh
    /// body, or resumes a suspended one whose `Input` is `Void`.
    case start
    /// A delegation's close: the body's `yield` throws the exit signal.
    case close
}

/// How far one step of the body got.
@usableFromInline
enum AsyncServed<Element, Return> {
    /// The request is answered: the body yielded or ended.
    case answered(Result<GeneratorStep<Element, Return>, any Error>)
    /// The body waits in an await of this generation; the request is answered later.
    case awaiting(UInt64)
}

/// A request that could not be answered at once: queued behind others, or served while the
/// body awaits. Its answer comes from whichever thread runs the body then; the caller waits
/// for it with a continuation (Swift concurrency) or a callback (an `rj_await`).
@usableFromInline
final class AsyncRequest<Element: Sendable, Input: Sendable, Return: Sendable>: @unchecked Sendable {
    @usableFromInline let operation: AsyncOperation<Input, Return>
    private let lock = RJLock()
    // Guarded by `lock`.
    @exclusivity(unchecked) private var answer: Result<GeneratorStep<Element, Return>, any Error>?
    @exclusivity(unchecked) private var continuation: CheckedContinuation<GeneratorStep<Element, Return>, any Error>?
    @exclusivity(unchecked) private var callback: (@Sendable () -> Void)?

    @usableFromInline init(_ operation: AsyncOperation<Input, Return>) {
        self.operation = operation
    }

    /// Answers the request; only the first answer counts (a cancellation may come first).
    @usableFromInline
    func answer(_ result: Result<GeneratorStep<Element, Return>, any Error>) {
        let (waiting, notify): (CheckedContinuation<GeneratorStep<Element, Return>, any Error>?, (@Sendable () -> Void)?) = lock.withLock {
            if answer != nil { return (nil, nil) }
            answer = result
            return (continuation.take(), callback.take())
        }
        waiting?.resume(with: result)
        notify?()
    }

    /// Whether the request has been answered.
    var isAnswered: Bool { lock.withLock { answer != nil } }

    /// The answer, once given (an `rj_await` reads it after its callback).
    var result: Result<GeneratorStep<Element, Return>, any Error>? { lock.withLock { answer } }

    /// Waits, from Swift concurrency, for the answer.
    @usableFromInline
    func wait() async throws -> GeneratorStep<Element, Return> {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<GeneratorStep<Element, Return>, any Error>) in
            let ready: Result<GeneratorStep<Element, Return>, any Error>? = lock.withLock {
                if let answer { return answer }
                continuation = waiter
                return nil
            }
            if let ready { waiter.resume(with: ready) }
        }
    }

    /// Calls `notify` once answered (at once if it is).
    func onAnswer(_ notify: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if answer != nil { return true }
            callback = notify
            return false
        }
        if now { notify() }
    }
}
