import RJLocks

// The async generator state machine's transitions for requests that wait, turns, cancellation
// and release, following the table in AsyncGeneratorStateMachine.swift's header. Each returns
// the waiters it let go of with their answers (`AsyncWaiterAnswer`), for the storage to resume
// outside the lock.

extension AsyncGeneratorStateMachine {
    // MARK: Requests that wait

    /// What `requestArrives` decided.
    @usableFromInline
    enum RequestStart {
        /// Nothing in progress: the request's caller serves it now, on its thread (a turn for it).
        case serve(UInt64)
        /// Answered at once (a value produced ahead, the kept outcome); `produce`: the storage
        /// starts a producing turn.
        case answered(AsyncAnswer, produce: Bool)
        /// Behind the turn: its answer comes later.
        case queued(UInt64)
    }

    /// `operation` comes, to wait its turn if it cannot be served now (its caller then waits
    /// for the request's answer: `waiterArrives`).
    @usableFromInline
    mutating func requestArrives(_ operation: Any, isNext: Bool) -> RequestStart {
        switch callerArrives(isNext: isNext) {
        case .serve:
            let request = newRequest(operation, isNext: isNext)
            body = .running(Turn(.request(request)))
            return .serve(request.id)
        case .take(let value, let produce):
            return .answered(.yielded(value), produce: produce)
        case .outcome(let ending):
            return .answered(.outcome(ending), produce: false)
        case .wait:
            let request = newRequest(operation, isNext: isNext)
            if case .waiting(var waiting) = queue {
                queue = .empty
                waiting.append(request)
                queue = .waiting(waiting)
            } else {
                queue = .waiting(FIFO(request))
            }
            return .queued(request.id)
        }
    }

    @usableFromInline
    mutating func newRequest(_ operation: Any, isNext: Bool) -> AsyncRequest {
        lastID &+= 1
        return AsyncRequest(id: lastID, operation: operation, isNext: isNext)
    }

    /// The waiter of request `id` comes: the answer if it was decided already (taken out),
    /// else `nil` and the waiter waits in the request.
    @usableFromInline
    mutating func waiterArrives(_ id: UInt64, _ waiter: AsyncWaiter) -> AsyncKeptAnswer? {
        if let index = kept.firstIndex(where: { $0.id == id }) { return kept.remove(at: index) }
        if case .running(var turn) = body {
            switch turn.serving {
            case .request(var request) where request.id == id:
                request.waiter = waiter
                turn.serving = .request(request)
                body = .running(turn)
                return nil
            case .closing(var closers):
                if let index = closers.firstIndex(where: { $0.id == id }) {
                    closers[index].waiter = waiter
                    turn.serving = .closing(closers)
                    body = .running(turn)
                    return nil
                }
            default:
                break
            }
        }
        if case .waiting(var waiting) = queue, let index = waiting.items.firstIndex(where: { $0.id == id }) {
            queue = .empty
            waiting.items[index].waiter = waiter
            queue = .waiting(waiting)
            return nil
        }
        preconditionFailure("RJIterator: internal error: an async generator's request \(id) has no answer and does not wait")
    }

    /// The answer kept for request `id`, taken out (a body resumed from its await takes it).
    @usableFromInline
    mutating func takeAnswer(_ id: UInt64) -> AsyncKeptAnswer? {
        guard let index = kept.firstIndex(where: { $0.id == id }) else { return nil }
        return kept.remove(at: index)
    }

    /// `request` gets `answer`: its waiter is let go of, with the answer (`box` makes a kept
    /// answer of one at hand); a request without a waiter, or whose waiter is a body, keeps it.
    @usableFromInline
    mutating func answer(_ request: AsyncRequest, _ answer: AsyncAnswer, box: () -> AsyncAnswer) -> AsyncWaiterAnswer? {
        func keep() {
            let kept = if case .atHand = answer { box() } else { answer }
            self.kept.append(AsyncKeptAnswer(id: request.id, operation: request.operation, answer: kept))
        }
        switch request.waiter {
        case .task:
            return AsyncWaiterAnswer(waiter: request.waiter, operation: request.operation, answer: answer)
        case .none:
            keep()
            return nil
        case .body:
            keep()
            return AsyncWaiterAnswer(waiter: request.waiter, operation: request.operation, answer: answer)
        case .nobody:
            return nil
        }
    }

    // MARK: A turn's steps (the storage's serving loop)

    /// What `turnYielded` decided.
    @usableFromInline
    enum AfterYield {
        /// The value goes to this waiter (if any), then the turn goes on with `then`.
        case answer(AsyncWaiterAnswer?, then: Next)
        /// The body is cancelled: its `yield` is refused (resume it with `CancellationError`).
        case refuse
        /// The cancelled body yielded again after a refusal: these get `CancellationError` now,
        /// and the body is closed as on release.
        case ignoredCancellation([AsyncWaiterAnswer])
        /// The generator was released: close the body at this `yield`.
        case closeForRelease
    }

