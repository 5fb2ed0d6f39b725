import CRJContext
import Foundation
import RJLocks

/// A stackful generator whose body may also wait for asynchronous work: it `yield`s values
/// (from any depth of calls) and, between them, `rj_await`s callbacks, promises and Swift
/// `async` functions exactly as an ``rj_async(on:file:line:_:)`` body does. It is consumed from Swift
/// concurrency (`try await gen.next()`, `for try await x in gen`) and from `rj_async` bodies
/// and other async generators' bodies (``rj_await(nextOf:)``), with no Swift task in between.
///
/// ```swift
/// // A paginated fetch: each page is awaited, its items yielded one by one.
/// let items = AsyncGenerator<String, Void, Void> { y in
///     var page = 0
///     while let batch = try rj_awaitValue(fetchPage(page)) {   // a callback API, a promise...
///         for item in batch { try y.yield(item) }
///         page += 1
///     }
/// }
/// for try await item in items { print(item) }
/// ```
///
/// Semantics (ES2018's async generators and Python's, PEP 525; docs/async-generators.md has
/// the table):
/// - Calls are **requests**, served one at a time and in order: a `next`, `return` or `throw`
///   made while another is in progress, from any task, waits its turn and gets its own step.
/// - **No buffering**: the body runs only while a request is being served; after three `next`
///   calls on a fresh generator, the body has reached exactly its third `yield`.
/// - `return(v)` and `throw(e)` act at the body's `yield`, as for ``Generator``; while the body
///   awaits, they wait their turn.
/// - **Cancellation**: when the Swift task waiting in `next` is cancelled, the body's pending
///   `rj_await` gives `CancellationError` (`rj_awaitValue` throws it), every later `yield` and
///   await of the body throws or gives it too, so the body's cleanups run, and that `next`
///   throws `CancellationError`. A cancelled `for try await` loop therefore stops the producer.
/// - **Release**: when the last reference to a generator suspended at a `yield` goes, the body
///   is closed as a ``Generator``'s is (its `defer`s run; an `rj_await` there gives
///   `CancellationError` at once), wherever the last reference is dropped. While the body
///   awaits, the await keeps the generator alive.
///
/// Threads: the requests run on the caller's executor (they are `nonisolated(nonsending)`),
/// and the body runs on the thread that made the request, until it yields (a body that yields
/// without awaiting costs no Swift task, no continuation and no executor hop), or until it
/// awaits: it then resumes on the thread that completed the await, or on the queue given at
/// creation, and the request is answered from there. Nothing blocks a thread: an await suspends the body's coroutine, not
/// the thread. The type is `Sendable`; the body must be, since it runs on several threads.
public final class AsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable>: _RJAwaitHost, @unchecked Sendable {
    @usableFromInline typealias Core = Generator<AsyncEvent<Element>, AsyncResume<Input>, Return>
    @usableFromInline typealias Request = AsyncRequest
    @usableFromInline typealias Step = GeneratorStep<Element, Return>

    /// The body's coroutine. Touched only by the thread that holds the `busy` phase.
    @usableFromInline let core: Core
    /// Who may run the body now (see `AsyncPhase`).
    @usableFromInline let phase = RJAtomic<AsyncPhase>(.idle)
    @usableFromInline let lock = RJLock()
    // Guarded by `lock`.
    /// Requests waiting for the one being served, in order.
    @usableFromInline @exclusivity(unchecked) var waiting: [Request] = []
    /// The request being served while the body awaits, and that await's generation.
    @usableFromInline @exclusivity(unchecked) var serving: Request?
    @usableFromInline @exclusivity(unchecked) var pendingAwait: UInt64?
    /// How many values the body may run ahead of the requests for them (0: none, the default).
    @usableFromInline let bufferCapacity: Int
    /// Where the body goes on after an await; nil: on the thread that completed it.
    @usableFromInline let resumeQueue: DispatchQueue?
    /// With a buffer: what the body produced ahead, in order (its end included), and the
    /// `next` requests waiting for a value, in order.
    @usableFromInline @exclusivity(unchecked) var buffered: [Result<GeneratorStep<Element, Return>, any Error>] = []
    @usableFromInline @exclusivity(unchecked) var consumers: [Request] = []
    /// The result of the await the body is resumed from, from `serve(afterAwait:)` to the
    /// body's `suspend(awaiting:)`; touched only by the thread holding `busy`.
    @usableFromInline @exclusivity(unchecked) var awaitResult: RJResult?

