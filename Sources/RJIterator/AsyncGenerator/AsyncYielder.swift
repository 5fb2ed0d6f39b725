import CRJContext

/// What an ``AsyncGenerator``'s body receives: the way to hand values out and get inputs back.
/// Valid only inside the body it was passed to, while that body runs, as a ``Yielder`` is.
///
/// ```swift
/// let lines = AsyncGenerator<String, Void, Void> { y in
///     for line in try rj_awaitValue(readLines()) { try y.yield(line) }
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

    /// Hands `value` to the request being served and suspends the body until the next request.
    ///
    /// - Returns: the input of the `next` that resumes the body.
    /// - Throws: the error of a `throw(_:)` request; `CancellationError` once the generator is
    ///   cancelled (its last reader's task was, or it is released); ``GeneratorExit`` when it is being
    ///   closed (`return(_:)`, release): catch it to clean up, then rethrow it.
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        switch handOut(value) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw host._withUnsafeGuaranteedRef { $0.takeExitError() }
        }
    }

    /// The body's side of a `yield`: hands `value` out, suspends, returns how the body was resumed
    /// (its last reader's cancellation resumes it with `CancellationError` instead of answering anyone).
    @inlinable
    func handOut(_ value: Element) -> ResumeSignal<Input> {
        let current = runningBody()
        // A for-in of this body whose generator threw left the error here (Generator+Sequence.swift).
        if let error = host._withUnsafeGuaranteedRef({ $0.machine.takePendingError() }) { return .error(error) }
        if host._withUnsafeGuaranteedRef({ $0.machine.closingOnRelease }), refusesYieldOnRelease() {
            return .error(CancellationError())
        }
        switch host._withUnsafeGuaranteedRef({
            $0.suspend(current, yielding: AsyncHandOut<Element>.value(value), resumedWith: AsyncResumeInput<Input>.self)
        }) {
        case .value(.input(let input)): return .value(input)
        case .value(.awaited):
            preconditionFailure("RJIterator: internal error: an async generator's yield was resumed with an await's result")
        case .error(let error): return .error(error)
        case .close: return .close
        }
    }

    /// A `yield` of a body closed on release (see `GeneratorStateMachine.refuseYieldOnRelease`).
    /// Out of line: the cold path of every `yield`, which must stay small enough to be inlined.
    @usableFromInline @inline(never)
    func refusesYieldOnRelease() -> Bool {
        host._withUnsafeGuaranteedRef { $0.machine.refuseYieldOnRelease() }
    }

    /// Delegates to a ``Generator`` until it returns (ES6's `yield*`, the loop of Delegation.swift):
    /// its values pass through, this generator's inputs and errors are forwarded, a close closes
    /// it first. Each forwarded step takes the inner as any caller does and gives it back, so
    /// between steps others may resume it (during one they get ``GeneratorError/alreadyRunning``).
    ///
    /// ```swift
    /// let numbers = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
    /// let all = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(numbers) }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: Generator<Element, Input, R>) throws -> R {
        try delegateAll(from: host, runner: host, first: inner.perform(.delegate), handOut: handOut, step: { operation in
            try inner.unlessClosed { try inner.perform(operation) }
        })
    }

    /// Delegates to another async generator until it returns (ES2018's `yield*`): each of its
    /// steps is awaited as an `rj_await` is; values, inputs, errors and a close go through as for
    /// a ``Generator``.
    ///
    /// ```swift
    /// let pages = AsyncGenerator<String, Void, Void> { y in try y.yieldAll(firstPage); try y.yieldAll(secondPage) }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: AsyncGenerator<Element, Input, R>) throws -> R {
        let awaiting = awaitHost
        let storage = inner.storage
        return try delegateAll(from: host, runner: host, first: storage.awaitStep(.delegate, in: awaiting), handOut: handOut, step: { operation in
            do {
                return try storage.awaitStep(operation, in: awaiting)
            } catch {
                return try delegatedStepFailed(error, inner: storage)
            }
        })
    }

    /// The await host of this yielder's body (its async generator's storage).
    @inlinable
    var awaitHost: _RJAwaitHost {
        _RJAwaitHost.host(of: runningBody()).unsafelyUnwrapped.takeUnretainedValue()
    }

    /// A forwarded step of `yieldAll(_:)` threw `error`: `nil` when the inner completed by closing,
    /// or when this body is released while it waits (it goes on closing; the inner is closed by its
    /// own release); otherwise `error` goes on. Out of line: the catch patterns cost the per-value
    /// path an existential buffer even when nothing throws.
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
    /// Yields every element of `sequence`, in order (ES2018's `yield*` of an iterable); the
    /// requests' inputs are dropped; a `throw`, close or cancellation at one of these yields stops
    /// the loop and comes out of `yieldAll`.
    ///
    /// ```swift
    /// let g = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(1...3) }
    /// ```
    @inlinable @_disfavoredOverload
    public func yieldAll<S: Sequence>(_ sequence: S) throws where S.Element == Element {
        for element in sequence { _ = try yield(element) }
    }

    /// Yields every element of an `AsyncSequence`, in order, each awaited as
    /// `rj_awaitValue(nextOf:)` awaits it (ES2018's `yield*` of an async iterable): the sequence's
    /// error comes out of `yieldAll`; a `throw` or close at one of these yields drops the iterator
    /// (Swift's async iterators have no close); a cancellation cancels the pending element.
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
    /// let logger = AsyncGenerator<Void, String, Void> { y in while true { print(try y.receive()) } }
    /// ```
    @inlinable @discardableResult
    public func receive() throws -> Input {
        try yield(())
    }
}
