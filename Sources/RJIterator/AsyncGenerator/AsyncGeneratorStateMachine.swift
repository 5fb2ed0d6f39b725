import RJLocks

// The whole state of an async generator, as one value (after swift-async-algorithms'
// `MergeStateMachine` and SwiftNIO's state machines): who runs the body and for whom (the
// turn), who waits behind it, what the body produced ahead, how it ended, and its awaits
// (`AwaitState`, the part every await host shares). The storage
// (AsyncGeneratorStorage.swift) keeps it under its one lock; each event below is a mutating
// method that returns what the storage must do, outside the lock. Nothing else writes it.
//
// The state is two values: where the body is (`Body`: fresh, suspended at a `yield`, running a
// turn, ended) and what waits for it (`Queue`: nothing, the requests and cancellations behind
// the turn, or the values it produced ahead). `Body` holds no reference, so the fast path
// (suspended -> running a caller's turn -> suspended) reads and writes a few trivial words; the
// queues are touched only when something waits. What each event does:
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
// together with waiters (a `next` takes one, a return or throw drops them). Each transition
// keeps these (the randomized scenarios of AsyncGeneratorScenarioTests check them after every
// event).
//
//   *  and the body produces ahead again, on the generator's queue (it had a full buffer).
//   ** a turn producing ahead (`bufferingUpTo:`) gives v to the first waiting `next`; a
//      waiting return, throw or cancellation takes v's place (v goes to nobody: nothing comes
//      out after them); with nobody waiting v is kept, and the body goes on while there is room.
//
// A turn serves one requester: `caller` (the fast path: the caller's own thread runs the body
// and gets its answer by returning), `request` (a request that waits on a continuation or in
// an await of another body), `ahead` (producing for the buffer), `closing` (a cancellation,
// or a release, closing the body). Requests are answered in the order they came: a turn's
// answer goes out before anything queued behind it is served.
//
// Cancellation (the rule for several readers: docs/async-generators.md): the generator ends
// with a reader whose task is cancelled, at that reader's place. Its request throws
// `CancellationError`; the body is cancelled (its awaits give `CancellationError`, its yields
// are refused) when that place comes to the front: at once for the request being served or
// for a generator producing ahead for nobody before it, otherwise once the requests before it
// are answered. Every other reader sees the end: the body's return value, or
// `GeneratorError.closed` when it ended by the cancellation (a `for try await` loop ends).

/// An async generator's state machine. Not generic: what the body produced ahead is kept
/// type-erased (`Any`), so the storage's methods that are reached from untyped code (an await's
/// completion, a release) need no type metadata.
@usableFromInline
struct AsyncGeneratorStateMachine: RJHintedValue {
    /// Where the body is.
    @usableFromInline
    enum Body {
        /// Not started; nothing in progress.
        case fresh
        /// At a `yield`; nothing in progress.
        case suspended
        /// A turn in progress: the body runs, or awaits, on some thread.
        case running(Turn)
        /// The body has ended.
        case ended(Ending)
    }

    /// What waits for the body.
    @usableFromInline
    enum Queue {
        case empty
        /// Requests, and the places of cancelled ones, waiting behind the running turn, in
        /// order (at least one).
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

        /// A turn serving `request`.
        @inlinable init(serving request: AsyncRequest, released: Bool = false) {
            self.init(.request(request), released: released)
        }

        /// The request it serves, if it serves one.
        @inlinable var request: AsyncRequest? {
            if case .request(let request) = serving { return request }
            return nil
        }
    }

    @usableFromInline
    enum Serving {
        /// The caller on whose thread the body runs, answered by returning.
        case caller
        /// A request answered by the storage (a continuation, an await of another body). Held
        /// here: a requester may stop waiting before its answer (an `rj_async` reader's await
        /// cancelled) while the body still serves it.
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
        /// Resume the body for this request.
        case serve(AsyncRequest)
        /// Resume the body with `CancellationError` (a cancellation's place came).
        case cancel
    }

    /// How many values the body may produce ahead (`bufferingUpTo:`; 0: none).
    @usableFromInline let capacity: Int
    /// Where the body is; written only by the methods of this file.
    @usableFromInline var body = Body.fresh
    /// What waits for it; written only by the methods of this file.
    @usableFromInline var queue = Queue.empty
    /// The body's awaits.
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
        /// A value produced ahead answers it; `produce`: the body may produce again (on the
        /// generator's queue: the turn is the storage's to start).
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
                // The buffer has room again: the body produces (it was full, or its producing
                // turn ended for nobody asking).
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

    /// The caller's turn ended at a `yield` (not the fast path's end: someone came meanwhile, or
    /// the generator has a buffer): the value is the caller's answer. Returns what the
    /// generator's queue must go on with (the caller returns).
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

    /// What breaks the invariants of the header (waiters only behind a running turn, at most
    /// `capacity` values ahead and none without a buffer, a turn's request not answered yet),
    /// if anything: the tests check it after events.
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
