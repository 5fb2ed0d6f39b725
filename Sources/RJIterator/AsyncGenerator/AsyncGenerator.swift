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
/// - **Cancellation**: when the task waiting in `next` is cancelled, that `next` throws
///   `CancellationError` and the generator ends at that reader's place: the body's pending
///   `rj_await` gives `CancellationError` (`rj_awaitValue` throws it), and so does every later
///   await and `yield`, so the body's cleanups run. A cancelled `for try await` loop therefore
///   stops the producer. Other readers of the same generator never get `CancellationError`:
///   they get the values before that place, then the end (the body's return value, or
///   ``GeneratorError/closed`` from `next`, which ends a `for try await` loop).
/// - **Release**: when the last reference to a generator suspended at a `yield` goes, the body
///   is closed as a ``Generator``'s is (its `defer`s run; an `rj_await` there gives
///   `CancellationError` at once), wherever the last reference is dropped. A body producing
///   ahead (`bufferingUpTo:`) is closed at its next `yield`, its pending await cancelled.
///
/// Threads: the requests run on the caller's executor (they are `nonisolated(nonsending)`),
/// and the body runs on the thread that made the request, until it yields (a body that yields
/// without awaiting costs no Swift task, no continuation and no executor hop), or until it
/// awaits: it then resumes on the thread that completed the await, or on the queue given at
/// creation, and the request is answered from there. Nothing blocks a thread: an await suspends the body's coroutine, not
/// the thread. The type is `Sendable`; the body must be, since it runs on several threads.
public final class AsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable>: Sendable {
    // What each file of this folder holds:
    // - AsyncGenerator.swift: the public type, thin: its requests go to the storage;
    // - AsyncGeneratorStateMachine.swift: the whole state, one value, and its transitions;
    // - AsyncGeneratorStorage.swift: the state under its lock, the await host, release,
    //   cancellation, answers; AsyncGeneratorStorage+Serving.swift: running the turns;
    // - AsyncGenerator+Buffer.swift: `bufferingUpTo:`;
    // - AsyncGenerator+Await.swift: consumed from a body (`rj_await(nextOf:)`);
    // - AsyncYielder.swift, AsyncSequenceReading.swift: the body's side (`yield`, `yieldAll`,
    //   reading an `AsyncSequence`); AsyncGenerator+Sequence.swift: `for try await`;
    //   AsyncRequest.swift, AsyncGeneratorEvents.swift: a waiting request, what crosses a switch.

    @usableFromInline typealias Storage = AsyncGeneratorStorage<Element, Input, Return>

    /// Everything but the reference its users hold (AsyncGeneratorStorage.swift): what the
    /// body's pending work keeps alive is the storage, so dropping the last reference to this
    /// object always releases the generator.
    @usableFromInline let storage: Storage

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
        storage = Storage(capacity: bufferCapacity, queue: queue, stackMode: stackMode, file: file, line: line, body)
    }

    deinit {
        // Nothing can request anything any more: close a body suspended at a `yield` here, as a
        // Generator's release does (AsyncGeneratorStorage.release says how).
        storage.release()
    }

    // MARK: Requests

    /// Resumes the body with `input` (what its pending `yield` returns; ignored on the first
    /// call) and returns the step it took: the next value, or its return value once it ends.
    ///
    /// - Throws: the body's error (again on every later call); `CancellationError` if the task
    ///   calling it was cancelled; ``GeneratorError/closed`` once another reader's cancellation
    ///   ended the generator.
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
    public var state: GeneratorState { storage.generatorState }

    /// Whether the body is cancelled: a reader's cancellation ended the generator at its place
    /// (or the generator is being closed on release); its awaits give `CancellationError` at
    /// once, its yields are refused.
    ///
    /// ```swift
    /// if gen.isCancelled { print("a reader was cancelled") }
    /// ```
    public var isCancelled: Bool { storage.isCancelledForUsers }

    /// One request from Swift concurrency: served here, on the caller's thread, when nothing
    /// else is in progress (the common case costs no continuation and no suspension);
    /// otherwise it waits its turn.
    @inlinable @inline(__always)
    nonisolated(nonsending) func request(_ operation: GeneratorOperation<Input, Return>) async throws -> GeneratorStep<Element, Return> {
        let attempt = storage.attemptOutOfLine(operation)
        if case .answered(let result) = attempt { return try result.get() }
        return try await storage.answerLater(operation, attempt)
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
