import CRJContext

/// What a generator's body receives: the way to hand values out and get inputs back.
///
/// A `Yielder` is valid only inside the body it was passed to, while that body runs (at any
/// call depth). Using it anywhere else stops the program with a message saying so.
///
/// ```swift
/// func walk(_ node: Tree, _ y: Yielder<Int, Void>) throws {   // a helper can yield
///     if let l = node.left { try walk(l, y) }
///     try y.yield(node.value)
///     if let r = node.right { try walk(r, y) }
/// }
/// let inorder = Generator<Int, Void, Void> { y in try walk(tree, y) }
/// ```
public struct Yielder<Element, Input> {
    /// The generator whose body this is. Unmanaged, used through `_withUnsafeGuaranteedRef`:
    /// an `unowned(unsafe)` reference is retained around each call, a retain/release pair on
    /// every yield.
    @usableFromInline let host: Unmanaged<_RJCoroutineHost>
    /// The id of the body's coroutine (`rj_coro_id`), which no other coroutine ever gets: the
    /// misuse check compares it, not an address that a later generator may reuse.
    @usableFromInline let id: UInt64

    @usableFromInline init(host: _RJCoroutineHost, id: UInt64) {
        self.host = Unmanaged.passUnretained(host)
        self.id = id
    }

    /// The running coroutine, which must be this yielder's body; stops the program otherwise.
    @inlinable @inline(__always)
    func runningBody() -> OpaquePointer {
        // Check before touching the host: an escaped Yielder may outlive its generator.
        guard let current = rj_coro_current(), rj_coro_id(current) == id else {
            fatalError(
                "RJIterator: yield called outside its generator's body. A Yielder is valid only "
                    + "inside the body it was passed to, while that body runs; do not store it or "
                    + "use it from another generator or thread")
        }
        return current
    }

    /// Suspends the body and hands `value` to the caller of `next`.
    ///
    /// - Returns: the input of the `next` call that resumes the body.
    /// - Throws: the error given to ``Generator/throw(_:)``; when the generator is being closed
    ///   (``Generator/return(_:)``, ``Generator/close()``, release), ``GeneratorExit``: catch it
    ///   by type to finish work (`catch let exit as GeneratorExit { flush(); throw exit }`) and
    ///   let it go on; a body that swallows it and yields again stays suspended after `return`,
    ///   and is abandoned on release. An error a for-in of this body could not throw (the
    ///   generator it iterated threw) is thrown here, before suspending.
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        let current = runningBody()
        // A for-in of this body whose generator threw left the error here (Generator+Sequence.swift).
        if let error = host._withUnsafeGuaranteedRef({ $0.machine.takePendingError() }) { throw error }
        switch host._withUnsafeGuaranteedRef({ $0.suspend(current, yielding: value, resumedWith: Input.self) }) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw host._withUnsafeGuaranteedRef { $0.takeExitError() }
        }
    }

    /// Delegates to `inner` until it returns (ES6 `yield*`, Python `yield from`): its values
    /// pass through to this generator's caller, the inputs of `next` and the errors of
    /// `throw` are forwarded to it.
    ///
    /// While it delegates, `inner` belongs to this generator: its `state` reads `running`,
    /// and resuming it directly throws ``GeneratorError/alreadyRunning``. A `next` on this
    /// generator resumes the deepest generator of the chain directly, so a value costs one
    /// round trip however many `yieldAll`s it comes through.
    ///
    /// Closing this generator (``Generator/return(_:)``, release) while it delegates closes
    /// `inner` first: a `return(v)` is forwarded as `inner.return(v)` when the two return
    /// types agree, as a close otherwise. If that completes `inner`, this generator goes on
    /// closing, and returns what `inner` returned (as in ES6); if `inner`'s cleanup yields
    /// instead, the value goes out to this generator's caller and the return is spent: the
    /// delegation goes on, and when `inner` later returns, `yieldAll` returns its value (ES6).
    /// An error `inner`'s cleanup throws comes out of `yieldAll`.
    ///
    /// - Returns: `inner`'s return value.
    /// - Throws: what `inner` throws, or ``GeneratorError/delegateAlreadyStarted`` if `inner`
    ///   is suspended mid-way and its `Input` is not `Void`.
    ///
    /// ```swift
    /// let inner = Generator<Int, Void, String> { y in try y.yield(1); try y.yield(2); return "inner done" }
    /// let outer = Generator<Int, Void, Void> { y in
    ///     let r = try y.yieldAll(inner)   // yields 1, 2
    ///     print(r)                        // "inner done"
    /// }
    /// ```
    @inlinable
    public func yieldAll<R>(_ inner: Generator<Element, Input, R>) throws -> R {
        try delegate(to: inner)
    }
}

extension Yielder {
    /// Yields every element of `sequence`, in order (ES6's `yield*` of an array or another
    /// iterable): the inputs of the `next` calls that resume the body are dropped (a sequence
    /// takes none); a `throw(_:)` or a close of this generator at one of these yields stops the
    /// loop and comes out of `yieldAll`, as from a plain `yield`.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in
    ///     try y.yield(1)
    ///     try y.yieldAll([2, 3])
    ///     try y.yieldAll(4...5)
    /// }
    /// // 1, 2, 3, 4, 5
    /// ```
    @inlinable @_disfavoredOverload
    public func yieldAll<S: Sequence>(_ sequence: S) throws where S.Element == Element {
        for element in sequence { _ = try yield(element) }
    }
}

extension Yielder where Element == Void {
    /// Waits for the next input: the body of a receive-only coroutine (Python's `x = yield`),
    /// the same as `try yield(())`. Prime the generator with ``Generator/start()``, then hand it
    /// values with ``Generator/send(_:)``.
    ///
    /// ```swift
    /// let printer = Generator<Void, String, Void> { y in
    ///     while true { print("got", try y.receive()) }
    /// }
    /// try printer.start()        // runs to the first receive()
    /// try printer.send("hello")  // got hello
    /// ```
    ///
    /// - Throws: as ``yield(_:)``: a thrown-in error, or ``GeneratorExit`` when closed.
    @inlinable @discardableResult
    public func receive() throws -> Input {
        try yield(())
    }
}