    /// Makes an async generator; nothing of `body` runs until the first request.
    ///
    /// - Parameters:
    ///   - queue: where the body runs after each `rj_await`; by default (nil) it goes on on the
    ///     thread that completed the await, as a continuation resumed there does (no hop).
    ///   - stackMode: a stack of its own or a shared run stack (``StackMode``); `nil` takes
    ///     ``RJRuntime/defaultStackMode``.
    ///   - body: the generator's code; `yield` on the ``AsyncYielder`` it receives, from the
    ///     body or from any function it calls, and `rj_await` anything in between.
    ///
    /// ```swift
    /// let ticker = AsyncGenerator<Int, Void, Void> { y in
    ///     for i in 0..<3 {
    ///         _ = rj_await { done in DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done(nil, nil) } }
    ///         try y.yield(i)
    ///     }
    /// }
    /// ```
    @inlinable
    public convenience init(on queue: DispatchQueue? = nil, stackMode: StackMode? = nil,
                            file: StaticString = #fileID, line: UInt = #line,
                            _ body: @escaping @Sendable (AsyncYielder<Element, Input>) throws -> Return) {
        self.init(bufferCapacity: 0, queue: queue, stackMode: stackMode, file: file, line: line, body)
    }

    @inlinable
    init(bufferCapacity: Int, queue: DispatchQueue?, stackMode: StackMode?, file: StaticString, line: UInt,
         _ body: @escaping @Sendable (AsyncYielder<Element, Input>) throws -> Return) {
        self.bufferCapacity = bufferCapacity
        resumeQueue = queue
        core = Core(checkedStackSize: 0, stackMode: stackMode, kind: .asyncGenerator, file: file, line: line) { y in
            try body(AsyncYielder(host: y.host, id: y.id))
        }
        // The host's queue serves the timers of `rj_await(_:timeout:)` and the requests started
        // in the background (a queued request, running ahead).
        super.init(queue: queue ?? .global())
        adopt(core)
        suspendHook = { [unowned self] generation in self.suspendSpecialised(awaiting: generation) }
    }

    deinit {
        // Nothing can request anything any more, and no await is pending (an await keeps its
        // generator alive): close a body suspended at a `yield` here, as a Generator's release
        // does. Its cleanups cannot wait for anything: an `rj_await` there gives
        // `CancellationError` at once.
        cancelled.store(true, ordering: .releasing)
        core.closeOnRelease()
        // The body has ended: no await will use the spare callback token, which refers back
        // to the slot (the two would leak each other).
        awaits.spareToken = nil
    }

    @usableFromInline override var cancellationError: any Error { CancellationError() }

    // MARK: Requests

    /// Resumes the body with `input` (what its pending `yield` returns; ignored on the first
    /// call) and returns the step it took: the next value, or its return value once it ends.
    ///
    /// - Throws: the body's error (again on every later call), or `CancellationError` if the
    ///   task calling it was cancelled.
    ///
    /// ```swift
    /// let running = AsyncGenerator<Int, Int, Void> { y in var total = 0; while true { total += try y.yield(total) } }
    /// _ = try await running.next(0)    // .yielded(0)
    /// _ = try await running.next(5)    // .yielded(5)
    /// ```
    @inlinable @inline(__always) @discardableResult
    nonisolated(nonsending) public func next(_ input: Input) async throws -> GeneratorStep<Element, Return> {
        try await request(.next(input))
    }

    /// Finishes the generator with `value`, at the body's `yield` (its cleanups run and may
    /// await or yield, as for ``Generator/return(_:)``); waits for the requests before it.
    ///
    /// ```swift
    /// _ = try await gen.return(())   // .returned(())
    /// ```
    @inlinable @discardableResult
    nonisolated(nonsending) public func `return`(_ value: Return) async throws -> GeneratorStep<Element, Return> {
        try await request(.returning(value))
    }

