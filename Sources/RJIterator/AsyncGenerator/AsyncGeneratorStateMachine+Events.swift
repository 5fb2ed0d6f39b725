import RJLocks

// The async generator state machine's transitions that wait, end turns, cancel and release,
// following the table in AsyncGeneratorStateMachine.swift's header.

extension AsyncGeneratorStateMachine {
    // MARK: Requests that wait

    /// What `requestArrives` decided (`take` and `outcome` as for `CallerStart`).
    @usableFromInline
    enum RequestStart {
        /// Nothing in progress: the request's caller serves it now, on its thread.
        case serve
        case take(Any, produce: Bool)
        case outcome(Ending)
        case queued
        /// Its caller was cancelled before it came: answered `CancellationError`; its place ends the generator.
        case cancelled(CancellationStart)
    }

    /// `request` comes, to wait its turn if it cannot be served now.
    @usableFromInline
    mutating func requestArrives(_ request: AsyncRequest) -> RequestStart {
        let start = arrival(of: request)
        switch start {
        case .take, .outcome, .cancelled: request.answered = true
        case .serve, .queued: break
        }
        return start
    }

    @usableFromInline
    mutating func arrival(of request: AsyncRequest) -> RequestStart {
        if request.cancelled { return .cancelled(cancellationArrives()) }
        switch callerArrives(isNext: request.isNext) {
        case .serve:
            body = .running(Turn(serving: request))
            return .serve
        case .take(let value, let produce):
            return .take(value, produce: produce)
        case .outcome(let ending):
            return .outcome(ending)
        case .wait:
            // Behind the turn; a return or throw drops what was produced ahead.
            wait(.request(request))
            return .queued
        }
    }

    @usableFromInline
    mutating func wait(_ waiter: Waiter) {
        if case .waiters(var waiters) = queue {
            queue = .empty
            waiters.append(waiter)
            queue = .waiters(waiters)
        } else {
            queue = .waiters(FIFO(waiter))
        }
    }

    /// What a cancellation's arrival decided.
    @usableFromInline
    enum CancellationStart {
        /// Nothing in progress: the caller closes the body now, on its thread, then gets `CancellationError`.
        case closeHere
        /// Its place waits behind the turn; `stop`: the turn served nobody before it and was cancelled
        /// at once (the pending await's work to stop, the body to resume on the queue if it waited).
        case queued(stop: AwaitState.Cancellation?)
        case ended
    }

    /// A reader whose task is cancelled asks (or its request came after): the generator ends at its place.
    @usableFromInline
    mutating func cancellationArrives() -> CancellationStart {
        switch body {
        case .fresh, .suspended:
            queue = .empty
            body = .running(Turn(.closing))
            _ = awaits.cancel()
            return .closeHere
        case .running:
            wait(.cancellation)
            return .queued(stop: cancelTurnIfItServesNobody())
        case .ended:
            return .ended
        }
    }

    /// A cancellation at the front of the queue, behind a turn that produces ahead for nobody:
    /// that turn is cancelled now (its place has come).
    @usableFromInline
    mutating func cancelTurnIfItServesNobody() -> AwaitState.Cancellation? {
        guard case .running(let turn) = body, case .ahead = turn.serving,
              case .waiters(let waiters) = queue, case .cancellation = waiters.first else { return nil }
        return awaits.cancel()
    }

    // MARK: A turn's end (the storage's serving loop)

    /// What `turnYielded` decided.
    @usableFromInline
    enum AfterYield {
        /// The value answers this requester, then the turn goes on with `then`.
        case answer(AsyncRequest, then: Next)
        /// Nobody gets the value now (kept ahead, or dropped for a return, throw or cancellation).
        case noAnswer(then: Next)
        /// The body is cancelled: its `yield` is refused (resume it with `CancellationError`).
        case refuse
        /// The generator was released: close the body at this `yield`.
        case closeForRelease
    }

    /// The body yielded during a storage turn (not a caller's); `value` is boxed only if kept ahead.
    @usableFromInline
    mutating func turnYielded(_ value: () -> Any) -> AfterYield {
        // Without a turn nobody runs the body: nothing to do (the storage never asks then).
        guard case .running(let turn) = body else { return .noAnswer(then: .stop) }
        if turn.released { return .closeForRelease }
        if awaits.cancelled { return .refuse }
        switch turn.serving {
        case .request(let request):
            request.answered = true
            return .answer(request, then: nextTurnAfterAnswer())
        case .caller, .closing:
            // A caller's turn ends in `callerTurnYielded`; a closing one is cancelled (above).
            return .noAnswer(then: nextTurnAfterAnswer())
        case .ahead:
            break
        }
        // Produced ahead: to the first waiting `next`; in place of a waiting return, throw or
        // cancellation (dropped); or kept.
        switch queue {
        case .waiters(var waiters):
            if case .request(let request) = waiters.first!, request.isNext {
                queue = .empty
                _ = waiters.pop()
                if !waiters.isEmpty { queue = .waiters(waiters) }
                request.answered = true
                return .answer(request, then: nextForAhead())
            }
            return .noAnswer(then: nextTurnAfterAnswer())
        case .empty:
            queue = .ahead(FIFO(value()))
            return .noAnswer(then: nextForKept())
        case .ahead(var values):
            queue = .empty
            values.append(value())
            queue = .ahead(values)
            return .noAnswer(then: nextForKept())
        }
    }

