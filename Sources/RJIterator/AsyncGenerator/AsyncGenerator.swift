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
/// Semantics as ES2018's async generators and Python's (PEP 525); docs/async-generators.md has
/// them side by side, and says what happens with several readers, buffering and threads:
/// - Calls are **requests**, served one at a time and in order, from any task.
/// - **No buffering** unless asked (``init(bufferingUpTo:on:stackMode:file:line:_:)``): the body
///   runs only while a request is served.
/// - `return(v)` and `throw(e)` act at the body's `yield`, as for ``Generator``.
/// - **Cancellation**: a cancelled reader's `next` throws `CancellationError`, and the body's
///   awaits and yields throw it from then on, so its cleanups run; other readers see the end.
/// - **Release**: dropping the last reference closes a suspended body (its `defer`s run).
///
/// Threads: the body runs on the thread that made the request until it yields or awaits, then
/// on the thread that completed the await (or the queue given). Nothing blocks a thread. The
/// type is `Sendable`; so must the body be.
public final class AsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable>: Sendable {
    // The files of this folder: docs/swift-core.md ("Async generators").

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