    /// Throws `error` into the body at its `yield`; the body may catch it and yield again.
    /// Waits for the requests before it.
    ///
    /// ```swift
    /// _ = try await gen.throw(CancellationError())
    /// ```
    @inlinable @discardableResult
    nonisolated(nonsending) public func `throw`(_ error: any Error) async throws -> GeneratorStep<Element, Return> {
        try await request(.throwing(error))
    }

    /// Where the body is: `created` before the first request, `suspended` at a `yield` with
    /// no request in progress, `running` while a request is served (the body running, or
    /// awaiting), `completed` once it has ended.
    ///
    /// ```swift
    /// gen.state   // .created
    /// ```
    public var state: GeneratorState {
        switch phase.load(ordering: .acquiring) {
        case .completed: return .completed
        case .busy, .busyWithWaiters: return .running
        case .idle: return core.state
        }
    }

    /// One request from Swift concurrency: served here, on the caller's thread, when nothing
    /// else is in progress (the common case costs no continuation and no suspension);
    /// otherwise queued.
    @inlinable @inline(__always)
    nonisolated(nonsending) func request(_ operation: AsyncOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        let attempt = attemptOutOfLine(operation)
        if case .answered(let result) = attempt { return try result.get() }
        return try await answerLater(operation, attempt)
    }

    /// What `attempt` achieved.
    @usableFromInline
    enum Attempt {
        /// Served at once.
        case answered(Result<GeneratorStep<Element, Return>, any Error>)
        /// Served until the body awaited: the request is answered later.
        case pending(AsyncRequest)
        /// Something else is in progress (or the generator has a buffer).
        case busy
        /// The calling task is cancelled: nothing was done.
        case cancelled
    }

    /// The synchronous part of a request: serves it here if nothing else is in progress.
    @inlinable @inline(__always)
    func attempt(_ operation: AsyncOperation<Input, Return>) -> Attempt {
        if Task.isCancelled { return .cancelled }
        guard bufferCapacity == 0,
              phase.compareExchange(expected: .idle, desired: .busy, ordering: .acquiringAndReleasing).exchanged
        else { return .busy }
        switch serve(operation) {
        case .answered(let result):
            // A yield leaves the body suspended: only an end needs the completion's work.
            if case .success(.yielded) = result,
               phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged
            {
                return .answered(result)
            }
            finishRequest()
            return .answered(result)
        case .awaiting(let generation):
            // The body waits for work: from here the request is answered from elsewhere.
            let request = Request(operation)
            if let result = arm(request, awaiting: generation) { drive(request, .awaited(result))?.give() }
            return .pending(request)
        }
    }

    /// `attempt`, kept out of the async function that calls it (specialised all the same): so
    /// a request's fast path is small enough to be inlined into its caller (a `for try await`
    /// loop), which then makes no executor switch per element, and allocates no async frame.
    @inlinable @inline(never)
    func attemptOutOfLine(_ operation: AsyncOperation<Input, Return>) -> Attempt {
        attempt(operation)
    }

    /// The rest of a request that `attempt` could not answer at once.
    @inlinable @inline(never)
    nonisolated(nonsending) func answerLater(_ operation: AsyncOperation<Input, Return>, _ attempt: Attempt) async throws -> GeneratorStep<Element, Return> {
        switch attempt {
        case .answered(let result): return try result.get()
        case .pending(let request): return try await waitCancellably(request)
        case .busy: return try await requestLater(operation)
        case .cancelled: return try await requestCancelled(operation)
        }
    }

    /// A request that could not be served at once: queued, or served ahead (a buffer).
    @inlinable
    nonisolated(nonsending) func requestLater(_ operation: AsyncOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        if bufferCapacity > 0 { return try await requestBuffered(operation) }
        let request = Request(operation)
        submit(request)
        return try await waitCancellably(request)
    }

    /// Waits for `request`'s answer; cancelling the waiting task cancels it.
    @inlinable
    nonisolated(nonsending) func waitCancellably(_ request: Request) async throws -> GeneratorStep<Element, Return> {
        try await withTaskCancellationHandler {
            try await request.wait(Step.self)
        } onCancel: {
            self.cancel(request)
        }
    }

