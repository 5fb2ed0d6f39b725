import Foundation
import RJLocks

// Running ahead: an async generator made with `bufferingUpTo:` lets its body produce up to that
// many values before they are asked for, on the generator's queue, between requests. The
// values wait in the state machine's buffer; a `next` takes the oldest, or waits as a consumer
// of the next one produced.

extension AsyncGenerator where Input == Void {
    /// Makes an async generator whose body may run ahead of the requests for its values, up
    /// to `capacity` values (produced on the queue, between requests). Values are delivered in
    /// order, each once; `return(_:)` and `throw(_:)` drop the values produced ahead and act at
    /// the body's `yield`. Without this, the body runs only while a request is served.
    ///
    /// ```swift
    /// let prefetched = AsyncGenerator<Page, Void, Void>(bufferingUpTo: 2) { y in
    ///     var n = 0
    ///     while let page = try rj_awaitValue(fetch(n)) { try y.yield(page); n += 1 }
    /// }
    /// ```
    @inlinable
    public convenience init(bufferingUpTo capacity: Int, on queue: DispatchQueue? = nil, stackMode: StackMode? = nil,
                            file: StaticString = #fileID, line: UInt = #line,
                            _ body: @escaping @Sendable (AsyncYielder<Element, Void>) throws -> Return) {
        if capacity < 0 { fatalError("RJIterator: bufferingUpTo needs a capacity of 0 or more, got \(capacity)") }
        self.init(bufferCapacity: capacity, queue: queue, stackMode: stackMode, file: file, line: line, body)
    }
}

extension AsyncGenerator {
    /// A request of a generator with a buffer: a `next` takes the oldest value produced ahead,
    /// or waits for the next one (and keeps the body producing); `return` and `throw` drop
    /// what was produced ahead and act at the body's `yield`, after the value in production.
    @inlinable
    nonisolated(nonsending) func requestBuffered(_ operation: GeneratorOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        switch startBuffered(operation) {
        case .answered(let result): return try result.get()
        case .waits(let request): return try await waitCancellably(request)
        }
    }

    /// What `startBuffered` achieved.
    @usableFromInline
    enum BufferedStart {
        /// Answered from the buffer (or the kept outcome).
        case answered(Result<GeneratorStep<Element, Return>, any Error>)
        /// Queued, as a consumer of the next value or behind the request being served.
        case waits(AsyncRequest)
    }

    /// The synchronous part of a request of a generator with a buffer, for Swift concurrency's
    /// callers and `rj_await(nextOf:)`'s alike, so that both see the values in one order.
    @inlinable
    func startBuffered(_ operation: GeneratorOperation<Input, Return>) -> BufferedStart {
        let request = AsyncRequest(operation)
        guard case .next = operation else {
            lock.withLock { machine.dropBuffered() }
            submit(request)
            return .waits(request)
        }
        switch lock.withLock({ machine.take(for: request) }) {
        case .ready(let value):
            keepProducing()
            return .answered(value)
        case .ended:
            return .answered(outcomeAnswer(operation))
        case .waits:
            keepProducing()
            return .waits(request)
        }
    }

    /// Starts the body producing ahead on the queue if it is idle and the buffer has room.
    @inlinable
    func keepProducing() {
        guard machine.beginServingIfIdle() else { return }
        guard let ahead = produceAhead() else {
            // Full: give `busy` back (or serve what waits).
            if machine.endServingIfAlone() { return }
            if let next = lock.withLock({ machine.takeNextWaiting() }) { driveOnQueue(next) }
            return
        }
        // Producing ahead: nobody may be waiting, so the block holds the generator.
        queue.async { self.drive(ahead, .operation(self.operation(of: ahead)))?.give() }
    }

    /// Holding `busy` with no request left to serve: the next value to produce ahead, as a
    /// request whose answer goes to the first waiting consumer or into the buffer; nil when
    /// the generator has no buffer, the buffer is full, or requests wait to be served.
    @inlinable
    func produceAhead() -> AsyncRequest? {
        guard bufferCapacity > 0, lock.withLock({ machine.hasRoomAhead(capacity: bufferCapacity) }) else { return nil }
        // A generator with a buffer has a Void input (its buffered initialiser).
        let ahead = AsyncRequest(GeneratorOperation<Input, Return>.next(() as! Input))
        // Strong: the last answer of a turn goes out once the serving thread has let go of the
        // generator (AsyncGeneratorStateMachine.swift), and this answer still needs it, to fill
        // the buffer, when every consumer has dropped it meanwhile. Taken and released once the
        // answer is given.
        ahead.onAnswer { [self, unowned ahead] in self.deliver(ahead.result(Step.self).unsafelyUnwrapped) }
        return ahead
    }

    /// A value produced ahead: to the first consumer waiting, or into the buffer.
    @inlinable
    func deliver(_ result: Result<GeneratorStep<Element, Return>, any Error>) {
        lock.withLock { machine.deliver(result) }?.answer(result)
    }

    /// After a buffered answer, holding `busy`: the next request to serve (one more value
    /// produced ahead, or a request that waits, now served); nil when `busy` was given back.
    @inlinable
    func nextAfterBufferedAnswer() -> AsyncRequest? {
        if let ahead = produceAhead() {
            lock.withLock { machine.startServing(ahead) }
            return ahead
        }
        if machine.endServingIfAlone() { return nil }
        return lock.withLock { () -> AsyncRequest? in
            guard let next = machine.takeNextWaiting() else { return nil }
            machine.startServing(next)
            return next
        }
    }
}
