import RJLocks

// The one owner of an async generator's request state (after swift-async-algorithms'
// `MergeStateMachine`): who may run the body (the phase), the requests waiting their turn, the
// one being served and the await it waits in, and, with a buffer, what the body produced ahead
// and who waits for it. Its methods are the only transitions; each returns what the storage
// (AsyncGenerator+Storage.swift, AsyncGenerator+Buffer.swift) must do.
//
// The phase is an atomic word, so that a request that finds the generator idle takes it, and
// gives it back, with a compare-exchange and no lock (the fast path of every `next` of a body
// that does not await). Everything else is guarded by the generator's lock: the methods marked
// "Under the lock" are called holding it.
//
//   phase            a request ...
//   idle             takes `busy` and serves itself, on its own thread
//   busy             queues, phase `busyWithWaiters`
//   busyWithWaiters  queues
//   completed        is answered from the body's kept outcome
//
// The answer order (`settle`): a request's answer goes out before any request queued behind it
// is served; when the body ends, its answer goes out first, then every request left waiting,
// each from the kept outcome, in the order they came; the last answer of a turn goes out once
// the serving thread has let go of the generator (its requester may drop the last reference
// as soon as it has it, and the body is then closed where that happens).

/// Who may run an async generator's body: one request at a time holds `busy`.
@usableFromInline
enum AsyncPhase: UInt8, RJAtomicValue {
    /// No request in progress: the body is fresh or suspended at a `yield`.
    case idle
    /// A request is served: the body runs, or waits in an await.
    case busy
    /// As `busy`, with requests queued behind it.
    case busyWithWaiters
    /// The body has ended; requests are answered from its kept outcome.
    case completed

    @inlinable init(atomicWord: UInt64) { self = AsyncPhase(rawValue: UInt8(truncatingIfNeeded: atomicWord)).unsafelyUnwrapped }
    @inlinable var atomicWord: UInt64 { UInt64(rawValue) }
}

/// What `submit` decided for a request.
@usableFromInline
enum SubmitAction {
    /// The generator was idle: the caller took `busy` and serves the request itself.
    case serveHere
    /// Queued behind the request being served.
    case queued
    /// The body has ended: answer it from the kept outcome.
    case answerFromOutcome
}

/// Where `cancel` found a request.
@usableFromInline
enum CancelledRequest {
    /// Waiting in a queue: taken off it.
    case dropped
    /// Being served, the body waiting in this await (nil: running).
    case served(UInt64?)
    /// Answered already, or between a queue and being served.
    case elsewhere
}

/// What follows the answer of the request being served (the answer order).
@usableFromInline
enum Settlement {
    /// The body ended: the answer goes out first, then these requests left waiting, each from
    /// the kept outcome; all once the generator is let go. The phase is `completed`.
    case ended(left: [AsyncRequest])
    /// Nothing waits: the phase is `idle`; the answer goes out once the generator is let go.
    case idle
    /// Requests wait: the answer goes out now, and this one is served next (it is the one
    /// served already), still `busy`.
    case serveNext(AsyncRequest)
}

/// What a `next` of a generator with a buffer gets.
@usableFromInline
enum BufferedTake<Element, Return> {
    /// A value the body produced ahead (or its end, or its error).
    case ready(Result<GeneratorStep<Element, Return>, any Error>)
    /// The body has ended and nothing is left: answer from the kept outcome.
    case ended
    /// Nothing yet: the request waits for the next value produced.
    case waits
}

/// An async generator's request state; see the top of this file.
@usableFromInline
struct AsyncGeneratorStateMachine<Element, Return>: ~Copyable {
    @usableFromInline let phase = RJAtomic<AsyncPhase>(.idle)
    /// Requests waiting for the one being served, in order.
    @usableFromInline var waiting: [AsyncRequest] = []
    /// The request being served, and the await the body waits in while serving it.
    @usableFromInline var serving: AsyncRequest?
    @usableFromInline var pendingAwait: UInt64?
    /// With a buffer: what the body produced ahead, in order (its end included), and the `next`
    /// requests waiting for a value, in order.
    @usableFromInline var buffered: [Result<GeneratorStep<Element, Return>, any Error>] = []
    @usableFromInline var consumers: [AsyncRequest] = []

    @inlinable init() {}

    // MARK: Without the lock

    /// The fast path's start: takes `busy` if the generator is idle.
    @inlinable @inline(__always)
    func beginServingIfIdle() -> Bool {
        phase.compareExchange(expected: .idle, desired: .busy, ordering: .acquiringAndReleasing).exchanged
    }

