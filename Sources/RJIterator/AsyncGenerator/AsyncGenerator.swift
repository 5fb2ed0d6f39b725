import CRJContext
import CRJShims
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
///   throws `CancellationError`. A cancelled `for try await` loop therefore stops the producer
///   (one made with `bufferingUpTo: n` after at most `n` more values).
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
    @usableFromInline typealias Step = GeneratorStep<Element, Return>

    /// The state machine: the one writer of `phase` and `queues`.
    @inlinable
    var machine: AsyncGeneratorStateMachine<Element, Input, Return> {
        @inline(__always) get { AsyncGeneratorStateMachine(self) }
    }
    // The storage (an async generator is its own storage: one object, no second allocation).
    // What each file of this folder holds:
    // - AsyncGenerator.swift: the public API and a request's fast path;
    // - AsyncGeneratorStateMachine.swift: the request state and its transitions;
    // - AsyncGenerator+Storage.swift: serving requests (the actions carried out), awaits;
    // - AsyncGenerator+Buffer.swift: running ahead of the requests;
    // - AsyncGenerator+Await.swift: consumed from an `rj_async` body (`rj_await(nextOf:)`);
    // - AsyncYielder.swift, AsyncGenerator+Sequence.swift, AsyncRequest.swift,
    //   AsyncGeneratorEvents.swift: the yielder, `for try await`, a waiting request, what
    //   crosses the switches.

    /// The body's coroutine. Its body runs only for the thread that holds the `busy` phase;
    /// others read its state (`state`), a completed one's outcome (`outcomeAnswer`), and the
    /// release closes it.
    @usableFromInline let core: Core
    /// The lock of the state machine's guarded fields.
    @usableFromInline let lock = RJLock()
    /// Who may run the body (`AsyncPhase`): the word any thread may touch. Written only by the
    /// state machine (`machine`, AsyncGeneratorStateMachine.swift).
    @usableFromInline let phase = RJAtomic<AsyncPhase>(.idle)
    /// The queued requests, the one served, what was produced ahead: guarded by `lock`, written
    /// only by the state machine.
    @usableFromInline @exclusivity(unchecked) var queues = RequestQueues<Element, Return>()
    /// How many values the body may run ahead of the requests for them (0: none, the default).
    @usableFromInline let bufferCapacity: Int
    /// Where the body goes on after an await; nil: on the thread that completed it.
    @usableFromInline let resumeQueue: DispatchQueue?
    /// The result of the await the body is resumed from, from `serve(afterAwait:)` to the
    /// body's `suspend(awaiting:)`; touched only by the thread holding `busy`.
    @usableFromInline @exclusivity(unchecked) var awaitResult: RJResult?
    /// Resumes the body with an await's result (AsyncGenerator+Storage.swift); made by the
    /// first await.
    @usableFromInline @exclusivity(unchecked) var resumer: (@Sendable (UncheckedBox<RJResult>) -> Void)?
    /// `suspend(awaiting:)`, made by the initialiser in code specialised for the types.
    @usableFromInline @exclusivity(unchecked) var suspendHook: ((UInt64) -> RJResult)?

    /// Makes an async generator; nothing of `body` runs until the first request.
    ///
    /// - Parameters:
    ///   - queue: where the body runs after each `rj_await`; by default (nil) it goes on on the
    ///     thread that completed the await, as a continuation resumed there does (no hop).
    ///   - stackMode: a stack of its own or a shared run stack (``StackMode``); `nil` takes
    ///     ``RJRuntime/defaultStackMode``.
    ///   - file: the file the generator is made in, for ``RJRuntime/dump(stuckAfter:)`` and
    ///     the stack overflow message; leave it out.
    ///   - line: the line it is made at, for the same; leave it out.
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
        // does. The release cancels it too: its cleanups cannot wait for anything (an
        // `rj_await` there gives `CancellationError` at once) nor hand a value to anyone (a
        // `yield` there throws `CancellationError`), so the body always runs to its end, and
        // ending with that `CancellationError` is not reported.
        cancelled.store(true, ordering: .releasing)
        // Out of the registry first, as a Generator's release is: no dump reads the core while
        // it is closed here (and none holds it, so the close can take it).
        core.record.unregister()
        core.closeOnRelease(cancelledByRelease: true)
        // The body has ended: no await will use the spare callback token, which refers back
        // to the slot (the two would leak each other).
        awaits.spareToken = nil
    }

    /// The body's side of an `rj_await` (AsyncGenerator+Storage.swift).
    override func suspend(awaiting generation: UInt64) -> RJResult {
        // Through a closure made where the generator's types are known: this override, reached
        // through the class's table, is generic code, which would look their metadata up.
        suspendHook.unsafelyUnwrapped(generation)
    }

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
        switch machine.currentPhase {
        case .completed: return .completed
        case .busy, .busyWithWaiters: return .running
        case .idle: return core.state
        }
    }

    // MARK: A request's fast path

    /// One request from Swift concurrency: served here, on the caller's thread, when nothing
    /// else is in progress (the common case costs no continuation and no suspension);
    /// otherwise queued.
    @inlinable @inline(__always)
    nonisolated(nonsending) func request(_ operation: GeneratorOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
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
        case later
        /// The calling task is cancelled: nothing was done.
        case cancelled
    }

    /// The synchronous part of a request: serves it here if nothing else is in progress.
    @inlinable @inline(__always)
    func attempt(_ operation: GeneratorOperation<Input, Return>) -> Attempt {
        // `Task.isCancelled`, without its retain and release of the task (CRJShims).
        if rj_current_task_is_cancelled() { return .cancelled }
        guard bufferCapacity == 0, machine.beginServingIfIdle() else { return .later }
        switch serve(operation) {
        case .answered(let result):
            // A yield leaves the body suspended: only an end needs the completion's work.
            if case .success(.yielded) = result, machine.endServingIfAlone() { return .answered(result) }
            finishRequest()
            return .answered(result)
        case .awaiting(let generation):
            // The body waits for work: from here the request is answered from elsewhere.
            let request = AsyncRequest(operation)
            if let result = arm(request, awaiting: generation) { drive(request, .awaited(result))?.give() }
            return .pending(request)
        }
    }

    /// `attempt`, kept out of the async function that calls it (specialised all the same): so
    /// a request's fast path is small enough to be inlined into its caller (a `for try await`
    /// loop), which then makes no executor switch per element, and allocates no async frame.
    @inlinable @inline(never)
    func attemptOutOfLine(_ operation: GeneratorOperation<Input, Return>) -> Attempt {
        attempt(operation)
    }

    /// The rest of a request that `attempt` could not answer at once.
    @inlinable @inline(never)
    nonisolated(nonsending) func answerLater(_ operation: GeneratorOperation<Input, Return>, _ attempt: Attempt) async throws -> GeneratorStep<Element, Return> {
        switch attempt {
        case .answered(let result): return try result.get()
        case .pending(let request): return try await waitCancellably(request)
        case .later: return try await requestLater(operation)
        case .cancelled: return try await requestCancelled(operation)
        }
    }

    /// A request that could not be served at once: queued, or served ahead (a buffer).
    @inlinable
    nonisolated(nonsending) func requestLater(_ operation: GeneratorOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        if bufferCapacity > 0 { return try await requestBuffered(operation) }
        let request = AsyncRequest(operation)
        submit(request)
        return try await waitCancellably(request)
    }

    /// Waits for `request`'s answer; cancelling the waiting task cancels it.
    @inlinable
    nonisolated(nonsending) func waitCancellably(_ request: AsyncRequest) async throws -> GeneratorStep<Element, Return> {
        try await withTaskCancellationHandler {
            try await request.wait(Step.self)
        } onCancel: {
            self.cancel(request)
        }
    }

    /// A request made by a task that is cancelled already: the body's `yield` throws
    /// `CancellationError`, its cleanups run, and the request throws it.
    @inlinable
    nonisolated(nonsending) func requestCancelled(_ operation: GeneratorOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        cancelled.store(true, ordering: .releasing)
        let request = AsyncRequest(GeneratorOperation<Input, Return>.throwing(CancellationError()))
        submit(request)
        _ = try? await request.wait(Step.self)
        throw CancellationError()
    }
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
