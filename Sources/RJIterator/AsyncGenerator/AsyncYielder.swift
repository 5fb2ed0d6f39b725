import CRJContext

/// What an ``AsyncGenerator``'s body receives: the way to hand values out and get inputs back.
/// Valid only inside the body it was passed to, while that body runs (at any call depth), as a
/// ``Yielder`` is.
///
/// ```swift
/// let lines = AsyncGenerator<String, Void, Int> { y in
///     var count = 0
///     for line in try rj_awaitValue(readLines()) { try y.yield(line); count += 1 }
///     return count
/// }
/// ```
public struct AsyncYielder<Element: Sendable, Input: Sendable> {
    /// The body's coroutine (the async generator's core). Unmanaged: see ``Yielder``.
    @usableFromInline let host: Unmanaged<_RJCoroutineHost>
    @usableFromInline let id: UInt64

    @usableFromInline init(host: Unmanaged<_RJCoroutineHost>, id: UInt64) {
        self.host = host
        self.id = id
    }

    /// The running coroutine, which must be this yielder's body; stops the program otherwise.
    @inlinable @inline(__always)
    func runningBody() -> OpaquePointer {
        guard let current = rj_coro_current(), rj_coro_id(current) == id else {
            fatalError(
                "RJIterator: yield called outside its async generator's body. An AsyncYielder is valid only "
                    + "inside the body it was passed to, while that body runs; do not store it or use it from "
                    + "another generator or thread")
        }
        return current
    }

    /// Hands `value` to the request being served and suspends the body until the next
    /// request.
    ///
    /// - Returns: the input of the `next` that resumes the body.
    /// - Throws: the error of a `throw(_:)` request; `CancellationError` once the generator
    ///   is cancelled (a reader's task was, or it is released); when the generator is being
    ///   closed (`return(_:)`, release), ``GeneratorExit``, to let propagate (a body may catch
    ///   it to clean up, then rethrow it).
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        switch handOut(value) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw host._withUnsafeGuaranteedRef { $0.takeExitError() }
        }
    }

    /// The body's side of a `yield`: hands `value` out and suspends; returns how the body was
    /// resumed. (A reader's cancellation is the serving thread's to see: it resumes the body with
    /// `CancellationError` instead of answering anyone.)
    @inlinable
    func handOut(_ value: Element) -> ResumeSignal<Input> {
        let current = runningBody()
        // A for-in of this body whose generator threw left the error here (Generator+Sequence.swift).
        if let error = host._withUnsafeGuaranteedRef({ $0.machine.takePendingError() }) { return .error(error) }
        if host._withUnsafeGuaranteedRef({ $0.machine.closingOnRelease }), refusesYieldOnRelease() {
            return .error(CancellationError())
        }
        switch host._withUnsafeGuaranteedRef({
            $0.suspend(current, yielding: AsyncEvent<Element>.yielded(value), resumedWith: AsyncResume<Input>.self)
        }) {
        case .value(.input(let input)): return .value(input)
        case .value(.awaited):
            preconditionFailure("RJIterator: internal error: an async generator's yield was resumed with an await's result")
        case .error(let error): return .error(error)
        case .close: return .close
        }
    }

    /// Released, the generator cancels its body as it closes it: the first `yield` of the
    /// closing body is refused (`CancellationError`), so that it unwinds; a body that swallowed
    /// that and yields again ignored the close: that `yield` suspends, and the release reports
    /// it and drops the body, as for a `Generator` (refusing it too would loop on the releasing
    /// thread). Out of line: the cold path of every `yield`, which must stay small enough to be
    /// inlined into bodies.
    @usableFromInline @inline(never)
    func refusesYieldOnRelease() -> Bool {
        host._withUnsafeGuaranteedRef { $0.machine.refuseYieldOnRelease() }
    }

    /// Delegates to a ``Generator`` until it returns: its values pass through, the inputs and
    /// errors of this generator's requests are forwarded to it, and closing this generator
    /// closes it first (ES6's `yield*`, decided in the loop `Yielder.yieldAll(_:)` runs too,
    /// Delegation.swift). Each forwarded step takes the inner as any caller does, and gives it
    /// back: between two steps someone else may resume it (it throws
    /// ``GeneratorError/alreadyRunning`` to whoever tries while a step runs).
    ///
    /// ```swift
    /// let numbers = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
    /// let all = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(numbers) }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: Generator<Element, Input, R>) throws -> R {
        try delegateAll(from: host, first: inner.perform(.delegate), handOut: handOut, step: { operation in
            try inner.unlessClosed { try inner.perform(operation) }
        })
    }

    /// Delegates to another async generator until it returns (ES2018's `yield*` in an async
    /// generator): each of its steps is awaited as an `rj_await` is, its values pass through,
    /// the inputs and errors of this generator's requests are forwarded, and closing this
    /// generator closes it first.
    ///
    /// ```swift
    /// let pages = AsyncGenerator<String, Void, Void> { y in
    ///     try y.yieldAll(firstPage)
    ///     try y.yieldAll(secondPage)
    /// }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: AsyncGenerator<Element, Input, R>) throws -> R {
        try delegateAll(from: host, first: inner.awaitStep(.delegate), handOut: handOut, step: { operation in
            do {
                return try inner.awaitStep(operation)
            } catch {
                return try delegatedStepFailed(error, inner: inner.storage)
            }
        })
    }

    /// A forwarded step of `yieldAll(_:)` threw `error`: `nil` when that means the inner
    /// completed by closing, or when this body is released while it waits (it cannot wait for
    /// the inner's close: it goes on closing, and the inner is closed by its own release, as a
    /// suspended Generator's is); otherwise `error` goes on. Out of line: the catch patterns
    /// cost the per-value path an existential buffer even when nothing throws.
    @usableFromInline @inline(never)
    func delegatedStepFailed<R>(_ error: any Error, inner: AsyncGeneratorStorage<Element, Input, R>) throws
        -> GeneratorStep<Element, R>?
    {
        if case GeneratorError.closed = error, inner.core.machine.endedByClose { return nil }
        if error is CancellationError, host._withUnsafeGuaranteedRef({ $0.machine.closingOnRelease }) { return nil }
        throw error
    }
}