    /// The body yielded during a storage turn (not a caller's); `value` is boxed only if kept.
    @usableFromInline
    mutating func turnYielded(_ value: () -> Any) -> AfterYield {
        guard case .running(var turn) = body else {
            preconditionFailure("RJIterator: internal error: an async generator's body yielded without a turn")
        }
        if turn.released { return .closeForRelease }
        switch turn.serving {
        case .request(let request):
            let waiterAnswer = answer(request, .atHand) { .yielded(value()) }
            return .answer(waiterAnswer, then: nextTurnAfterAnswer())
        case .caller:
            preconditionFailure("RJIterator: internal error: a caller's turn yielded through the storage's loop")
        case .closing(let closers):
            if !turn.refused {
                turn.refused = true
                body = .running(turn)
                return .refuse
            }
            turn.serving = .closing([])
            body = .running(turn)
            return .ignoredCancellation(closers.compactMap { answer($0, .cancellation) { .cancellation } })
        case .dropping:
            return .answer(nil, then: nextTurnAfterAnswer())
        case .ahead:
            break
        }
        // Produced ahead: to the first waiting read; in place of a waiting return or throw
        // (dropped); or kept.
        switch queue {
        case .waiting(var waiting):
            guard waiting.first!.isNext else { return .answer(nil, then: nextTurnAfterAnswer()) }
            queue = .empty
            let head = waiting.pop()
            if !waiting.isEmpty { queue = .waiting(waiting) }
            let waiterAnswer = answer(head, .atHand) { .yielded(value()) }
            return .answer(waiterAnswer, then: nextTurnAfterAnswer())
        case .empty:
            queue = .ahead(FIFO(value()))
            return .answer(nil, then: nextForKept())
        case .ahead(var values):
            queue = .empty
            values.append(value())
            queue = .ahead(values)
            return .answer(nil, then: nextForKept())
        }
    }

    /// A value kept ahead: the body goes on while the buffer has room (a withdrawn read's slot, one).
    @usableFromInline
    mutating func nextForKept() -> Next {
        if case .ahead(let values) = queue, values.count >= max(capacity, 1) {
            body = .suspended
            return .stop
        }
        return .produce
    }

    /// The turn's requester has its answer, the body is at a `yield`: the next turn, or idle.
    @usableFromInline
    mutating func nextTurnAfterAnswer() -> Next {
        guard case .running(let turn) = body else {
            preconditionFailure("RJIterator: internal error: an async generator's turn ended without a turn")
        }
        switch queue {
        case .empty:
            if capacity > 0, !turn.released {
                body = .running(Turn(.ahead))
                return .produce
            }
            body = .suspended
            return .stop
        case .waiting(var waiting):
            queue = .empty
            let head = waiting.pop()
            if !waiting.isEmpty { queue = .waiting(waiting) }
            body = .running(Turn(.request(head), released: turn.released))
            return .serve(head.operation)
        case .ahead(let values):
            if values.count < capacity, !turn.released {
                body = .running(Turn(.ahead))
                return .produce
            }
            body = .suspended
            return .stop
        }
    }

    /// What `turnEnded` decided.
    @usableFromInline
    struct AfterEnd {
        /// The turn served a caller, who gets the body's outcome as its return value.
        @usableFromInline var servedCaller: Bool
        /// The answers, in order: the turn's request (the outcome at hand, or `CancellationError`
        /// for the reads of a closing turn), then the requests left waiting (the kept outcome).
        @usableFromInline var answers: [AsyncWaiterAnswer]
    }

    /// The body has ended; `result` (a `Result<GeneratorStep<Element, Return>, any Error>`) is
    /// boxed only if kept.
    @usableFromInline
    mutating func turnEnded(_ result: () -> Any) -> AfterEnd {
        guard case .running(let turn) = body else {
            preconditionFailure("RJIterator: internal error: an async generator's body ended without a turn")
        }
        let ending: Ending = awaits.cancelled && !turn.released ? .byCancellation : .normally
        var end = AfterEnd(servedCaller: false, answers: [])
        switch turn.serving {
        case .caller:
            end.servedCaller = true
        case .request(let request):
            if let waiterAnswer = answer(request, .atHand, box: { .result(result()) }) { end.answers.append(waiterAnswer) }
        case .closing(let closers):
            for closer in closers {
                if let waiterAnswer = answer(closer, .cancellation, box: { .cancellation }) { end.answers.append(waiterAnswer) }
            }
        case .ahead, .dropping:
            break
        }
        if case .waiting(let waiting) = queue {
            queue = .empty
            for request in waiting.all {
                if let waiterAnswer = answer(request, .outcome(ending), box: { .outcome(ending) }) { end.answers.append(waiterAnswer) }
            }
        }
        // Values produced before the end stay, and go out before it.
        body = .ended(ending)
        return end
    }

    /// The body suspended in await `generation` during the turn; `caller`: the turn served a
    /// caller, who now waits as a request (its id is returned).
    @usableFromInline
    mutating func turnAwaits(_ generation: UInt64, callerNowWaitingAs caller: (operation: Any, isNext: Bool)? = nil)
        -> (suspension: AwaitState.Suspension, id: UInt64)
    {
        var id: UInt64 = 0
        if let caller, case .running(var turn) = body, case .caller = turn.serving {
            let request = newRequest(caller.operation, isNext: caller.isNext)
            id = request.id
            turn.serving = .request(request)
            body = .running(turn)
        }
        return (awaits.bodySuspended(generation), id)
    }
}