    /// A value kept ahead: the body goes on while there is room.
    @usableFromInline
    mutating func nextForKept() -> Next {
        if case .ahead(let values) = queue, values.count >= capacity {
            body = .suspended
            return .stop
        }
        return .produce
    }

    /// After a value produced ahead went to a waiting `next`: what the producing turn does.
    @usableFromInline
    mutating func nextForAhead() -> Next {
        if case .empty = queue { return .produce }
        return nextTurnAfterAnswer()
    }

    /// The turn's requester has its answer, the body is at a `yield`: the next turn, or idle.
    @usableFromInline
    mutating func nextTurnAfterAnswer() -> Next {
        guard case .running(let turn) = body else { return .stop }
        switch queue {
        case .empty:
            if capacity > 0, !turn.released {
                body = .running(Turn(.ahead))
                return .produce
            }
            body = .suspended
            return .stop
        case .waiters(var waiters):
            queue = .empty
            let head = waiters.pop()
            if !waiters.isEmpty { queue = .waiters(waiters) }
            switch head {
            case .request(let request):
                body = .running(Turn(serving: request, released: turn.released))
                return .serve(request)
            case .cancellation:
                body = .running(Turn(.closing, released: turn.released))
                _ = awaits.cancel()
                return .cancel
            }
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
        /// Who the turn served: it gets the body's outcome, or `CancellationError` if cancelled.
        @usableFromInline var served: Serving
        /// The requests left waiting, in order: answered from the kept outcome after it.
        @usableFromInline var left: [AsyncRequest]
        @usableFromInline var ending: Ending
        /// The spare callback token, to release outside the lock.
        @usableFromInline var spare: CallbackToken?
    }

    @usableFromInline
    mutating func turnEnded() -> AfterEnd {
        // Without a turn the body cannot end (the storage never says so then): ended as it is.
        var turn = Turn(.closing)
        if case .running(let running) = body { turn = running }
        let ending: Ending = awaits.cancelled && !turn.released ? .byCancellation : .normally
        turn.request?.answered = true
        var left: [AsyncRequest] = []
        if case .waiters(let waiters) = queue {
            for case .request(let request) in waiters.all {
                request.answered = true
                left.append(request)
            }
            queue = .empty
        }
        // Values produced before the end stay, and go out before it.
        body = .ended(ending)
        return AfterEnd(served: turn.serving, left: left, ending: ending, spare: awaits.bodyEnded())
    }

    /// The body suspended in await `generation` during the turn; `caller`: the turn served a
    /// caller, who now waits as this request.
    @usableFromInline
    mutating func turnAwaits(_ generation: UInt64, callerNowWaitingAs caller: AsyncRequest?) -> AwaitState.Suspension {
        if let caller, case .running(var turn) = body, case .caller = turn.serving {
            turn.serving = .request(caller)
            body = .running(turn)
        }
        return awaits.bodySuspended(generation)
    }

    // MARK: Cancellation and release

    /// What `cancel` decided.
    @usableFromInline
    enum CancelAction {
        /// Nothing to do (answered already, or not come yet: marked, and `requestArrives` answers it).
        case none
        /// It was being served: the body is cancelled (stop the pending await's work; resume the
        /// body on the generator's queue if it was waiting). It is answered when the body ends.
        case cancelledTurn(AwaitState.Cancellation)
        /// It was waiting: withdrawn (answer it `CancellationError` now); its place ends the
        /// generator. `stop` as for `CancellationStart.queued`.
        case withdrawn(stop: AwaitState.Cancellation?)
    }

    @usableFromInline
    mutating func cancel(_ request: AsyncRequest) -> CancelAction {
        if request.answered { return .none }
        request.cancelled = true
        guard case .running(let turn) = body else { return .none }
        if turn.request === request { return .cancelledTurn(awaits.cancel()) }
        guard case .waiters(let waiters) = queue else { return .none }
        var items = Array(waiters.all)
        guard let index = items.firstIndex(where: { if case .request(let r) = $0 { return r === request } else { return false } }) else {
            return .none
        }
        items[index] = .cancellation
        var replaced = FIFO(items[0])
        for item in items.dropFirst() { replaced.append(item) }
        queue = .waiters(replaced)
        request.answered = true
        return .withdrawn(stop: index == 0 ? cancelTurnIfItServesNobody() : nil)
    }

    /// What `released` decided.
    @usableFromInline
    enum ReleaseAction {
        case none
        /// At a `yield`: close the body now, on the releasing thread (a turn of its own).
        case closeNow
        /// A turn is running (producing ahead): the body is closed at its next `yield`.
        case closeAtNextYield(AwaitState.Cancellation)
    }

    /// The last reference to the generator went.
    @usableFromInline
    mutating func released() -> ReleaseAction {
        switch body {
        case .fresh:
            queue = .empty
            body = .ended(.normally)
            return .none
        case .suspended:
            queue = .empty
            body = .running(Turn(.closing, released: true))
            _ = awaits.cancel()
            return .closeNow
        case .running(var turn):
            turn.released = true
            body = .running(turn)
            return .closeAtNextYield(awaits.cancel())
        case .ended:
            return .none
        }
    }
}
