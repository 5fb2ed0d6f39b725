import RJLocks

// Consuming an async generator from an `rj_async` body or another async generator's body: each
// step is an `rj_await`, with no Swift task between. Inlinable, so that a relay (a body pulling
// from one generator, yielding to the next) runs specialised code: no type metadata looked up.

extension AsyncGeneratorStorage {
    /// Performs `operation` as an await of the body running on this thread: served right here when
    /// nothing else is in progress, else queued, the body suspended until the answer resumes it.
    @inlinable
    func awaitStep(_ operation: Operation) throws -> Step {
        guard let current = _RJAwaitHost.currentUnretained else { throw RJAsyncError.notInAsync }
        return try current._withUnsafeGuaranteedRef { current in try awaitStep(operation, in: current) }
    }

    /// `awaitStep(_:)` once the awaiting body is known. Kept out of the caller's body: inlined into
    /// a relay's loop it ran fewer instructions but slower (docs/performance.md, "Instructions per operation").
    @inlinable @inline(never)
    func awaitStep(_ operation: Operation, in current: _RJAwaitHost) throws -> Step {
        if current === self {
            // Its own request would wait behind the one it is serving, forever.
            throw GeneratorError.alreadyRunning
        }
        // A read from a cancelled body is withdrawn before it is made, as a Swift task's is; a
        // command (`return`, `throw`, a delegation's close) acts whoever sends it.
        if current.isCancelled, operation.isNext { throw CancellationError() }
        switch serveCaller(operation) {
        case .answered(let result): return try result.get()
        case .pending(let id): return try awaitAnswer(of: id, operation, in: current)
        case .later, .cancelled: return try awaitQueued(operation, in: current)
        }
    }

    /// `operation` could not be served at once: it waits its turn as a request, `current` for its answer.
    @inlinable
    func awaitQueued(_ operation: Operation, in current: _RJAwaitHost) throws -> Step {
        switch state.withLock({ $0.requestArrives(operation, isNext: operation.isNext) }) {
        case .serve(let id):
            drive(Self.coreOperation(operation))
            return try awaitAnswer(of: id, operation, in: current)
        case .answered(let answer, let produce):
            if produce { goOn(.produce) }
            return try typed(answer, of: operation).get()
        case .queued(let id):
            return try awaitAnswer(of: id, operation, in: current)
        }
    }

    /// Suspends the body of `current` in an await until request `id` is answered. Cancelling
    /// `current` withdraws a read (its answer, if decided before, is still given); a command
    /// from a cancelled host still acts, its answer dropped when it cannot be waited for.
    @inlinable
    func awaitAnswer(of id: UInt64, _ operation: Operation, in current: _RJAwaitHost) throws -> Step {
        let reads = operation.isNext
        // A read's answer (a value decided before the cancellation, or CancellationError) completes
        // the await, as a Swift task's continuation gets it: the stop is set as the await begins,
        // so a cancellation never completes it in between.
        var stop: (@Sendable () -> Void)?
        if reads { stop = { self.readerCancelled(id, lastReader: false) } }
        guard let generation = current.beginAwait(.nextStep, answeredBy: stop) else {
            return try answerWithoutWaiting(id, reads: reads)
        }
        if let kept = state.withLock({ $0.waiterArrives(id, .body(current, generation: generation)) }) {
            // Answered meanwhile: the await begun is completed at once.
            current.completeAwait(RJResult(), for: generation)
            _ = current.suspend(awaiting: generation)
            return try typed(kept.answer, of: kept.operation).get()
        }
        let awaited = current.suspend(awaiting: generation)
        if let error = awaited.error {
            // Resumed without its answer (its own body closed): as a cancelled host.
            do { return try answerWithoutWaiting(id, reads: reads) } catch is CancellationError { throw error }
        }
        guard let kept = state.withLock({ $0.takeAnswer(id) }) else {
            preconditionFailure("RJIterator: internal error: an await of an async generator's step resumed without its answer")
        }
        return try typed(kept.answer, of: kept.operation).get()
    }

    /// The awaiting host cannot wait (cancelled): a read is withdrawn and gets its answer if one
    /// was decided before, else `CancellationError`; a command's answer is taken if it has one, and
    /// otherwise dropped when it comes (`CancellationError` here).
    @inlinable
    func answerWithoutWaiting(_ id: UInt64, reads: Bool) throws -> Step {
        if reads { readerCancelled(id, lastReader: false) }
        guard let kept = state.withLock({ $0.waiterArrives(id, .nobody) }) else { throw CancellationError() }
        return try typed(kept.answer, of: kept.operation).get()
    }
}

extension AsyncGenerator {
    /// The body running on this thread awaits `operation`'s step (AsyncGeneratorStorage).
    @inlinable
    func awaitStep(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return> {
        try storage.awaitStep(operation)
    }
}

/// Waits, inside an `rj_async` body or an async generator's body, for the next step of
/// `generator`: the result's value is the yielded value (`done` false) or the return value
/// (`done` true); its error is what the generator threw. The seed's iterator result.
///
/// ```swift
/// rj_async(on: queue) {
///     var r = rj_await(nextOf: items)
///     while r.error == nil && !r.done { print(r.value!); r = rj_await(nextOf: items) }
/// }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_await<Element, Return>(nextOf generator: AsyncGenerator<Element, Void, Return>) -> RJResult {
    rj_await(nextOf: generator, sending: ())
}

/// ``rj_await(nextOf:)`` for a generator that takes inputs: `input` is what its `yield` returns.
///
/// ```swift
/// let r = rj_await(nextOf: averager, sending: 10.0)
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_await<Element, Input, Return>(nextOf generator: AsyncGenerator<Element, Input, Return>, sending input: Input) -> RJResult {
    do {
        switch try generator.awaitStep(.next(input)) {
        case .yielded(let value): return RJResult(value: value, error: nil, done: false)
        case .returned(let value): return RJResult(value: value, error: nil, done: true)
        }
    } catch {
        return RJResult(value: nil, error: error, done: false)
    }
}

/// The typed form of ``rj_await(nextOf:)``: the next step, or its error (or an ``RJAsyncError``) thrown.
///
/// ```swift
/// while case .yielded(let item) = try rj_awaitValue(nextOf: items) { print(item) }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_awaitValue<Element, Return>(nextOf generator: AsyncGenerator<Element, Void, Return>) throws
    -> GeneratorStep<Element, Return>
{
    try generator.awaitStep(.next(()))
}

/// The typed form of ``rj_await(nextOf:sending:)``.
///
/// ```swift
/// let step = try rj_awaitValue(nextOf: averager, sending: 10.0)
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
@inlinable
public func rj_awaitValue<Element, Input, Return>(nextOf generator: AsyncGenerator<Element, Input, Return>, sending input: Input)
    throws -> GeneratorStep<Element, Return>
{
    try generator.awaitStep(.next(input))
}
