import CRJContext
import RJLocks

// Delegation between generators (`Yielder.yieldAll`) without a switch per level.
//
// A body that delegates to `inner` takes `inner`'s state word (`running`) and keeps it for
// the whole delegation: `inner` is owned by the delegating generator, and nobody else can
// resume it meanwhile. The body records the link (`delegate` / `delegator`) and suspends
// once, handing out `inner`'s first value. From then on, a `next` on the delegating
// generator does not switch into its body: it switches straight into the deepest generator
// of the chain (`resumeChain`), whose yielded value goes straight to the caller. So a
// value costs one round trip whatever the depth of the chain of `yieldAll`s, where a body
// that forwarded each value itself would cost one per level.
//
// Only when a delegate completes does its delegator's body run again (its `delegateEnded` flag set):
// `yieldAll` reads the outcome and the body goes on, or yields, or delegates anew, or
// completes in its turn (and its own delegator runs). `throw`, `return` and `close` go
// through the delegating body, which forwards them to `inner`, one level at a time: they
// are rare, and their semantics (ES6's `yield*`) are decided in the delegation loop
// (Delegation.swift), which the async yielder shares.
//
// All of a chain is touched by one thread at a time: the one that holds the outermost
// generator's `running` state. The delegates' own state words stay `running` meanwhile.

extension _RJCoroutineHost {
    /// The deepest generator of the chain of delegates that starts at `self` (`self` if it
    /// does not delegate).
    @inlinable
    final func deepestOfChain() -> Unmanaged<_RJCoroutineHost> {
        var node = Unmanaged.passUnretained(self)
        while let next = node._withUnsafeGuaranteedRef({ $0.delegate }) { node = next }
        return node
    }

    /// Links a body's generator to the delegate it now owns.
    @inlinable
    final func link(delegate inner: _RJCoroutineHost) {
        delegate = Unmanaged.passUnretained(inner)
        inner.delegator = Unmanaged.passUnretained(self)
        deepestDelegate = nil
        inner.deepestDelegate = nil
    }

    /// Undoes `link` (a no-op when the resumer already did, as a delegate completed).
    @inlinable
    final func unlink(delegate inner: _RJCoroutineHost) {
        if let current = delegate, current.toOpaque() == Unmanaged.passUnretained(inner).toOpaque() {
            delegate = nil
            inner.delegator = nil
        }
        deepestDelegate = nil
    }

    /// Switches into this delegate with `inbox`, the caller's local holding its signal, and
    /// `outbox` for the value it yields; nothing typed is needed (a body that ends keeps its own
    /// outcome, `completionBox` being nil). Returns `true` when its body ended (then it is
    /// `completed`), as `switchIn` does. Called by the thread that owns the chain.
    @usableFromInline
    final func switchIntoDelegate(outbox: UnsafeMutableRawPointer, inbox: UnsafeMutableRawPointer) -> Bool {
        guard switchIn(coro.unsafelyUnwrapped, inbox: inbox, outbox: outbox, completionBox: nil) else { return false }
        machine.completedWithKeptOutcome()
        return true
    }
}

extension Generator {
    /// `next(input)` on a generator whose body is suspended in `yieldAll`: resumes the
    /// deepest delegate with `input`. A delegate that completes resumes its delegator's
    /// body, and so on up; the first one that yields gives this call its value. Called
    /// holding `running`.
    @inlinable
    func resumeChain(with input: Input) throws -> GeneratorStep<Element, Return> {
        var node = deepestDelegate ?? deepestOfChain()
        let signal = ResumeSignal<Input>.value(input)
        // The slots as `switchIntoBody`'s: uninitialised, the signal moved out by the body, the
        // value put in by the one that yields.
        return try _withUnprotectedUnsafeTemporaryAllocation(of: ResumeSignal<Input>.self, capacity: 1) { signalSlot in
            try _withUnprotectedUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { valueSlot in
                let inbox = UnsafeMutableRawPointer(signalSlot.baseAddress.unsafelyUnwrapped)
                let outbox = UnsafeMutableRawPointer(valueSlot.baseAddress.unsafelyUnwrapped)
                while true {
                    signalSlot.baseAddress.unsafelyUnwrapped.initialize(to: signal)
                    let ended = node._withUnsafeGuaranteedRef { $0.switchIntoDelegate(outbox: outbox, inbox: inbox) }
                    if !ended {
                        // It yielded, or started a delegation of its own (then the new deepest one
                        // yielded): the next `next` resumes the deepest.
                        deepestDelegate = node._withUnsafeGuaranteedRef { $0.deepestOfChain() }
                        machine.bodyYielded()
                        return .yielded(valueSlot.baseAddress.unsafelyUnwrapped.move())
                    }
                    // It completed: its delegator's `yieldAll` reads how.
                    let parent = node._withUnsafeGuaranteedRef { completed in
                        let parent = completed.delegator.unsafelyUnwrapped
                        completed.delegator = nil
                        parent._withUnsafeGuaranteedRef { $0.delegate = nil }
                        return parent
                    }
                    // Its delegator's body runs again, told so by its flag (the signal it moves
                    // out of its inbox is the input, unread).
                    parent._withUnsafeGuaranteedRef { $0.machine.delegateEnded() }
                    if parent.toOpaque() == Unmanaged.passUnretained(self).toOpaque() {
                        deepestDelegate = nil
                        return try switchIntoBody(coro.unsafelyUnwrapped, signal: signal)
                    }
                    node = parent
                }
            }
        }
    }

    /// How this delegate ended, once the resumer of its delegator's chain drove it to its end:
    /// its kept outcome (`nil` for a close, as `stepForDelegator`).
    @inlinable
    func outcomeForDelegator() throws -> GeneratorStep<Element, Return>? {
        assert(machine.current(.relaxed) == .completed, "RJIterator: internal error: a delegate said done is not")
        return try unlessClosed { try reportOutcome() }
    }

    /// One forwarded operation on this delegate, which the delegating body owns: `nil` when it
    /// completed this generator by closing it, which the delegation loop turns into the body's
    /// own exit.
    @inlinable
    func stepForDelegator(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return>? {
        try unlessClosed { try carryOut(machine.beginForDelegator(operation), heldByDelegator: true) }
    }
}

extension Yielder {
    /// `yieldAll(inner)`, run by the body of the generator `host`.
    @inlinable
    func delegate<R>(to inner: Generator<Element, Input, R>) throws -> R {
        // The first step takes `inner` as any operation does, and keeps it when it yields.
        let first = try inner.carryOut(inner.machine.begin(GeneratorOperation<Input, R>.delegate),
                                       heldByDelegator: true)
        // From here `inner` is owned until it completes; if this body leaves `yieldAll` while
        // `inner` is still suspended, it is handed back.
        defer { inner.machine.giveBackFromDelegator(hasCoroutine: inner.coro != nil) }
        return try delegateAll(from: host, first: first, handOut: { value in
            let current = runningBody()
            return host._withUnsafeGuaranteedRef { host in
                host.link(delegate: inner)
                defer { host.unlink(delegate: inner) }
                return host.suspend(current, yielding: value, resumedWith: Input.self)
            }
        }, step: { operation in
            try inner.stepForDelegator(operation)
        }, innerEndedMeanwhile: {
            // The resumer of the chain drove `inner` to its end (its flag on this body's generator).
            guard host._withUnsafeGuaranteedRef({ $0.machine.takeDelegateEnded() }) else { return nil }
            return .some(try inner.outcomeForDelegator())
        })
    }
}
