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

/// An async generator's queues: the requests waiting their turn, the one served and the await it
/// waits in, and, with a buffer, what the body produced ahead and who waits for it. Guarded by
/// the generator's lock; written only by `AsyncGeneratorStateMachine`'s methods.
@usableFromInline
struct RequestQueues<Element, Return> {
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
}

/// An async generator's state machine (see the top of this file): a view of its `phase`, an
/// atomic any thread may touch, and of its `queues`, which only a thread holding its lock
/// touches. Separate stored properties, so that no access to the one overlaps an access to the
/// other.
@usableFromInline
struct AsyncGeneratorStateMachine<Element: Sendable, Input: Sendable, Return: Sendable> {
    /// The generator, unretained (a reference read out of an `unowned(unsafe)` field would be
    /// retained around each access).
    @usableFromInline let unmanaged: Unmanaged<AsyncGenerator<Element, Input, Return>>

    @inlinable @inline(__always)
    init(_ generator: AsyncGenerator<Element, Input, Return>) {
        unmanaged = Unmanaged.passUnretained(generator)
    }

    /// Runs `body` with the generator, borrowed without a retain.
    @inlinable @inline(__always)
    func with<T>(_ body: (AsyncGenerator<Element, Input, Return>) -> T) -> T {
        unmanaged._withUnsafeGuaranteedRef(body)
    }

    // MARK: Without the lock

    /// The fast path's start: takes `busy` if the generator is idle.
    @inlinable @inline(__always)
    func beginServingIfIdle() -> Bool {
        with { g in
            g.phase.compareExchange(expected: .idle, desired: .busy, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// Gives `busy` back when no request waits (the fast path's end); false when some do.
    @inlinable @inline(__always)
    func endServingIfAlone() -> Bool {
        with { g in
            g.phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// Where the requests are: for `state`.
    @inlinable
    var currentPhase: AsyncPhase { with { $0.phase.load(ordering: .acquiring) } }

    // MARK: Under the lock

    /// A request that could not serve itself at once: takes `busy` if the generator is idle
    /// now, queues it behind the one being served, or says the body has ended.
    @inlinable
    func submit(_ request: AsyncRequest) -> SubmitAction {
        with { g in
            while true {
                switch g.phase.load(ordering: .acquiring) {
                case .idle:
                    if beginServingIfIdle() { return .serveHere }
                case .busy:
                    if g.phase.compareExchange(expected: .busy, desired: .busyWithWaiters, ordering: .acquiringAndReleasing).exchanged {
                        g.queues.waiting.append(request)
                        return .queued
                    }
                case .busyWithWaiters:
                    g.queues.waiting.append(request)
                    return .queued
                case .completed:
                    return .answerFromOutcome
                }
            }
        }
    }

    /// `request` is served now (the serving thread holds `busy`).
    @inlinable
    func startServing(_ request: AsyncRequest) {
        with { g in
            g.queues.serving = request
        }
    }

    /// The body waits in await `generation` while serving `request`.
    @inlinable
    func awaiting(_ generation: UInt64, serving request: AsyncRequest) {
        with { g in
            g.queues.serving = request
            g.queues.pendingAwait = generation
        }
    }

    /// The request being served, for the await's completion to resume the body with.
    @inlinable
    var servedRequest: AsyncRequest? { with { $0.queues.serving } }

    /// The request being served has its answer: nothing is served until the next one.
    @inlinable
    func answered() {
        with { g in
            g.queues.serving = nil
            g.queues.pendingAwait = nil
        }
    }

    /// Holding `busy` with the request answered: the next waiting request, keeping `busy`; nil
    /// (and `idle`) when there is none.
    @inlinable
    func takeNextWaiting() -> AsyncRequest? {
        with { g in
            if g.queues.waiting.isEmpty {
                g.phase.store(.idle, ordering: .releasing)
                return nil
            }
            let next = g.queues.waiting.removeFirst()
            g.phase.store(g.queues.waiting.isEmpty ? .busy : .busyWithWaiters, ordering: .releasing)
            return next
        }
    }

    /// The body has ended: the phase says so; returns every request left waiting, in order.
    @inlinable
    func markCompleted() -> [AsyncRequest] {
        with { g in
            g.phase.store(.completed, ordering: .releasing)
            defer {
                g.queues.waiting = []
                g.queues.consumers = []
            }
            return g.queues.waiting + g.queues.consumers
        }
    }

    /// What follows the answer of the request being served, without a buffer (the answer
    /// order). `bodyEnded`: the body ended in this step.
    @inlinable
    func settle(bodyEnded ended: Bool) -> Settlement {
        with { g in
            answered()
            if ended { return .ended(left: markCompleted()) }
            if endServingIfAlone() { return .idle }
            guard let next = takeNextWaiting() else { return .idle }
            g.queues.serving = next
            return .serveNext(next)
        }
    }

    /// Where `cancel` finds `request`; a waiting one is taken off its queue.
    @inlinable
    func cancel(_ request: AsyncRequest) -> CancelledRequest {
        with { g in
            if let index = g.queues.waiting.firstIndex(where: { $0 === request }) {
                g.queues.waiting.remove(at: index)
                return .dropped
            }
            if let index = g.queues.consumers.firstIndex(where: { $0 === request }) {
                g.queues.consumers.remove(at: index)
                return .dropped
            }
            if g.queues.serving === request { return .served(g.queues.pendingAwait) }
            return .elsewhere
        }
    }

    // MARK: Buffering, under the lock

    /// A `next` of a generator with a buffer: the oldest value produced ahead, or the end, or
    /// the request queued as a consumer of the next value.
    @inlinable
    func take(for request: AsyncRequest) -> BufferedTake<Element, Return> {
        with { g in
            if !g.queues.buffered.isEmpty { return .ready(g.queues.buffered.removeFirst()) }
            if g.phase.load(ordering: .acquiring) == .completed { return .ended }
            g.queues.consumers.append(request)
            return .waits
        }
    }

    /// A `return` or `throw` of a generator with a buffer drops what was produced ahead.
    @inlinable
    func dropBuffered() {
        with { g in
            g.queues.buffered.removeAll()
        }
    }

    /// Whether the body may produce one more value ahead: no request waits to be served and
    /// the buffer has room.
    @inlinable
    func hasRoomAhead(capacity: Int) -> Bool {
        with { g in
            g.queues.waiting.isEmpty && g.queues.buffered.count < capacity
        }
    }

    /// A value produced ahead: the first consumer waiting gets it (returned), or it goes into
    /// the buffer (nil).
    @inlinable
    func deliver(_ result: Result<GeneratorStep<Element, Return>, any Error>) -> AsyncRequest? {
        with { g in
            if !g.queues.consumers.isEmpty { return g.queues.consumers.removeFirst() }
            g.queues.buffered.append(result)
            return nil
        }
    }
}