    /// A request made by a task that is cancelled already: the body's `yield` throws
    /// `CancellationError`, its cleanups run, and the request throws it.
    @inlinable
    nonisolated(nonsending) func requestCancelled(_ operation: AsyncOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        cancelled.store(true, ordering: .releasing)
        let request = Request(AsyncOperation<Input, Return>.throwing(CancellationError()))
        submit(request)
        _ = try? await request.wait(Step.self)
        throw CancellationError()
    }

    // MARK: Serving

    /// Runs the body for `operation` until it yields, ends or awaits. Called holding `busy`.
    @inlinable @inline(__always)
    func serve(_ operation: AsyncOperation<Input, Return>) -> AsyncServed<Element, Return> {
        do {
            let step: GeneratorStep<AsyncEvent<Element>, Return>
            switch operation {
            case .next(let input): step = try core.perform(.next(.input(input)))
            case .returning(let value): step = try core.perform(.returning(value))
            case .throwing(let error): step = try core.perform(.throwing(error))
            case .start: step = try core.perform(.delegate)
            case .close: step = try core.perform(.close)
            }
            return Self.served(step)
        } catch {
            return .answered(.failure(error))
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

    /// After a request was answered, holding `busy`: gives `busy` back, or, when requests
    /// wait, starts the next one on the generator's queue (the caller goes on at once), or,
    /// when the body has ended, answers every waiting request from the kept outcome.
    @inlinable
    func finishRequest() {
        if core.state == .completed { return complete() }
        if phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged { return }
        guard let next = takeNextWaiting() else { return }
        driveOnQueue(next)
    }

    /// The next waiting request, keeping `busy`; nil (and `idle`) when there is none.
    @inlinable
    func takeNextWaiting() -> Request? {
        lock.withLock {
            if waiting.isEmpty {
                phase.store(.idle, ordering: .releasing)
                return nil
            }
            let next = waiting.removeFirst()
            phase.store(waiting.isEmpty ? .busy : .busyWithWaiters, ordering: .releasing)
            return next
        }
    }

    /// The operation `request` carries (typed again: requests hold it erased).
    @inlinable
    func operation(of request: Request) -> AsyncOperation<Input, Return> {
        request.operation as! AsyncOperation<Input, Return>
    }

    /// What resumes the body: a request's operation, or an await's result.
    @usableFromInline
    enum Resumption {
        case operation(AsyncOperation<Input, Return>)
        case awaited(RJResult)
    }

    /// Serves `request`, and the ones waiting after it, holding `busy`, on whichever thread
    /// calls it; returns when none is left or the body awaits.
    ///
    /// Returns the last answer, not yet given: the caller gives it once it no longer holds the
    /// generator. Its requester may drop the last reference as soon as it has its answer, and
    /// the body must then be closed where that happens, not later on this thread (an unbuffered
    /// generator is always held by whoever waits for an answer, so nothing else needs it).
    @inlinable
    func drive(_ first: Request, _ firstResumption: Resumption) -> FinalAnswer? {
        var request = first
        var resumption = firstResumption
        lock.withLock { serving = request }
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
            lock.withLock {
                serving = nil
                pendingAwait = nil
            }
            if core.state == .completed {
                // Completed before the answers go out: their callers see the end. In order:
                // this request, then those that waited behind it.
                let left = markCompleted().map { ($0, answerCompleted(operation(of: $0))) }
                return FinalAnswer { [request] in
                    request.answer(result)
                    for (waiting, answer) in left { waiting.answer(answer) }
                }
            }
            if bufferCapacity > 0 {
                // With a buffer the answer goes in first (it may fill the buffer), and the
                // caller keeps the generator while the body runs ahead.
                request.answer(result)
                if let ahead = produceAhead() {
                    request = ahead
                    resumption = .operation(operation(of: ahead))
                    lock.withLock { serving = request }
                    continue
                }
                if phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged { return nil }
                guard let next = takeNextWaiting() else { return nil }
                request = next
                resumption = .operation(operation(of: next))
                lock.withLock { serving = request }
                continue
            }
            if phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged {
                return FinalAnswer { [request] in request.answer(result) }
            }
            guard let next = takeNextWaiting() else { return FinalAnswer { [request] in request.answer(result) } }
            // The next one's requester holds the generator while it is served.
            request.answer(result)
            request = next
            resumption = .operation(operation(of: next))
            lock.withLock { serving = request }
        }
    }

    /// Serves `request` from the generator's queue, letting go of the generator before the
    /// last answer goes out.
    @inlinable
    func driveOnQueue(_ request: Request) {
        let unretained = Unmanaged.passRetained(self)
        queue.async {
            let last: FinalAnswer? = {
                let generator = unretained.takeRetainedValue()
                return generator.drive(request, .operation(generator.operation(of: request)))
            }()
            last?.give()
        }
    }

    /// The body waits in await `generation` while serving `request`: records both and arms
    /// the await, whose completion resumes the body on the queue. Returns the result when the
    /// await has completed already (the caller resumes the body at once).
    @inlinable
    func arm(_ request: Request, awaiting generation: UInt64) -> RJResult? {
        let cancelledMeanwhile = lock.withLock { () -> Bool in
            serving = request
            pendingAwait = generation
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
    @usableFromInline @exclusivity(unchecked) var resumer: (@Sendable (UncheckedBox<RJResult>) -> Void)?

    @inlinable
    func makeResumer() -> @Sendable (UncheckedBox<RJResult>) -> Void {
        { [unowned self] box in
            let resume = { @Sendable [unowned self] in
                // The generator is held only inside this call: the last answer goes out after.
                let last: FinalAnswer? = { [unowned self] in
                    let request = self.lock.withLock { self.serving }
                    guard let request else { return nil }
                    return self.drive(request, .awaited(box.value))
                }()
                last?.give()
            }
            if let resumeQueue = self.resumeQueue { resumeQueue.async(execute: resume) } else { resume() }
        }
    }

    /// Queues `request`, or serves it here if nothing is in progress, or answers it from the
    /// kept outcome if the body has ended.
    @inlinable
    func submit(_ request: Request) {
        let next: SubmitDecision = lock.withLock {
            while true {
                switch phase.load(ordering: .acquiring) {
                case .idle:
                    if phase.compareExchange(expected: .idle, desired: .busy, ordering: .acquiringAndReleasing).exchanged {
                        return .serveHere
                    }
                case .busy:
                    if phase.compareExchange(expected: .busy, desired: .busyWithWaiters, ordering: .acquiringAndReleasing)
                        .exchanged
                    {
                        waiting.append(request)
                        return .queued
                    }
                case .busyWithWaiters:
                    waiting.append(request)
                    return .queued
                case .completed:
                    return .completed
                }
            }
        }
        switch next {
        case .serveHere: drive(request, .operation(operation(of: request)))?.give()
        case .queued: break
        case .completed: request.answer(answerCompleted(operation(of: request)))
        }
    }

    /// The body has ended: every waiting request is answered from the kept outcome.
    @inlinable
    func complete() {
        answerCompleted(markCompleted())
    }

    /// The body has ended: the phase says so; returns the requests left waiting.
    @inlinable
    func markCompleted() -> [Request] {
        // No await will use the spare token (see deinit).
        awaits.spareToken = nil
        return lock.withLock {
            phase.store(.completed, ordering: .releasing)
            defer {
                waiting = []
                consumers = []
            }
            return waiting + consumers
        }
    }

    /// Answers `requests`, left waiting when the body ended, from the kept outcome.
    @inlinable
    func answerCompleted(_ requests: [Request]) {
        for request in requests { request.answer(answerCompleted(operation(of: request))) }
    }

    /// A request on a generator whose body has ended: `next` reports the kept outcome,
    /// `return(v)` gives `.returned(v)`, `throw(e)` throws `e` (as for a completed Generator).
    @inlinable
    func answerCompleted(_ operation: AsyncOperation<Input, Return>) -> Result<GeneratorStep<Element, Return>, any Error> {
        Result {
            switch operation {
            case .returning(let value): return .returned(value)
            case .throwing(let error): throw error
            case .next, .start, .close:
                if let value = core.returnedValue { return .returned(value) }
                if case .threw(let error) = core.machine.outcome { throw error }
                throw GeneratorError.closed
            }
        }
    }

    /// Cancels `request`. A waiting one is dropped and throws `CancellationError` now. The one
    /// being served cancels the generator: its pending await gives `CancellationError`, and so
    /// does every later await and `yield` of the body, which unwinds (no value is yielded to
    /// nobody); the request throws `CancellationError` once the body has ended, so its caller
    /// goes on only after the body's cleanups ran. (Not inlined: a rare path.)
    @usableFromInline
    func cancel(_ request: Request) {
        let found: CancelledRequest = lock.withLock {
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
        switch found {
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

    // MARK: Running ahead (a buffer)

    /// A request of a generator with a buffer: a `next` takes the oldest value produced ahead,
    /// or waits for the next one (and keeps the body producing); `return` and `throw` drop
    /// what was produced ahead and act at the body's `yield`, after the value in production.
    @inlinable
    nonisolated(nonsending) func requestBuffered(_ operation: AsyncOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        guard case .next = operation else {
            lock.withLock { buffered.removeAll() }
            let request = Request(operation)
            submit(request)
            return try await waitCancellably(request)
        }
        let request = Request(operation)
        let ready: Result<GeneratorStep<Element, Return>, any Error>?? = lock.withLock {
            if !buffered.isEmpty { return .some(buffered.removeFirst()) }
            if phase.load(ordering: .acquiring) == .completed { return .some(nil) }
            consumers.append(request)
            return .none
        }
        switch ready {
        case .some(let value?):
            keepProducing()
            return try value.get()
        case .some(nil):
            return try answerCompleted(operation).get()
        case .none:
            keepProducing()
            return try await waitCancellably(request)
        }
    }

    /// Starts the body producing ahead on the queue if it is idle and the buffer has room.
    @inlinable
    func keepProducing() {
        guard phase.compareExchange(expected: .idle, desired: .busy, ordering: .acquiringAndReleasing).exchanged else { return }
        guard let ahead = produceAhead() else {
            // Full: give `busy` back (or serve what waits).
            if phase.compareExchange(expected: .busy, desired: .idle, ordering: .acquiringAndReleasing).exchanged { return }
            if let next = takeNextWaiting() { driveOnQueue(next) }
            return
        }
        // Producing ahead: nobody may be waiting, so the block holds the generator.
        queue.async { self.drive(ahead, .operation(self.operation(of: ahead)))?.give() }
    }

    /// Holding `busy` with no request left to serve: the next value to produce ahead, as a
    /// request whose answer goes to the first waiting consumer or into the buffer; nil when
    /// the generator has no buffer, the buffer is full, or requests wait to be served.
    @inlinable
    func produceAhead() -> Request? {
        guard bufferCapacity > 0 else { return nil }
        let room = lock.withLock { waiting.isEmpty && buffered.count < bufferCapacity }
        guard room else { return nil }
        // A generator with a buffer has a Void input (its buffered initialiser).
        let ahead = Request(AsyncOperation<Input, Return>.next(() as! Input))
        ahead.onAnswer { [unowned self, unowned ahead] in self.deliver(ahead.result(Step.self).unsafelyUnwrapped) }
        return ahead
    }

    /// A value produced ahead: to the first consumer waiting, or into the buffer.
    @inlinable
    func deliver(_ result: Result<GeneratorStep<Element, Return>, any Error>) {
        let consumer: Request? = lock.withLock {
            if !consumers.isEmpty { return consumers.removeFirst() }
            buffered.append(result)
            return nil
        }
        consumer?.answer(result)
    }

    // MARK: rj_await's side

    override func suspend(awaiting generation: UInt64) -> RJResult {
        // Through a closure made where the generator's types are known: this override, reached
        // through the class's table, is generic code, which would look their metadata up.
        suspendHook.unsafelyUnwrapped(generation)
    }

    /// `suspend(awaiting:)`, made by the initialiser in code specialised for the types.
    @usableFromInline @exclusivity(unchecked) var suspendHook: ((UInt64) -> RJResult)?

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

/// What `submit` found a request must do.
@usableFromInline
enum SubmitDecision {
    case serveHere, queued, completed
}

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

extension AsyncGenerator where Input == Void {
    /// Resumes the body; the same as `next(())`.
    ///
    /// ```swift
    /// while case .yielded(let item) = try await items.next() { print(item) }
    /// ```
    @inlinable @inline(__always) @discardableResult
    nonisolated(nonsending) public func next() async throws -> GeneratorStep<Element, Return> {
        try await request(.next(()))
    }
}

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
