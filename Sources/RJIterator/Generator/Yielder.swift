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
    // Unmanaged, used through `_withUnsafeGuaranteedRef`: an `unowned(unsafe)` reference is
    // retained around each call, and that retain/release pair was a fifth of a round trip.
    @usableFromInline let channel: Unmanaged<_RJCoroutineHost>

    @usableFromInline init(channel: _RJCoroutineHost) {
        self.channel = Unmanaged.passUnretained(channel)
    }

    /// Suspends the body and hands `value` to the caller of `next`.
    ///
    /// - Returns: the input of the `next` call that resumes the body.
    /// - Throws: the error given to ``Generator/throw(_:)``, or, when the generator is being
    ///   closed (``Generator/return(_:)`` or release), a private exit signal. Let that one
    ///   propagate: a body that swallows it and yields again is abandoned on release.
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        switch channel._withUnsafeGuaranteedRef({ $0.suspend(yielding: value, resumedWith: Input.self) }) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw GeneratorExit()
        }
    }

    /// Delegates to `inner` until it returns (ES6 `yield*`, Python `yield from`): its values
    /// pass through to this generator's caller, the inputs of `next` and the errors of
    /// `throw` are forwarded to it, and closing this generator closes it too.
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
        var step = try inner.perform(.start)
        while true {
            switch step {
            case .returned(let value):
                return value
            case .yielded(let value):
                switch channel._withUnsafeGuaranteedRef({ $0.suspend(yielding: value, resumedWith: Input.self) }) {
                case .value(let input):
                    step = try inner.perform(.next(input))
                case .error(let error):
                    step = try inner.perform(.throwing(error))
                case .close:
                    _ = try? inner.perform(.close)
                    throw GeneratorExit()
                }
            }
        }
    }
}
