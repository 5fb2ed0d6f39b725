import CRJContext
import Foundation
import RJLocks

// Serving an async generator's requests: the actions of its state machine
// (AsyncGeneratorStateMachine.swift) carried out. A request is served by whichever thread
// holds `busy`: its caller's, when it found the generator idle; otherwise the thread that ran
// the request before it, or the one that completed the body's await. `drive` is that loop.

extension AsyncGenerator {
    /// Runs the body for `operation` until it yields, ends or awaits. Called holding `busy`.
    @inlinable @inline(__always)
    func serve(_ operation: GeneratorOperation<Input, Return>) -> AsyncServed<Element, Return> {
        do {
            // The hot path, a `next`, folds to its one case; the others are rare.
            if case .next(let input) = operation { return Self.served(try core.perform(.next(.input(input)))) }
            return Self.served(try core.performOutOfLine(Self.coreOperation(operation)))
        } catch {
            return .answered(.failure(error))
        }
    }

    /// `operation` as the core generator takes it: inputs wrapped (the core is also resumed
    /// with awaits' results). A delegation's first step resumes a suspended body whose `Input`
    /// is `Void` with `()`, as ES2018's `yield*` does.
    @inlinable @inline(__always)
    static func coreOperation(_ operation: GeneratorOperation<Input, Return>) -> GeneratorOperation<AsyncResume<Input>, Return> {
        switch operation {
        case .next(let input): return .next(.input(input))
        case .send(let input): return .send(.input(input))
        case .start: return .start
        case .delegate:
            if let input = () as? Input { return .next(.input(input)) }
            return .delegate
        case .throwing(let error): return .throwing(error)
        case .returning(let value): return .returning(value)
        case .close: return .close
        }
    }

    /// Resumes the body, waiting in an await, with that await's result. Called holding `busy`.
    @inlinable
    func serve(afterAwait result: RJResult) -> AsyncServed<Element, Return> {
        do {
            awaitResult = result
            return Self.served(try core.perform(.next(.awaited)))
        } catch {
            return .answered(.failure(error))
        }
    }

    @inlinable
    static func served(_ step: GeneratorStep<AsyncEvent<Element>, Return>) -> AsyncServed<Element, Return> {
        switch step {
        case .yielded(.yielded(let value)): return .answered(.success(.yielded(value)))
        case .yielded(.awaiting(let generation)): return .awaiting(generation)
        case .returned(let value): return .answered(.success(.returned(value)))
        }
    }

    /// A request answered on its caller's thread (the fast path), holding `busy`: what follows
    /// is the state machine's `settle`, as after every answer. The caller's own answer is its
    /// return value, so what must come after it goes to the generator's queue: the next
    /// request's serving, or the answers of the requests left waiting when the body ended.
    @inlinable
    func finishRequest() {
        let ended = core.state == .completed
        // No await will use the spare token (see deinit).
        if ended { awaits.spareToken = nil }
        switch lock.withLock({ machine.settle(bodyEnded: ended) }) {
        case .idle:
            return
        case .serveNext(let next):
            driveOnQueue(next)
        case .ended(let left):
            if left.isEmpty { return }
            let answers = left.map { ($0, outcomeAnswer(operation(of: $0))) }
            queue.async { for (waiting, answer) in answers { waiting.answer(answer) } }
        }
    }

    /// A request on a generator whose body has ended, answered as the completed core answers
    /// it (the completed row of its state machine's table, which takes and changes nothing):
    /// `next` reports the kept outcome, `return(v)` gives `.returned(v)`, `throw(e)` throws `e`.
    @inlinable
    func outcomeAnswer(_ operation: GeneratorOperation<Input, Return>) -> Result<GeneratorStep<Element, Return>, any Error> {
        Result {
            switch try core.carryOut(core.machine.completedAction(Self.coreOperation(operation))) {
            case .returned(let value): return .returned(value)
            case .yielded: fatalError("RJIterator: internal error: a completed async generator yielded")
            }
        }
    }

    /// The operation `request` carries (typed again: requests hold it erased).
    @inlinable
    func operation(of request: AsyncRequest) -> GeneratorOperation<Input, Return> {
        request.operation as! GeneratorOperation<Input, Return>
    }

    /// What resumes the body: a request's operation, or an await's result.
    @usableFromInline
    enum Resumption {
        case operation(GeneratorOperation<Input, Return>)
        case awaited(RJResult)
    }

    /// Serves `request`, and the ones waiting after it, holding `busy`, on whichever thread
    /// calls it; returns when none is left or the body awaits.
    ///
    /// Returns the last answer, not yet given: the caller gives it once it no longer holds the
    /// generator (the answer order, AsyncGeneratorStateMachine.swift).
    @inlinable
    func drive(_ first: AsyncRequest, _ firstResumption: Resumption) -> FinalAnswer? {
        var request = first
        var resumption = firstResumption
        lock.withLock { machine.startServing(request) }
        while true {
            let served: AsyncServed<Element, Return>
            switch resumption {
            case .operation(let operation): served = serve(operation)
            case .awaited(let result): served = serve(afterAwait: result)
            }
            let result: Result<GeneratorStep<Element, Return>, any Error>
            switch served {
            case .awaiting(let generation):
                guard let awaited = arm(request, awaiting: generation) else { return nil }
                resumption = .awaited(awaited)
                continue
            case .answered(let answered):
                result = answered
            }
            if bufferCapacity > 0, core.state != .completed {
                // With a buffer the answer goes in first (it may fill the buffer), and the
                // caller keeps the generator while the body runs ahead.
                lock.withLock { machine.answered() }
                request.answer(result)
                guard let next = nextAfterBufferedAnswer() else { return nil }
                request = next
                resumption = .operation(operation(of: next))
                continue
            }
            let ended = core.state == .completed
            if ended { awaits.spareToken = nil }
            switch lock.withLock({ machine.settle(bodyEnded: ended) }) {
            case .ended(let left):
                // Its callers see the end. In order: this request, then those that waited.
                let answers = left.map { ($0, outcomeAnswer(operation(of: $0))) }
                return FinalAnswer { [request] in
                    request.answer(result)
                    for (waiting, answer) in answers { waiting.answer(answer) }
                }
            case .idle:
                return FinalAnswer { [request] in request.answer(result) }
            case .serveNext(let next):
                // The next one's requester holds the generator while it is served.
                request.answer(result)
                request = next
                resumption = .operation(operation(of: next))
            }
        }
    }

