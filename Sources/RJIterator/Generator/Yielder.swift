import CRJContext

/// What a generator's body receives: the way to hand values out and get inputs back. Valid
/// only inside the body it was passed to, while that body runs (at any call depth); used
/// anywhere else, it stops the program with a message saying so.
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
    // Two plain words, no reference: a Yielder may outlive its generator, so everything it
    // touches is read from the running coroutine once `runningBody()` has checked it is its body.
    /// The id of the body (`rj_coro_id` while it runs), which no other body ever gets: the
    /// misuse check compares it, not an address that a later generator may reuse.
    @usableFromInline let id: UInt64
    /// Where the body's generator was made (`CoroutineRecord.site`): the misuse message's.
    @usableFromInline let site: UInt64

    @usableFromInline init(id: UInt64, site: UInt64) {
        self.id = id
        self.site = site
    }

    /// The running coroutine, which must be this yielder's body; stops the program otherwise.
    @inlinable @inline(__always)
    func runningBody() -> OpaquePointer {
        guard let current = rj_coro_current(), rj_coro_id(current) == id else { yieldOutsideBody(site: site) }
        return current
    }

    /// The coroutine host whose coroutine runs the body (`current`, checked): the body's own
    /// generator or, for a body adopted by the body that delegates to it (Adoption.swift), the
    /// generator at the bottom of that stack (the *runner*); what the coroutine was made for
    /// (`rj_coro_arg`), which no adoption changes. A `yield` hands its value out through the
    /// host's slots, and an error a for-in of the body could not throw waits there; what is the
    /// body's own (its exit, its outcome) is its generator's (`body(on:)`).
    @inlinable @inline(__always)
    func host(on current: OpaquePointer) -> Unmanaged<_RJCoroutineHost> {
        Unmanaged.fromOpaque(rj_coro_arg(current).unsafelyUnwrapped)
    }

    /// The same, for the body running now (an async generator's body makes its yielder with it).
    @inlinable
    var host: Unmanaged<_RJCoroutineHost> { host(on: runningBody()) }

    /// The generator whose body runs on `current` (which `runningBody()` checked is this
    /// yielder's): the coroutine's owner (`rj_coro_adopt` makes an adopted body's its owner).
    @inlinable @inline(__always)
    func body(on current: OpaquePointer) -> Unmanaged<_RJCoroutineHost> {
        Unmanaged.fromOpaque(rj_coro_owner(current).unsafelyUnwrapped)
    }

    /// Suspends the body and hands `value` to the caller of `next`.
    ///
    /// - Returns: the input of the `next` call that resumes the body.
    /// - Throws: the error given to ``Generator/throw(_:)``; ``GeneratorExit`` when the generator
    ///   is being closed (``Generator/return(_:)``, ``Generator/close()``, release): catch it by
    ///   type to finish work, and let it go on. An error a for-in of this body could not throw
    ///   (the generator it iterated threw) is thrown here, before suspending.
    @inlinable @inline(__always) @discardableResult
    public func yield(_ value: Element) throws -> Input {
        let current = runningBody()
        let host = host(on: current)
        // An error a for-in of this body could not throw waits here (Generator+Sequence.swift).
        if let error = host._withUnsafeGuaranteedRef({ $0.machine.takePendingError() }) { throw error }
        switch host._withUnsafeGuaranteedRef({ $0.suspend(current, yielding: value, resumedWith: Input.self, mayRunAdopted: true) }) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw body(on: current)._withUnsafeGuaranteedRef { $0.takeExitError() }
        }
    }

    /// Delegates to `inner` until it returns (ES6 `yield*`, Python `yield from`): its values pass
    /// through, inputs and errors are forwarded to it, and closing this generator closes `inner`
    /// first. A fresh `inner` only this body holds (`yieldAll(makeChild())`) runs *adopted*, on
    /// this body's stack, as a nested call: a generator per recursive call is cheap
    /// (docs/generators.md, "Delegation: a generator per call at a call's price").
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
    @inlinable @inline(__always)
    public func yieldAll<R>(_ inner: Generator<Element, Input, R>) throws -> R {
        let current = runningBody()
        // A fresh `inner` only this body holds runs here, adopted (Adoption.swift); otherwise on a
        // coroutine of its own (Generator+Delegation.swift). Inline up to the adoption.
        let adopter = body(on: current)
        let host = host(on: current)
        let fresh = inner.machine.takeFresh()
        if fresh, let innerId = inner.adoptionId(on: current, host: host) {
            return try adopt(inner, on: current, host: host, id: innerId, by: adopter)
        }
        return try delegate(to: inner, fresh: fresh)
    }
}

extension Yielder {
    /// Yields every element of `sequence`, in order (ES6's `yield*` of an iterable); the inputs
    /// of `next` are dropped; a `throw(_:)` or close at one of these yields stops the loop and
    /// comes out of `yieldAll`.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1); try y.yieldAll([2, 3]); try y.yieldAll(4...5) }
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
    /// let printer = Generator<Void, String, Void> { y in while true { print("got", try y.receive()) } }
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

/// A `Yielder` used outside its body: stops, naming its generator by where it was made (the
/// Yielder carries that: its generator may be gone) and the body that used it, if any (running,
/// so alive). Out of line: the cold branch of every yield.
@usableFromInline @inline(never)
func yieldOutsideBody(site: UInt64) -> Never {
    var usedIn = "where no generator body runs (after its body ended, while it was suspended, or on another thread)"
    if let current = rj_coro_current(), let owner = rj_coro_owner(current) {
        usedIn = "in " + Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { $0.record.bodyText }
    }
    fatalError(
        "RJIterator: yield called outside its generator's body: the Yielder of the Generator made at "
            + "\(CoroutineRecord.text(of: site)) was used \(usedIn). A Yielder is valid only inside the body it "
            + "was passed to, while that body runs: do not store it or use it from another generator or thread")
}
