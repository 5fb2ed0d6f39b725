import RJLocks

// The whole state of an async generator, as one value (after swift-async-algorithms'
// `MergeStateMachine`); docs/swift-core.md ("Async generators: public type, state machine,
// storage"). The storage keeps it under its one lock; each event is a mutating method that
// returns what the storage must do, outside the lock. Nothing else writes it. `Body` holds no
// reference, so the fast path (suspended -> a caller's turn -> suspended) touches a few
// trivial words; the queues only when something waits. What each event does:
//
//   body, queue              a caller or request comes      the turn's body yields v          ... ends
//   fresh                    turn for it                     -                                 -
//   suspended                turn for it                     -                                 -
//   suspended, ahead(vs)     next: takes vs.first*           -                                 -
//                            return/throw: drops vs, turn
//   running(t)               waits behind t                  v to t's requester, or kept**     ended; the
//   running(t), waiters      waits behind the others         v to t's, then the head waiter    waiters get
//   running(t), ahead(vs)    next: takes vs.first            kept**                            the outcome
//                            return/throw: drops vs, waits
//   ended(e), ahead(vs)?     next: takes vs.first, or the kept outcome (e: how it ended)
//
// Waiters exist only behind a running turn; values produced ahead only with a buffer, never
// with waiters. Every transition keeps these (AsyncGeneratorScenarioTests checks `invariantViolation`).
//
//   *  and the body produces ahead again, on the generator's queue (it had a full buffer).
//   ** a turn producing ahead (`bufferingUpTo:`) gives v to the first waiting `next`; a
//      waiting return, throw or cancellation takes v's place (v goes to nobody: nothing comes
//      out after them); with nobody waiting v is kept, and the body goes on while there is room.
//
// Requests are answered in the order they came: a turn's answer goes out before anything
// queued behind it is served. A cancelled reader ends the generator at its place
// (docs/async-generators.md, "Several readers").

/// An async generator's state machine; not generic (values ahead are kept as `Any`), so the
/// storage's methods reached from untyped code need no type metadata.
@usableFromInline
struct AsyncGeneratorStateMachine: RJHintedValue {
    @usableFromInline
    enum Body {
        case fresh
        case suspended
        /// A turn in progress: the body runs, or awaits, on some thread.
        case running(Turn)
        case ended(Ending)
    }

    @usableFromInline
    enum Queue {
        case empty
        /// Requests, and the places of cancelled ones, behind the running turn, in order (at least one).
        case waiters(FIFO<Waiter>)
        /// Values the body produced before anyone asked for them (at least one).
        case ahead(FIFO<Any>)
    }

    /// Who the body runs for now, and what happened to it meanwhile.
    @usableFromInline
    struct Turn {
        @usableFromInline var serving: Serving
        /// The generator was released meanwhile: the body is closed at its next `yield`.
        @usableFromInline var released = false

        @inlinable init(_ serving: Serving, released: Bool = false) {
            self.serving = serving
            self.released = released
        }

        @inlinable init(serving request: AsyncRequest, released: Bool = false) {
            self.init(.request(request), released: released)
        }

        @inlinable var request: AsyncRequest? {
            if case .request(let request) = serving { return request }
            return nil
        }
    }

    @usableFromInline
    enum Serving {
        /// The caller on whose thread the body runs, answered by returning.
        case caller
        /// A request answered by the storage (a continuation, an await of another body). Held here:
        /// a requester may stop waiting (an `rj_async` reader cancelled) while the body still serves it.
        case request(AsyncRequest)
        /// Nobody: the body produces ahead (`bufferingUpTo:`).
        case ahead
        /// Nobody: a cancellation or a release is closing the body.
        case closing
    }

    /// What waits behind a turn, in order.
    @usableFromInline
    enum Waiter {
        case request(AsyncRequest)
        /// The place of a request whose caller was cancelled: the generator ends here.
        case cancellation
    }

    /// How the body ended, for the requests answered from its kept outcome.
    @usableFromInline
    enum Ending {
        case normally
        /// Cancelled by a reader: a `CancellationError` it ended with is not the others' to see.
        case byCancellation
    }

    /// What a turn does once a request is answered.
    @usableFromInline
    enum Next {
        /// Nothing: the generator is idle (suspended, or its buffer is full).
        case stop
        /// Resume the body to produce ahead (`next(())`).
        case produce
        case serve(AsyncRequest)
        /// Resume the body with `CancellationError` (a cancellation's place came).
        case cancel
    }

    /// How many values the body may produce ahead (`bufferingUpTo:`; 0: none).
    @usableFromInline let capacity: Int
    @usableFromInline var body = Body.fresh
    @usableFromInline var queue = Queue.empty
    @usableFromInline var awaits = AwaitState()

