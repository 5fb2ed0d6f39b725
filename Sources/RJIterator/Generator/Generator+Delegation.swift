import CRJContext
import RJLocks

// Delegation to a delegate on a stack of its own (a fresh one is adopted: Adoption.swift): a
// `next` switches straight into the deepest coroutine of the chain (`resumeChain`); a
// delegator's body runs again only when its delegate completes. `throw`, `return` and `close` go
// through each delegating body (Delegation.swift). The links are the runners'; a chain is
// touched only by the thread holding the outermost generator's `running` state.

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

    /// Switches into this delegate, untyped (a body that ends keeps its own outcome); `true` when
    /// its body ended. Called by the thread that owns the chain.
    @usableFromInline
    final func switchIntoDelegate(outbox: UnsafeMutableRawPointer, inbox: UnsafeMutableRawPointer) -> Bool {
        guard switchIn(coro.unsafelyUnwrapped, inbox: inbox, outbox: outbox, completionBox: nil) else { return false }
        machine.completedWithKeptOutcome()
        return true
    }
}

extension Generator {
    /// `next(input)` on a body suspended in `yieldAll`: resumes the deepest delegate, then each
    /// delegator whose delegate completed, until one yields. Called holding `running`.
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
    /// closed this generator (the delegation loop turns that into the body's own exit).
    @inlinable
    func stepForDelegator(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return>? {
        try unlessClosed { try carryOut(machine.beginForDelegator(operation), heldByDelegator: true) }
    }
}

extension Yielder {
    /// `yieldAll(inner)` of an `inner` not adopted; `fresh`: `yieldAll` took it from `created`
    /// already. The first step takes `inner` as any operation does; it is kept when it yields.
    @inlinable @inline(never)
    func delegate<R>(to inner: Generator<Element, Input, R>, fresh: Bool) throws -> R {
        let first = try inner.carryOut(fresh ? .start : inner.machine.begin(GeneratorOperation<Input, R>.delegate),
                                       heldByDelegator: true)
        // Owned until it completes; handed back if this body leaves `yieldAll` before.
        defer { inner.machine.giveBackFromDelegator(hasCoroutine: inner.coro != nil) }
        // The links and the end flag are the runner's: a resume goes from coroutine to coroutine.
        let host = host
        return try delegateAll(from: body(on: runningBody()), runner: host, first: first, handOut: { value in
            let current = runningBody()
            return host._withUnsafeGuaranteedRef { host in
                host.link(delegate: inner)
                defer { host.unlink(delegate: inner) }
                return host.suspend(current, yielding: value, resumedWith: Input.self, mayRunAdopted: true)
            }
        }, step: { operation in
            try inner.stepForDelegator(operation)
        }, innerEndedMeanwhile: {
            // The resumer of the chain drove `inner` to its end (its flag on the coroutine host).
            guard host._withUnsafeGuaranteedRef({ $0.machine.takeDelegateEnded() }) else { return nil }
            return .some(try inner.outcomeForDelegator())
        })
    }
}
