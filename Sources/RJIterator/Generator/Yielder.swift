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
    // Unmanaged, used through `_withUnsafeGuaranteedRef`: an `unowned(unsafe)` reference is
    // retained around each call, and that retain/release pair was a fifth of a round trip.
    @usableFromInline let channel: Unmanaged<_RJCoroutineHost>
    /// The id of the body's coroutine (`rj_coro_id`), which no other coroutine ever gets: the
    /// misuse check compares it, not an address that a later generator may reuse.
    @usableFromInline let id: UInt64

    @usableFromInline init(channel: _RJCoroutineHost, id: UInt64) {
        self.channel = Unmanaged.passUnretained(channel)
        self.id = id
    }

    /// The running coroutine, which must be this yielder's body; stops the program otherwise.
    @inlinable @inline(__always)
    func runningBody() -> OpaquePointer {
        // Check before touching the channel: an escaped Yielder may outlive its generator.
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
    /// - Throws: the error given to ``Generator/throw(_:)``, or, when the generator is being
    ///   closed (``Generator/return(_:)`` or release), a private exit signal. Let that one
    ///   propagate (a cleanup may catch it, yield, and rethrow it): a body that swallows it and
    ///   yields again stays suspended after `return`, and is abandoned on release.
    @inlinable @discardableResult
    public func yield(_ value: Element) throws -> Input {
        let current = runningBody()
        switch channel._withUnsafeGuaranteedRef({ $0.suspend(current, yielding: value, resumedWith: Input.self) }) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw channel._withUnsafeGuaranteedRef { $0.takeExit() }
        }
    }

    /// Delegates to `inner` until it returns (ES6 `yield*`, Python `yield from`): its values
    /// pass through to this generator's caller, the inputs of `next` and the errors of
    /// `throw` are forwarded to it.
    ///
    /// Closing this generator (``Generator/return(_:)``, release) while it delegates closes
    /// `inner` first: a `return(v)` is forwarded as `inner.return(v)` when the two return
    /// types agree (and this generator then returns what `inner` returned, as in ES6), as a
    /// close otherwise. Values `inner`'s cleanup yields go out to this generator's caller as
    /// ordinary steps; an error it throws comes out of `yieldAll`. Then this body's own
    /// cleanup runs: inner first, then outer.
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
        // Set once this generator is being closed: the exit it goes on with when `inner` is done.
        var exit: GeneratorExit? = nil
        while true {
            let value: Element
            switch step {
            case .returned(let result):
                guard let exit else { return result }
                throw exit.continued(afterInnerReturned: result)
            case .yielded(let yielded):
                value = yielded
            }
            if let exit, channel._withUnsafeGuaranteedRef({ $0.closingOnRelease }) {
                // Released while `inner` yields from its cleanup: the value has nowhere to go.
                // This body unwinds; `inner` stays suspended and is closed on its own release.
                throw exit
            }
            let current = runningBody()
            let next: GeneratorStep<Element, R>?
            switch channel._withUnsafeGuaranteedRef({ $0.suspend(current, yielding: value, resumedWith: Input.self) }) {
            case .value(let input):
                next = try inner.delegatedStep(.next(input))
            case .error(let error):
                next = try inner.delegatedStep(.throwing(error))
            case .close:
                let closing = channel._withUnsafeGuaranteedRef { $0.takeExit() }
                exit = closing
                next = try inner.closeForDelegation(closing)
            }
            guard let next else {
                // `inner` completed by closing: a body being closed goes on closing; otherwise
                // someone else closed `inner`, which has no value to give.
                if let exit { throw exit }
                throw GeneratorError.closed
            }
            step = next
        }
    }
}