    @inlinable init(capacity: Int) {
        self.capacity = capacity
    }

    // MARK: The fast path: two states in the lock word

    /// The hint (`RJHintedMutex`) of a generator without a buffer, nothing waiting, the body
    /// suspended at a `yield`: a caller may take a turn with one compare-exchange.
    @inlinable static var idleHint: UInt32 { 1 }
    /// The same with a caller's turn running: it ends with one compare-exchange back to idle.
    @inlinable static var callerTurnHint: UInt32 { 2 }

    /// What `callerArrives` decided.
    @usableFromInline
    enum CallerStart {
        /// The caller runs the body itself, now (a turn for it).
        case serve
        /// A value produced ahead answers it; `produce`: the storage starts a producing turn.
        case take(Any, produce: Bool)
        /// The body has ended: the kept outcome answers it.
        case outcome(Ending)
        /// Something is in progress: the caller waits as a request (`requestArrives`).
        case wait
    }

    /// A request whose caller will run the body on its own thread if it can. `isNext`: a
    /// `next`, which a value produced ahead answers (`return` and `throw` drop those values).
    @usableFromInline
    mutating func callerArrives(isNext: Bool) -> CallerStart {
        switch body {
        case .fresh, .suspended:
            if isNext, case .ahead = queue {
                let value = takeAhead()
                // The buffer has room again: the body produces (it was full, or its turn ended for nobody).
                body = .running(Turn(.ahead))
                return .take(value, produce: true)
            }
            // A return or throw drops what was produced ahead.
            queue = .empty
            body = .running(Turn(.caller))
            return .serve
        case .running:
            if isNext, case .ahead = queue { return .take(takeAhead(), produce: false) }
            return .wait
        case .ended(let ending):
            if isNext, case .ahead = queue { return .take(takeAhead(), produce: false) }
            return .outcome(ending)
        }
    }

    /// The oldest value produced ahead (the queue holds some).
    @usableFromInline
    mutating func takeAhead() -> Any {
        guard case .ahead(var values) = queue else { return () }
        queue = .empty
        let value = values.pop()
        if !values.isEmpty { queue = .ahead(values) }
        return value
    }

    /// The caller's turn ended at a `yield` off the fast path (someone came, or a buffer): the value
    /// is the caller's answer; returns what the generator's queue goes on with.
    @usableFromInline
    mutating func callerTurnYielded() -> Next {
        nextTurnAfterAnswer()
    }

    // MARK: Reading

    /// The two fast states, as the lock word carries them while nobody holds the lock (see
    /// `idleHint`): 0 for every other state.
    @inlinable
    var hintToLeave: UInt32 {
        guard capacity == 0, case .empty = queue else { return 0 }
        switch body {
        case .suspended:
            return Self.idleHint
        case .running(let turn):
            if case .caller = turn.serving, !turn.released { return Self.callerTurnHint }
            return 0
        case .fresh, .ended:
            return 0
        }
    }

    /// The lock word carried `hint`: the fast transitions moved between the two fast states
    /// without touching this value, which becomes what the hint says.
    @inlinable
    mutating func absorbHint(_ hint: UInt32) {
        body = hint == Self.callerTurnHint ? .running(Turn(.caller)) : .suspended
    }

    /// Where the body is, as `AsyncGenerator.state` reports it.
    @usableFromInline
    var generatorState: GeneratorState {
        switch body {
        case .fresh: return .created
        case .suspended: return .suspended
        case .running: return .running
        case .ended: return .completed
        }
    }

    /// What breaks the header's invariants, if anything (the tests check it after events).
    @usableFromInline
    var invariantViolation: String? {
        if case .waiters = queue, case .running = body {} else if case .waiters = queue { return "waiters without a turn" }
        if case .ahead(let values) = queue {
            if capacity == 0 { return "values ahead without a buffer" }
            if values.isEmpty { return "an empty queue of values" }
            if case .suspended = body, values.count > capacity { return "more values ahead than the buffer holds" }
            if case .running = body, values.count >= capacity { return "a turn producing into a full buffer" }
            if case .fresh = body { return "values ahead of a body that never ran" }
        }
        if case .waiters(let waiters) = queue, waiters.isEmpty { return "an empty queue of waiters" }
        if case .running(let turn) = body, let request = turn.request, request.answered { return "the turn serves an answered request" }
        return nil
    }

    /// How many requests and cancellations wait behind the turn (for tests).
    @usableFromInline
    var waitingCount: Int {
        if case .waiters(let waiters) = queue { return waiters.count }
        return 0
    }

    /// How many values wait, produced ahead (for tests).
    @usableFromInline
    var aheadCount: Int {
        if case .ahead(let values) = queue { return values.count }
        return 0
    }
}
