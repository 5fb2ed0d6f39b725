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

    /// Whether the generator was cancelled: then `yield` throws `CancellationError`.
    @inlinable
    var isCancelled: Bool {
        host._withUnsafeGuaranteedRef { core in
            guard let client = core.client else { return false }
            return Unmanaged<_RJAwaitHost>.fromOpaque(client.toOpaque())._withUnsafeGuaranteedRef { $0.isCancelled }
        }
    }

    /// Hands `value` to the request being served and suspends the body until the next
    /// request.
    ///
    /// - Returns: the input of the `next` that resumes the body.
    /// - Throws: the error of a `throw(_:)` request; `CancellationError` once the generator
    ///   is cancelled (the task waiting for it was); when the generator is being closed
    ///   (`return(_:)`, release), a private exit signal, to let propagate.
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        let current = runningBody()
        if isCancelled { throw CancellationError() }
        switch host._withUnsafeGuaranteedRef({
            $0.suspend(current, yielding: AsyncEvent<Element>.yielded(value), resumedWith: AsyncResume<Input>.self)
        }) {
        case .value(.input(let input)): return input
        case .value(.awaited): fatalError("RJIterator: internal error: an async generator's yield was resumed with an await's result")
        case .error(let error): throw error
        case .close: throw host._withUnsafeGuaranteedRef { $0.takeExit() }
        case .delegateDone: fatalError("RJIterator: internal error: a delegation's signal reached a plain yield")
        }
    }

    /// Delegates to a ``Generator`` until it returns: its values pass through, the inputs and
    /// errors of this generator's requests are forwarded to it, and closing this generator
    /// closes it first (as ``Yielder/yieldAll(_:)`` does).
    ///
    /// ```swift
    /// let numbers = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
    /// let all = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(numbers) }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: Generator<Element, Input, R>) throws -> R {
        try delegate { operation in
            switch operation {
            case .start: return try inner.perform(.delegate)
            case .next(let input): return try inner.perform(.next(input))
            case .throwing(let error): return try inner.perform(.throwing(error))
            case .returning(let pending):
                if pending.type == R.self { return try inner.perform(.returning(pending.value as! R)) }
                return try inner.perform(.close)
            case .close: return try inner.perform(.close)
            }
        }
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
        try delegate { operation in
            switch operation {
            case .start: return try inner.awaitStep(.start)
            case .next(let input): return try inner.awaitStep(.next(input))
            case .throwing(let error): return try inner.awaitStep(.throwing(error))
            case .returning(let pending):
                if pending.type == R.self { return try inner.awaitStep(.returning(pending.value as! R)) }
                return try inner.awaitStep(.close)
            case .close: return try inner.awaitStep(.close)
            }
        }
    }

    /// What a delegation forwards to the inner generator.
    @usableFromInline
    enum Forwarded {
        case start
        case next(Input)
        case throwing(any Error)
        /// A `return(v)` of this generator, forwarded as the inner's `return` when its return
        /// type is `v`'s, as a close otherwise.
        case returning(PendingReturn)
        case close
    }

    /// The delegation loop of both `yieldAll`s: ES6's `yield*`, as ``Yielder/yieldAll(_:)``.
    /// `step` performs one forwarded operation on the inner generator; `nil` from a close
    /// means the inner completed by closing.
    @inlinable
    func delegate<R>(_ step: (Forwarded) throws -> GeneratorStep<Element, R>) throws -> R {
        var current = try step(.start)
        // The exit this generator is being closed with, when `current` answers it.
        var exit: GeneratorExit? = nil
        while true {
            let value: Element
            switch current {
            case .returned(let result):
                if let exit { throw exit.continued(afterInnerReturned: result) }
                return result
            case .yielded(let yielded):
                value = yielded
            }
            // ES6: a return the inner answered by yielding is spent.
            exit = nil
            let input: Input
            do {
                input = try yield(value)
            } catch let closing as GeneratorExit {
                exit = closing
                do {
                    if let pending = closing.pendingReturn {
                        current = try step(.returning(pending))
                    } else {
                        current = try step(.close)
                    }
                } catch GeneratorError.closed {
                    // The inner completed by closing: this body goes on closing.
                    throw closing
                }
                continue
            } catch {
                current = try step(.throwing(error))
                continue
            }
            current = try step(.next(input))
        }
    }
}
