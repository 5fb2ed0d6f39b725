// Consuming an async generator from an `rj_async` body or another async generator's body: each
// step is an `rj_await`, with no Swift task in between.

extension AsyncGenerator {
    /// Performs `operation` as an await of the body running on this thread: served right
    /// here when nothing else is in progress (the generator's body runs on its own stack, as a
    /// generator a body runs does), otherwise queued; the awaiting body suspends until the
    /// answer, which resumes it on its own queue.
    @usableFromInline
    func awaitStep(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return> {
        guard let current = _RJAwaitHost.current else { throw RJAsyncError.notInAsync }
        if current === self {
            // Its own request would wait behind the one it is serving, forever.
            throw GeneratorError.alreadyRunning
        }
        if current.isCancelled { throw current.cancellationError }
        if bufferCapacity > 0 {
            // Through the buffer, as every request of a buffered generator: values in order.
            switch startBuffered(operation) {
            case .answered(let result): return try result.get()
            case .waits(let request): return try wait(for: request, in: current)
            }
        }
        if machine.beginServingIfIdle() {
            switch serve(operation) {
            case .answered(let result):
                finishRequest()
                return try result.get()
            case .awaiting(let generation):
                let request = AsyncRequest(operation)
                if let result = arm(request, awaiting: generation) { drive(request, .awaited(result))?.give() }
                return try wait(for: request, in: current)
            }
        }
        let request = AsyncRequest(operation)
        submit(request)
        return try wait(for: request, in: current)
    }

    /// Suspends the body of `current` in an await until `request` is answered; cancelling
    /// `current` cancels the request.
    private func wait(for request: AsyncRequest, in current: _RJAwaitHost) throws -> GeneratorStep<Element, Return> {
        let slot = current.awaits
        let generation = slot.begin()
        slot.setOnCancel({ self.cancel(request) }, for: generation)
        request.onAnswer { slot.complete(RJResult(), for: generation) }
        let awaited = current.suspend(awaiting: generation)
        if let error = awaited.error { throw error }
        guard let answer = request.result(GeneratorStep<Element, Return>.self) else { throw current.cancellationError }
        return try answer.get()
    }
}

/// Waits, inside an `rj_async` body or an async generator's body, for the next step of
/// `generator`, without blocking the body's queue: the result's value is the yielded value
/// (`done` false) or, once the generator has returned, its return value (`done` true); its
/// error is what the generator threw. The seed's iterator result, for an async generator.
///
/// ```swift
/// rj_async(on: queue) {
///     while true {
///         let r = rj_await(nextOf: items)
///         if r.error != nil || r.done { break }
///         print(r.value!)
///     }
/// }
/// ```
public func rj_await<Element, Return>(nextOf generator: AsyncGenerator<Element, Void, Return>) -> RJResult {
    rj_await(nextOf: generator, sending: ())
}

/// ``rj_await(nextOf:)`` for a generator that takes inputs: `input` is what its pending
/// `yield` returns.
///
/// ```swift
/// let r = rj_await(nextOf: averager, sending: 10.0)
/// ```
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

/// The typed form of ``rj_await(nextOf:)``: the next step of `generator`, or its error (or an
/// ``RJAsyncError``) thrown.
///
/// ```swift
/// while case .yielded(let item) = try rj_awaitValue(nextOf: items) { print(item) }
/// ```
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
public func rj_awaitValue<Element, Input, Return>(nextOf generator: AsyncGenerator<Element, Input, Return>, sending input: Input)
    throws -> GeneratorStep<Element, Return>
{
    try generator.awaitStep(.next(input))
}
