import CRJContext
import CRJShims
import Foundation
import RJLocks

// Serving an async generator's requests: the state machine's decisions carried out. A turn runs
// on the thread the machine gave it to: the caller's, when it found the generator idle
// (`serveCaller`, the fast path); else the previous turn's, an await's completer's, or the queue's (`drive`).

extension AsyncGeneratorStorage {
    /// What `attempt` (a request's synchronous part) achieved.
    @usableFromInline
    enum Attempt {
        case answered(Result<Step, any Error>)
        /// Served until the body awaited: the caller waits for this request's answer.
        case pending(AsyncRequest)
        /// Something else is in progress: the caller waits as a request.
        case later
        /// The calling task is cancelled: nothing was done.
        case cancelled
    }

    /// A request from Swift concurrency, its synchronous part: served here when nothing else is in progress.
    @inlinable @inline(__always)
    func attempt(_ operation: Operation) -> Attempt {
        // `Task.isCancelled`, without its retain and release of the task (CRJShims).
        if rj_current_task_is_cancelled() { return .cancelled }
        return serveCaller(operation)
    }

    /// `attempt` out of the async function that calls it, so a request's fast path is small enough
    /// to be inlined into its caller (a `for try await` loop): no executor switch, no async frame.
    @inlinable @inline(never)
    func attemptOutOfLine(_ operation: Operation) -> Attempt {
        attempt(operation)
    }

    /// `serveCaller` out of line, without the task's cancellation check (a loop makes it every 32).
    @inlinable @inline(never)
    func serveCallerOutOfLine(_ operation: Operation) -> Attempt {
        serveCaller(operation)
    }

    /// The caller runs the body for its request on its own thread, if nothing is in progress.
    @inlinable @inline(__always)
    func serveCaller(_ operation: Operation) -> Attempt {
        typealias Machine = AsyncGeneratorStateMachine
        // Idle, as the lock word says: the turn is this caller's, with one compare-exchange.
        if state.transition(from: Machine.idleHint, to: Machine.callerTurnHint) {
            let served = serve(operation)
            if case .yielded(let value) = served, state.transition(from: Machine.callerTurnHint, to: Machine.idleHint) {
                return .answered(.success(.yielded(value)))
            }
            return callerTurnEnded(operation, served)
        }
        return serveCallerSlowly(operation)
    }

    /// The rest of `serveCaller` when the generator was not simply idle.
    @inlinable @inline(never)
    func serveCallerSlowly(_ operation: Operation) -> Attempt {
        switch state.withLock({ $0.callerArrives(isNext: operation.isNext) }) {
        case .serve:
            break
        case .take(let value, let produce):
            if produce { goOnInBackground(.produce) }
            return .answered(.success(.yielded(value as! Element)))
        case .outcome(let ending):
            return .answered(outcomeAnswer(operation, ending))
        case .wait:
            return .later
        }
        return callerTurnEnded(operation, serve(operation))
    }

    /// The caller's turn ended other than at a `yield` with nobody behind: someone came, a buffer,
    /// the body ended, or it awaits.
    @inlinable @inline(never)
    func callerTurnEnded(_ operation: Operation, _ served: AsyncServed<Element, Return>) -> Attempt {
        switch served {
        case .yielded(let value):
            let next = state.withLock { $0.callerTurnYielded() }
            if case .stop = next { return .answered(.success(.yielded(value))) }
            // The caller's answer is its return value: what comes after it goes to the queue.
            goOnInBackground(next)
            return .answered(.success(.yielded(value)))
        case .ended(let result):
            let end = state.withLock { $0.turnEnded() }
            if !end.left.isEmpty {
                let box = UncheckedBox(value: end)
                queue.async { self.answerLeft(box.value) }
            }
            return .answered(result)
        case .awaiting(let generation):
            // The body waits for work: from here the request is answered from elsewhere.
            let request = AsyncRequest(operation, isNext: operation.isNext)
            if case .resumeNow = state.withLock({ $0.turnAwaits(generation, callerNowWaitingAs: request) }) {
                drive(.awaited)
            }
            return .pending(request)
        }
    }

    /// The turn the machine gave the generator's queue after a caller's answer.
    @inlinable
    func goOnInBackground(_ next: AsyncGeneratorStateMachine.Next) {
        guard let resumption = resumption(for: next) else { return }
        let box = UncheckedBox(value: resumption)
        queue.async { self.drive(box.value) }
    }

    /// How the body is resumed for what the turn does next; nil for `stop`.
    @inlinable
    func resumption(for next: AsyncGeneratorStateMachine.Next) -> AsyncResumption<Input, Return>? {
        switch next {
        case .stop: return nil
        // Only a generator with a buffer produces ahead, and its `Input` is `Void`.
        case .produce: return .operation(.next(() as! Input))
        case .serve(let request): return .operation(operation(of: request))
        case .cancel: return .cancellation
        }
    }

    @inlinable @inline(__always)
    func serve(_ resumption: AsyncResumption<Input, Return>) -> AsyncServed<Element, Return> {
        switch resumption {
        case .operation(let operation): return serve(operation)
        case .awaited: return served { try core.performOutOfLine(.next(.awaited)) }
        case .cancellation: return served { try core.performOutOfLine(.throwing(CancellationError())) }
        }
    }

