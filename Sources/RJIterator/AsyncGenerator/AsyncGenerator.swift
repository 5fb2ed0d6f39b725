import CRJContext
import CRJShims
import Foundation
import RJLocks

/// A stackful generator whose body may also wait for asynchronous work: it `yield`s values
/// (from any call depth) and, between them, `rj_await`s as an ``rj_async(on:file:line:_:)`` body
/// does. Consumed from Swift concurrency (`try await gen.next()`, `for try await`) and from
/// `rj_async` and async generators' bodies (``rj_await(nextOf:)``), with no Swift task between.
///
/// ```swift
/// let items = AsyncGenerator<String, Void, Void> { y in
///     for page in 0... {   // each page awaited, its items yielded one by one
///         guard let batch = try rj_awaitValue(fetchPage(page)) else { return }
///         for item in batch { try y.yield(item) }
///     }
/// }
/// for try await item in items { print(item) }
/// ```
///
/// Semantics as ES2018's async generators and Python's (PEP 525), side by side in
/// docs/async-generators.md: requests are served one at a time, in order; the body runs only
/// while one is served unless buffered (``init(bufferingUpTo:on:stackMode:file:line:_:)``); a
/// cancelled reader's read is withdrawn and the others go on; the body is cancelled when nobody
/// can read it any more (its last reader was cancelled, or the last reference went).
/// The body runs on the requesting thread until it yields or awaits, then on the thread that
/// completed the await (or `on:`); nothing blocks a thread. `Sendable`; so must the body be.
public final class AsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable>: Sendable {
    // The files of this folder: docs/swift-core.md ("Async generators").

    @usableFromInline typealias Storage = AsyncGeneratorStorage<Element, Input, Return>

    /// What the body's pending work keeps alive is the storage, never this object: dropping
    /// the last reference to it always releases the generator.
    @usableFromInline let storage: Storage

    /// Makes an async generator; nothing of `body` runs until the first request.
    ///
    /// - Parameters:
    ///   - queue: where the body runs after each `rj_await`; nil: on the thread that completed it.
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
    ///     for i in 0..<3 { _ = rj_await { done in queue.async { done(nil, nil) } }; try y.yield(i) }
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
    ///   calling it was cancelled (its read is withdrawn: the generator goes on for the others).
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
    /// await or yield, as for ``Generator/return(_:)``); waits for the requests before it. A
    /// command, not a read: it acts even from a cancelled task.
    ///
    /// ```swift
    /// _ = try await gen.return(())   // .returned(())
    /// ```
    @inlinable @discardableResult
    nonisolated(nonsending) public func `return`(_ value: Return) async throws -> GeneratorStep<Element, Return> {
        try await request(.returning(value))
    }

    /// Throws `error` into the body at its `yield`; the body may catch it and yield again.
    /// Waits for the requests before it; acts even from a cancelled task, as `return` does.
    ///
    /// ```swift
    /// _ = try await gen.throw(CancellationError())
    /// ```
    @inlinable @discardableResult
    nonisolated(nonsending) public func `throw`(_ error: any Error) async throws -> GeneratorStep<Element, Return> {
        try await request(.throwing(error))
    }

    /// Where the body is: `created`, `suspended` at a `yield` with no request in progress,
    /// `running` while a request is served (running or awaiting), `completed`.
    ///
    /// ```swift
    /// gen.state   // .created
    /// ```
    public var state: GeneratorState { storage.generatorState }

    /// Whether the body is cancelled (its last reader was cancelled, or it is being closed on
    /// release): its awaits give `CancellationError` at once, its yields are refused.
    ///
    /// ```swift
    /// if gen.isCancelled { print("nobody can read it any more") }
    /// ```
    public var isCancelled: Bool { storage.isCancelledForUsers }

    /// One request from Swift concurrency: served here, on the caller's thread, when nothing else
    /// is in progress (no continuation, no suspension); otherwise it waits its turn.
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
