// The async generator state machine's transitions for a reader's cancellation and the release,
// following the rule in AsyncGeneratorStateMachine.swift's header: a cancelled read is
// withdrawn; the body is cancelled only when nobody can read it any more (the cancelled reader
// held the last reference, or the last reference went).

extension AsyncGeneratorStateMachine {
    /// What `readerCancelled` decided.
    @usableFromInline
    struct CancelAction {
        /// The withdrawn read's waiter, answered `CancellationError`.
        @usableFromInline var answer: AsyncWaiterAnswer?
        /// The body's pending await, to interrupt (its last reader is gone): stop the work,
        /// resume the body with `CancellationError`.
        @usableFromInline var interrupt: AwaitState.Cancellation?

        @inlinable init(answer: AsyncWaiterAnswer? = nil, interrupt: AwaitState.Cancellation? = nil) {
            self.answer = answer
            self.interrupt = interrupt
        }
    }

    /// The task (or await host) waiting for read `id` was cancelled. `lastReader`: it holds the
    /// only reference to the generator (a `for try await` loop whose iterator owns it): nobody
    /// can read the body any more, which is cancelled, and the read answered once it has ended.
    /// Otherwise the read is withdrawn (answered `CancellationError` now) and the others go on.
    /// A read answered already keeps its answer.
    @usableFromInline
    mutating func readerCancelled(_ id: UInt64, lastReader: Bool) -> CancelAction {
        if kept.contains(where: { $0.id == id }) { return CancelAction() }
        // Without a turn every request has had its answer.
        guard case .running(var turn) = body else { return CancelAction() }
        switch turn.serving {
        case .request(let request) where request.id == id:
            if lastReader, !isWaiting {
                turn.serving = .closing([request])
                body = .running(turn)
                return CancelAction(interrupt: awaits.cancel())
            }
            // The step goes on for nobody: kept for the next read, or dropped.
            turn.serving = keepsWithdrawnSteps ? .ahead : .dropping
            body = .running(turn)
            return CancelAction(answer: answer(request, .cancellation) { .cancellation })
        case .closing(let closers) where closers.contains(where: { $0.id == id }):
            return CancelAction()
        default:
            break
        }
        guard case .waiting(var waiting) = queue, let request = waiting.remove(where: { $0.id == id }) else {
            return CancelAction()
        }
        queue = waiting.isEmpty ? .empty : .waiting(waiting)
        if lastReader, !isWaiting, let closers = closersIfServingNobody(turn) {
            turn.serving = .closing(closers + [request])
            body = .running(turn)
            return CancelAction(interrupt: awaits.cancel())
        }
        return CancelAction(answer: answer(request, .cancellation) { .cancellation })
    }

    /// The last reader of a closing body, `id`, waited its grace (`AsyncGeneratorStorage.closingGrace`)
    /// and the body has not ended: it is answered `CancellationError` now; the body goes on to its
    /// end with nobody to read it.
    @usableFromInline
    mutating func closerOverdue(_ id: UInt64) -> AsyncWaiterAnswer? {
        guard case .running(var turn) = body, case .closing(var closers) = turn.serving,
              let index = closers.firstIndex(where: { $0.id == id }) else { return nil }
        let closer = closers.remove(at: index)
        turn.serving = .closing(closers)
        body = .running(turn)
        return answer(closer, .cancellation) { .cancellation }
    }

    /// What `lastReaderLeaves` decided.
    @usableFromInline
    enum LastReaderStart {
        /// The body was at a `yield`: the storage closes it now, on its queue (`CancellationError`
        /// at the `yield`); its read (this id) is answered once the body has ended.
        case closeHere(UInt64)
        /// A turn runs for nobody (producing ahead): it is cancelled now (`interrupt`), and this
        /// read answered once the body has ended.
        case waits(UInt64, interrupt: AwaitState.Cancellation)
        /// Nothing to cancel (ended), or someone else reads: `CancellationError` at once.
        case answered
    }

    /// A reader that holds the only reference to the generator asks from a task that is
    /// cancelled already: nobody can read the body any more.
    @usableFromInline
    mutating func lastReaderLeaves(_ operation: Any) -> LastReaderStart {
        switch body {
        case .fresh, .suspended:
            let request = newRequest(operation, isNext: true)
            // Nobody can read what was produced ahead.
            queue = .empty
            body = .running(Turn(.closing([request])))
            _ = awaits.cancel()
            return .closeHere(request.id)
        case .running(var turn):
            guard !isWaiting, let closers = closersIfServingNobody(turn) else { return .answered }
            let request = newRequest(operation, isNext: true)
            queue = .empty
            turn.serving = .closing(closers + [request])
            body = .running(turn)
            return .waits(request.id, interrupt: awaits.cancel())
        case .ended:
            return .answered
        }
    }

    /// The reads a turn that serves nobody closes for (none yet unless closing); nil when it
    /// serves a reader.
    @usableFromInline
    func closersIfServingNobody(_ turn: Turn) -> [AsyncRequest]? {
        switch turn.serving {
        case .ahead, .dropping: return []
        case .closing(let closers): return closers
        case .caller, .request: return nil
        }
    }

    @inlinable var isWaiting: Bool {
        if case .waiting = queue { return true }
        return false
    }

    /// What `released` decided.
    @usableFromInline
    enum ReleaseAction {
        case none
        /// At a `yield`: close the body now, on the releasing thread (a turn of its own).
        case closeNow
        /// A turn is running (for nobody: a requester would hold the generator): the body is
        /// closed at its next `yield`, its pending await interrupted.
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
            body = .running(Turn(.closing([]), released: true))
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