    /// Serves `request` from the generator's queue, letting go of the generator before the
    /// last answer goes out.
    @inlinable
    func driveOnQueue(_ request: AsyncRequest) {
        let unretained = Unmanaged.passRetained(self)
        queue.async {
            let last: FinalAnswer? = {
                let generator = unretained.takeRetainedValue()
                return generator.drive(request, .operation(generator.operation(of: request)))
            }()
            last?.give()
        }
    }

    /// Queues `request`, or serves it here if nothing is in progress, or answers it from the
    /// kept outcome if the body has ended.
    @inlinable
    func submit(_ request: AsyncRequest) {
        switch lock.withLock({ machine.submit(request) }) {
        case .serveHere: drive(request, .operation(operation(of: request)))?.give()
        case .queued: break
        case .answerFromOutcome: request.answer(outcomeAnswer(operation(of: request)))
        }
    }

    /// Cancels `request`. A waiting one is dropped and throws `CancellationError` now. The one
    /// being served cancels the generator: its pending await gives `CancellationError`, and so
    /// does every later await and `yield` of the body, which unwinds (no value is yielded to
    /// nobody); the request throws `CancellationError` once the body has ended, so its caller
    /// goes on only after the body's cleanups ran. (Not inlined: a rare path.)
    @usableFromInline
    func cancel(_ request: AsyncRequest) {
        switch lock.withLock({ machine.cancel(request) }) {
        case .dropped:
            request.answer(Result<Step, any Error>.failure(CancellationError()))
        case .served(let pending):
            guard request.cancel() else { return }
            cancelled.store(true, ordering: .releasing)
            if let generation = pending {
                // Not here: this runs in a task's cancellation handler, and the await's
                // completion may resume the body on the completing thread.
                queue.async { self.awaits.cancel(generation, with: CancellationError()) }
            }
        case .elsewhere:
            // Answered already, or between the queue and being served (the body will serve it
            // and meet the cancellation at its next await or yield).
            if request.cancel() { cancelled.store(true, ordering: .releasing) }
        }
    }

    // MARK: The body's awaits

    /// The body waits in await `generation` while serving `request`: records both and arms
    /// the await, whose completion resumes the body on the queue. Returns the result when the
    /// await has completed already (the caller resumes the body at once).
    @inlinable
    func arm(_ request: AsyncRequest, awaiting generation: UInt64) -> RJResult? {
        let cancelledMeanwhile = lock.withLock { () -> Bool in
            machine.awaiting(generation, serving: request)
            return cancelled.load(ordering: .relaxed)
        }
        if cancelledMeanwhile { awaits.cancel(generation, with: cancellationError) }
        if resumer == nil { resumer = makeResumer() }
        guard awaits.arm(generation, resumer.unsafelyUnwrapped) else { return nil }
        return awaits.takeResult()
    }

    /// Resumes the body with an await's result: on `resumeQueue`, or right here, on the thread
    /// that completed the await. Made once, by the first await (in code specialised for the
    /// generator's types), and kept. Unowned: a body waiting in an await holds its generator
    /// (`suspend(awaiting:)` retains it for as long as it waits).
    @inlinable
    func makeResumer() -> @Sendable (UncheckedBox<RJResult>) -> Void {
        { [unowned self] box in
            let resume = { @Sendable [unowned self] in
                // The generator is held only inside this call: the last answer goes out after.
                let last: FinalAnswer? = { [unowned self] in
                    let request = self.lock.withLock { self.machine.servedRequest }
                    guard let request else { return nil }
                    return self.drive(request, .awaited(box.value))
                }()
                last?.give()
            }
            if let resumeQueue = self.resumeQueue { resumeQueue.async(execute: resume) } else { resume() }
        }
    }

    /// The body's side of an `rj_await`: suspends its coroutine until the await completes.
    @inlinable
    func suspendSpecialised(awaiting generation: UInt64) -> RJResult {
        if awaits.hasEarlyResult(generation) {
            wait.ended()
            return awaits.takeResult()
        }
        wait.began()
        defer { wait.ended() }
        // While the body waits nothing else may hold the generator: this frame keeps it, and
        // the coroutine and stack it owns, alive until the resume.
        let keptAlive = Unmanaged.passRetained(self)
        defer { keptAlive.release() }
        let current = rj_coro_current().unsafelyUnwrapped
        switch core.suspend(current, yielding: AsyncEvent<Element>.awaiting(generation), resumedWith: AsyncResume<Input>.self) {
        case .value(.awaited): return awaitResult.take().unsafelyUnwrapped
        case .value(.input): fatalError("RJIterator: internal error: an async generator's await was resumed with an input")
        case .error(let error): return RJResult(value: nil, error: error, done: false)
        case .close: return RJResult(value: nil, error: CancellationError(), done: false)
        case .delegateDone: fatalError("RJIterator: internal error: a delegation's signal reached rj_await")
        }
    }
}