extension AsyncYielder {
    /// Yields every element of `sequence`, in order (ES2018's `yield*` of an array or another
    /// iterable): the inputs of the requests that resume the body are dropped; a `throw`, a
    /// close or a cancellation at one of these yields stops the loop and comes out of
    /// `yieldAll`, as from a plain `yield`.
    ///
    /// ```swift
    /// let g = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(1...3) }
    /// ```
    @inlinable @_disfavoredOverload
    public func yieldAll<S: Sequence>(_ sequence: S) throws where S.Element == Element {
        for element in sequence { _ = try yield(element) }
    }

    /// Yields every element of an `AsyncSequence` (an `AsyncStream`, an `AsyncThrowingStream`,
    /// a sequence of your own), in order, each awaited as `rj_awaitValue(nextOf:)` awaits it
    /// (ES2018's `yield*` of an async iterable): the sequence's error comes out of `yieldAll`;
    /// a `throw` or a close of this generator at one of these yields stops the loop, drops the
    /// iterator (Swift's async iterators have no close: an `AsyncStream` ends once nothing holds
    /// it) and comes out of `yieldAll`; a cancellation of the generator cancels the pending
    /// element (an `AsyncStream` ends) and throws `CancellationError`.
    ///
    /// ```swift
    /// let stream = AsyncStream<Int> { c in c.yield(5); c.yield(6); c.finish() }
    /// let g = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(stream) }
    /// ```
    @inlinable @_disfavoredOverload
    public func yieldAll<S: AsyncSequence>(_ sequence: S) throws where S.Element == Element, S.AsyncIterator: SendableMetatype {
        var iterator = sequence.makeAsyncIterator()
        while let element = try rj_awaitValue(nextOf: &iterator) { _ = try yield(element) }
    }
}

extension AsyncYielder where Element == Void {
    /// Waits for the next input (`try yield(())`): the body of a receive-only async generator,
    /// fed with `next(_:)`; its first `next` starts it, as an async generator's always does.
    ///
    /// ```swift
    /// let logger = AsyncGenerator<Void, String, Void> { y in
    ///     while true { print(try y.receive()) }
    /// }
    /// ```
    @inlinable @discardableResult
    public func receive() throws -> Input {
        try yield(())
    }
}