    /// Gives `busy` back when no request waits (the fast path's end); false when some do.
    @inlinable @inline(__always)
    func endServingIfAlone() -> Bool {
        phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged
    }

    /// Where the requests are: for `state`.
    @inlinable
    var currentPhase: AsyncPhase { phase.load(ordering: .acquiring) }

    // MARK: Under the lock

    /// A request that could not serve itself at once: takes `busy` if the generator is idle
    /// now, queues it behind the one being served, or says the body has ended.
    @inlinable
    mutating func submit(_ request: AsyncRequest) -> SubmitAction {
        while true {
            switch phase.load(ordering: .acquiring) {
            case .idle:
                if beginServingIfIdle() { return .serveHere }
            case .busy:
                if phase.compareExchange(expected: .busy, desired: .busyWithWaiters, ordering: .acquiringAndReleasing).exchanged {
                    waiting.append(request)
                    return .queued
                }
            case .busyWithWaiters:
                waiting.append(request)
                return .queued
            case .completed:
                return .answerFromOutcome
            }
        }
    }

    /// `request` is served now (the serving thread holds `busy`).
    @inlinable
    mutating func startServing(_ request: AsyncRequest) {
        serving = request
    }

    /// The body waits in await `generation` while serving `request`.
    @inlinable
    mutating func awaiting(_ generation: UInt64, serving request: AsyncRequest) {
        serving = request
        pendingAwait = generation
    }

    /// The request being served, for the await's completion to resume the body with.
    @inlinable
    var servedRequest: AsyncRequest? { serving }

    /// The request being served has its answer: nothing is served until the next one.
    @inlinable
    mutating func answered() {
        serving = nil
        pendingAwait = nil
    }

    /// Holding `busy` with the request answered: the next waiting request, keeping `busy`; nil
    /// (and `idle`) when there is none.
    @inlinable
    mutating func takeNextWaiting() -> AsyncRequest? {
        if waiting.isEmpty {
            phase.store(.idle, ordering: .releasing)
            return nil
        }
        let next = waiting.removeFirst()
        phase.store(waiting.isEmpty ? .busy : .busyWithWaiters, ordering: .releasing)
        return next
    }

    /// The body has ended: the phase says so; returns every request left waiting, in order.
    @inlinable
    mutating func markCompleted() -> [AsyncRequest] {
        phase.store(.completed, ordering: .releasing)
        defer {
            waiting = []
            consumers = []
        }
        return waiting + consumers
    }

    /// What follows the answer of the request being served, without a buffer (the answer
    /// order). `bodyEnded`: the body ended in this step.
    @inlinable
    mutating func settle(bodyEnded ended: Bool) -> Settlement {
        answered()
        if ended { return .ended(left: markCompleted()) }
        if endServingIfAlone() { return .idle }
        guard let next = takeNextWaiting() else { return .idle }
        serving = next
        return .serveNext(next)
    }

    /// Where `cancel` finds `request`; a waiting one is taken off its queue.
    @inlinable
    mutating func cancel(_ request: AsyncRequest) -> CancelledRequest {
        if let index = waiting.firstIndex(where: { $0 === request }) {
            waiting.remove(at: index)
            return .dropped
        }
        if let index = consumers.firstIndex(where: { $0 === request }) {
            consumers.remove(at: index)
            return .dropped
        }
        if serving === request { return .served(pendingAwait) }
        return .elsewhere
    }

    // MARK: Buffering, under the lock

    /// A `next` of a generator with a buffer: the oldest value produced ahead, or the end, or
    /// the request queued as a consumer of the next value.
    @inlinable
    mutating func take(for request: AsyncRequest) -> BufferedTake<Element, Return> {
        if !buffered.isEmpty { return .ready(buffered.removeFirst()) }
        if phase.load(ordering: .acquiring) == .completed { return .ended }
        consumers.append(request)
        return .waits
    }

    /// A `return` or `throw` of a generator with a buffer drops what was produced ahead.
    @inlinable
    mutating func dropBuffered() {
        buffered.removeAll()
    }

    /// Whether the body may produce one more value ahead: no request waits to be served and
    /// the buffer has room.
    @inlinable
    func hasRoomAhead(capacity: Int) -> Bool {
        waiting.isEmpty && buffered.count < capacity
    }

    /// A value produced ahead: the first consumer waiting gets it (returned), or it goes into
    /// the buffer (nil).
    @inlinable
    mutating func deliver(_ result: Result<GeneratorStep<Element, Return>, any Error>) -> AsyncRequest? {
        if !consumers.isEmpty { return consumers.removeFirst() }
        buffered.append(result)
        return nil
    }
}