    @inlinable @inline(__always)
    func serve(_ operation: Operation) -> AsyncServed<Element, Return> {
        // The hot path, a `next`, folds to its one case; the others are rare.
        if case .next(let input) = operation { return served { try core.perform(.next(.input(input))) } }
        return served { try core.performOutOfLine(Self.coreOperation(operation)) }
    }

    /// How far `step`, one step of the core, got.
    @inlinable @inline(__always)
    func served(_ step: () throws -> GeneratorStep<AsyncEvent<Element>, Return>) -> AsyncServed<Element, Return> {
        do {
            switch try step() {
            case .yielded(.yielded(let value)): return .yielded(value)
            case .yielded(.awaiting(let generation)): return .awaiting(generation)
            case .returned(let value): return .ended(.success(.returned(value)))
            }
        } catch {
            return .ended(.failure(error))
        }
    }

    /// `operation` as the core takes it: inputs wrapped (the core is also resumed with awaits'
    /// results); a delegation's first step resumes a suspended `Void`-input body with `()` (ES2018).
    @inlinable @inline(__always)
    static func coreOperation(_ operation: Operation) -> GeneratorOperation<AsyncResume<Input>, Return> {
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

    /// Runs the turn the machine gave this thread, step after step, until the body awaits, the
    /// generator is idle, or the body has ended; each answer goes out before what queued behind it.
    @inlinable
    func drive(_ first: AsyncResumption<Input, Return>) {
        var resumption = first
        while true {
            switch serve(resumption) {
            case .awaiting(let generation):
                switch state.withLock({ $0.turnAwaits(generation, callerNowWaitingAs: nil) }) {
                case .wait: return
                case .resumeNow: resumption = .awaited
                }
            case .yielded(let value):
                switch state.withLock({ $0.turnYielded { value } }) {
                case .answer(let request, let next):
                    answer(request, .success(.yielded(value)))
                    guard let goOn = self.resumption(for: next) else { return }
                    resumption = goOn
                case .noAnswer(let next):
                    guard let goOn = self.resumption(for: next) else { return }
                    resumption = goOn
                case .refuse:
                    resumption = .cancellation
                case .closeForRelease:
                    return closeForRelease()
                }
            case .ended(let result):
                let end = state.withLock { $0.turnEnded() }
                if case .request(let request) = end.served { answer(request, result) }
                answerLeft(end)
                return
            }
        }
    }

    /// The requests left waiting when the body ended, answered in order from its kept outcome.
    @inlinable
    func answerLeft(_ end: AsyncGeneratorStateMachine.AfterEnd) {
        for request in end.left { answer(request, outcomeAnswer(operation(of: request), end.ending)) }
    }

    // MARK: Requests that wait, from Swift concurrency

    /// The rest of a request that `attempt` could not answer at once.
    @inlinable @inline(never)
    nonisolated(nonsending) func answerLater(_ operation: Operation, _ attempt: Attempt) async throws -> Step {
        switch attempt {
        case .answered(let result): return try result.get()
        case .pending(let request): return try await wait(for: request)
        case .later: return try await submit(AsyncRequest(operation, isNext: operation.isNext))
        case .cancelled:
            cancellationArrives()
            throw CancellationError()
        }
    }

    /// Waits for `request`'s answer (the turn's, or queued); cancelling the task cancels it.
    @inlinable
    nonisolated(nonsending) func wait(for request: AsyncRequest) async throws -> Step {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Step, any Error>) in
                let raw = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
                let waits = state.withLock { _ -> Bool in
                    if request.answer != nil { return false }
                    request.waiter = .continuation(raw)
                    return true
                }
                if !waits { continuation.resume(with: keptAnswer(of: request)!) }
            }
        } onCancel: {
            self.cancel(request)
        }
    }

    /// Queues `request` (or serves it, if the generator became idle) and waits for its answer.
    @inlinable
    nonisolated(nonsending) func submit(_ request: AsyncRequest) async throws -> Step {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Step, any Error>) in
                let raw = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
                let start = state.withLock { machine in
                    request.waiter = .continuation(raw)
                    return machine.requestArrives(request)
                }
                carryOut(start, for: request)
            }
        } onCancel: {
            self.cancel(request)
        }
    }

    /// Carries out what the machine decided for `request`'s arrival.
    @inlinable
    func carryOut(_ start: AsyncGeneratorStateMachine.RequestStart, for request: AsyncRequest) {
        switch start {
        case .serve:
            drive(.operation(operation(of: request)))
        case .take(let value, let produce):
            answer(request, .success(.yielded(value as! Element)))
            if produce { goOnInBackground(.produce) }
        case .outcome(let ending):
            answer(request, outcomeAnswer(operation(of: request), ending))
        case .queued:
            break
        case .cancelled(let start):
            // Its place may close the body now: the caller goes on after the cleanups ran.
            carryOut(start)
            answer(request, .failure(CancellationError()))
        }
    }
}
